/**
 * The worker pool's handler (and the Redis workers'): reads a claimed job's request and
 * confidential data from the store and runs it by its kind, a synthesis (`synthesis_job.ts`)
 * or a survey table (`table_job.ts`). A job on a registered dataset reads its data through the
 * release policy (bounded columns clamped, the cells of tables over the declared levels) and
 * never runs with a seed; the counts of clamped values go to the owner's diagnostics, and its
 * public report states the charged cap as its ε (`publicRelease`).
 *
 * @module
 */
import { parseCsv } from "../data/csv.ts";
import { policyData, publicRelease } from "./release_policy.ts";
import { runSynthesisJob } from "./synthesis_job.ts";
import { runTableJob } from "./table_job.ts";
import type { JobStore, Release } from "./store.ts";
import type { JobHandler } from "./worker_pool.ts";

/**
 * The handler that runs every kind of job for a {@linkcode WorkerPool}.
 *
 * @param store Where the job's request and data are.
 * @returns A handler that runs the job and returns its release.
 */
export function jobHandler(store: JobStore): JobHandler {
  return async (lease, onProgress) => {
    const input = await store.jobInput(lease.jobId);
    if (input === null) throw new Error(`job ${lease.jobId} has no input`);
    const source = input.datasetId === null ? "inline data" : `dataset ${input.datasetId}`;
    const parsed = parseCsv(input.csv, source);
    const { policy } = input;
    if (policy === null) {
      return input.kind === "table"
        ? await runTableJob(parsed, input.spec, onProgress)
        : await runSynthesisJob(parsed, input.spec, onProgress);
    }
    const { data, clamped } = policyData(parsed, policy);
    const release: Release = input.kind === "table"
      ? await runTableJob(data, { ...input.spec, seed: undefined }, onProgress, policy.levels)
      : await runSynthesisJob(data, { ...input.spec, seed: undefined }, onProgress);
    return publicRelease(
      { ...release, diagnostics: { ...release.diagnostics, clamped } },
      input.spec.epsilon!,
    );
  };
}
