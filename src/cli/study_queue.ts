/**
 * `deno task study NAME --queue redis://…`: the study fanned out on the Redis queue's workers
 * (`runStudyOnQueue`), with a progress line on stderr. Its result is `runStudy`'s, byte for byte,
 * so `study.ts` writes it the same way.
 *
 * @module
 */
import { runStudyOnQueue } from "../scale/study_fanout.ts";
import { checkQueueUrl } from "../scale/redis.ts";
import type { Study, StudyResult } from "../studies/study.ts";
import { UsageError } from "./run_command.ts";

/** What the study command passes: the queue URL, seed, R and settings. */
export interface QueuedStudyOptions<S> {
  readonly queue: string;
  readonly seed: number;
  readonly replicates: number;
  readonly settings: S;
}

/**
 * Runs the study on the queue, writing "[NAME] k of R replicates done, W worker(s) (t min)" to
 * stderr whenever k or W changes.
 *
 * @param study The study.
 * @param options The queue URL (`--queue`), seed, R and settings.
 * @returns The aggregated result (identical to the single-process run's).
 */
export function runStudyCommandOnQueue<S, R, A>(
  study: Study<S, R, A>,
  options: QueuedStudyOptions<S>,
): Promise<StudyResult<S, R, A>> {
  try {
    checkQueueUrl(options.queue);
  } catch {
    throw new UsageError("--queue: must be a redis:// or rediss:// URL");
  }
  const started = performance.now();
  const encoder = new TextEncoder();
  return runStudyOnQueue(study, {
    url: options.queue,
    seed: options.seed,
    replicates: options.replicates,
    settings: options.settings,
    onProgress: ({ done, replicates, workers }) => {
      const minutes = ((performance.now() - started) / 60000).toFixed(1);
      const line = `[${study.name}] ${done} of ${replicates} replicates done, ${workers} ` +
        `worker(s) (${minutes} min)`;
      Deno.stderr.writeSync(encoder.encode(line + "\n"));
    },
  });
}
