/**
 * A study fanned out on the Redis queue (`deno task study NAME --queue redis://…`): one job per
 * replicate r = 0…R−1, each carrying {study, r, seed, settings} (replicate r derives its own
 * streams from `new Rng(seed).split(r)`), run by any `deno task worker`. The coordinator waits
 * for the R records, reads them in r order and applies the study's own `aggregate`, so the
 * result is the `runStudy` result of the same (seed, R, settings), byte for byte: a record is a
 * pure function of (r, seed, settings) and plain JSON, so its JSON text round-trips.
 *
 * @module
 */
import type { Study, StudyResult } from "../studies/study_runner.ts";
import { connectRedis, type RedisClient } from "./redis.ts";
import { errorsKey, recordsKey, replicateJobKey, WORKER_PATTERN } from "./scale_jobs.ts";
import { ScaleQueues } from "./scale_queues.ts";
import { studyByName } from "../studies/registry.ts";

/** Where a fanned-out study stands. */
export interface FanoutProgress {
  /** Replicates whose record is stored. */
  readonly done: number;
  readonly replicates: number;
  /** Workers advertising themselves now (any study or API job). */
  readonly workers: number;
}

/** Options of {@linkcode runStudyOnQueue}. */
export interface FanoutOptions<S> {
  /** The Redis URL. */
  readonly url: string;
  readonly seed: number;
  readonly replicates: number;
  readonly settings: S;
  /** The run's id (default a fresh UUID); a coordinator restarted with it reuses the records. */
  readonly run?: string;
  /** How often the records are counted, in milliseconds (default 500). */
  readonly pollMs?: number;
  /** Told whenever the count of stored records or of live workers changes. */
  readonly onProgress?: (progress: FanoutProgress) => void;
}

function checkId(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`Invalid ${name}: must be an integer ≥ ${min}: ${name}=${value}`);
  }
}

/** Counts the workers advertising themselves (SCAN over {@linkcode WORKER_PATTERN}). */
export async function liveWorkers(redis: RedisClient): Promise<number> {
  let count = 0;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", WORKER_PATTERN, "COUNT", 1000);
    count += keys.length;
    cursor = next;
  } while (cursor !== "0");
  return count;
}

/**
 * Runs R replicates of a study on the queue's workers and aggregates them in r order.
 *
 * @param study The study (it must be in `STUDIES` of src/studies/registry.ts under its name: workers look it up).
 * @param options The queue, seed, R, settings and a progress callback.
 * @returns The same result as `runStudy` with these seed, R and settings.
 */
export async function runStudyOnQueue<S, R, A>(
  study: Study<S, R, A>,
  options: FanoutOptions<S>,
): Promise<StudyResult<S, R, A>> {
  checkId("seed", options.seed, 0);
  checkId("replicates", options.replicates, 1);
  studyByName(study.name);
  const run = options.run ?? crypto.randomUUID();
  const queues = new ScaleQueues(options.url);
  const redis = connectRedis(options.url);
  try {
    for (let r = 0; r < options.replicates; r++) {
      await queues.add(
        {
          kind: "replicate",
          run,
          study: study.name,
          r,
          seed: options.seed,
          settings: options.settings,
        },
        replicateJobKey(run, r),
      );
    }
    let last = "";
    for (;;) {
      const errors = await redis.hgetall(errorsKey(run));
      const failed = Object.keys(errors).map(Number).sort((a, b) => a - b);
      if (failed.length > 0) {
        throw new Error(`replicate ${failed[0] + 1}: ${errors[String(failed[0])]}`);
      }
      const done = await redis.hlen(recordsKey(run));
      const workers = await liveWorkers(redis);
      const progress = { done, replicates: options.replicates, workers };
      const key = `${done}/${workers}`;
      if (key !== last) options.onProgress?.(progress);
      last = key;
      if (done >= options.replicates) break;
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 500));
    }
    const stored = await redis.hgetall(recordsKey(run));
    const records: R[] = Array.from({ length: options.replicates }, (_, r) => {
      const text = stored[String(r)];
      if (text === undefined) throw new Error(`replicate ${r + 1}: no record stored`);
      return JSON.parse(text) as R;
    });
    await redis.del(recordsKey(run), errorsKey(run));
    return {
      study: study.name,
      seed: options.seed,
      replicates: options.replicates,
      settings: options.settings,
      summary: study.aggregate(records, options.settings),
      records,
    };
  } finally {
    await queues.close();
    await redis.quit();
  }
}
