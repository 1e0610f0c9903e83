/**
 * The worker pool's handler: reads a claimed job's request and confidential data from the store
 * and runs it by its kind, a synthesis (`synthesis_job.ts`) or a survey table
 * (`table_job.ts`).
 *
 * @module
 */
import { parseCsv } from "../data/csv.ts";
import { runSynthesisJob } from "./synthesis_job.ts";
import { runTableJob } from "./table_job.ts";
import type { JobStore } from "./store.ts";
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
    const data = parseCsv(input.csv, source);
    return input.kind === "table"
      ? await runTableJob(data, input.spec, onProgress)
      : await runSynthesisJob(data, input.spec, onProgress);
  };
}
