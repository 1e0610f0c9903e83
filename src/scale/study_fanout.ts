/**
 * The Redis transport of the replicate scheduler (`src/studies/replicate_scheduler.ts`): a study
 * fanned out on the Redis queue (`deno task study NAME --queue redis://…`), one job per
 * replicate r = 0…R−1, each carrying {study, r, seed, settings} (replicate r derives its own
 * streams from `new Rng(seed).split(r)`), run by any `deno task worker` in a
 * {@linkcode ReplicateThread} of one of its slots ({@linkcode runQueuedReplicate}), which stores
 * the JSON record with HSETNX (the first writer wins). The coordinator waits for the R records
 * and reads them in r order; the scheduler applies the study's own `aggregate`, so the result is
 * the `runStudy` result of the same (seed, R, settings), byte for byte: a record is a pure
 * function of (r, seed, settings) and plain JSON, so its JSON text round-trips.
 *
 * @module
 */
import type { Logger } from "../jobs/leased_job.ts";
import {
  type ReplicateRun,
  ReplicateThread,
  type ReplicateTransport,
  scheduleReplicates,
} from "../studies/replicate_scheduler.ts";
import type { Study, StudyResult } from "../studies/study.ts";
import { connectRedis, type RedisClient } from "./redis.ts";
import {
  errorsKey,
  RECORD_TTL_S,
  recordsKey,
  type ReplicateJobData,
  replicateJobKey,
  WORKER_PATTERN,
} from "./scale_jobs.ts";
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
 * The transport that enqueues the replicates on Redis and waits for their records.
 *
 * @param options The queue, the run id, the polling interval and a progress callback.
 */
export function onRedisQueue(
  options: Omit<FanoutOptions<unknown>, keyof ReplicateRun<unknown>>,
): ReplicateTransport {
  return async <S, R>(
    study: Study<S, R, unknown>,
    { seed, replicates, settings }: ReplicateRun<S>,
  ) => {
    studyByName(study.name);
    const run = options.run ?? crypto.randomUUID();
    const queues = new ScaleQueues(options.url);
    const redis = connectRedis(options.url);
    try {
      for (let r = 0; r < replicates; r++) {
        const data: ReplicateJobData = {
          kind: "replicate",
          run,
          study: study.name,
          r,
          seed,
          settings,
        };
        await queues.add(data, replicateJobKey(run, r));
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
        const key = `${done}/${workers}`;
        if (key !== last) options.onProgress?.({ done, replicates, workers });
        last = key;
        if (done >= replicates) break;
        await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 500));
      }
      const stored = await redis.hgetall(recordsKey(run));
      const records: R[] = Array.from({ length: replicates }, (_, r) => {
        const text = stored[String(r)];
        if (text === undefined) throw new Error(`replicate ${r + 1}: no record stored`);
        return JSON.parse(text) as R;
      });
      await redis.del(recordsKey(run), errorsKey(run));
      return records;
    } finally {
      await queues.close();
      await redis.quit();
    }
  };
}

/**
 * Runs R replicates of a study on the queue's workers and aggregates them in r order.
 *
 * @param study The study (it must be in `STUDIES` of src/studies/registry.ts under its name: workers look it up).
 * @param options The queue, seed, R, settings and a progress callback.
 * @returns The same result as `runStudy` with these seed, R and settings.
 */
export function runStudyOnQueue<S, R, A>(
  study: Study<S, R, A>,
  options: FanoutOptions<S>,
): Promise<StudyResult<S, R, A>> {
  return scheduleReplicates(study, options, onRedisQueue(options));
}

/**
 * The worker side: runs one replicate job in a slot's thread and stores its record in the
 * run's hash with HSETNX (a second run of the same replicate writes nothing), or its error in
 * the run's error hash (and throws, failing the BullMQ job).
 *
 * @param redis The worker's Redis connection.
 * @param thread The slot's study thread.
 * @param data The replicate job.
 * @param log The worker's log.
 */
export async function runQueuedReplicate(
  redis: RedisClient,
  thread: ReplicateThread,
  data: ReplicateJobData,
  log: Logger,
): Promise<void> {
  const { study } = studyByName(data.study);
  log("replicate_started", { run: data.run, study: data.study, r: data.r });
  let record: unknown;
  try {
    record = await thread.run({
      module: study.module,
      r: data.r,
      seed: data.seed,
      settings: data.settings,
    });
  } catch (error) {
    await redis.hset(errorsKey(data.run), String(data.r), (error as Error).message);
    await redis.expire(errorsKey(data.run), RECORD_TTL_S);
    throw new Error(`replicate ${data.r} failed`);
  }
  const written = await redis.hsetnx(recordsKey(data.run), String(data.r), JSON.stringify(record));
  await redis.expire(recordsKey(data.run), RECORD_TTL_S);
  log("replicate_finished", {
    run: data.run,
    r: data.r,
    outcome: written === 1 ? "stored" : "already_stored",
  });
}
