/**
 * The synthesis job: reads a job's request and confidential data from the store and runs the
 * one pipeline (`synthesize`, SPEC §7), returning the release for the queue to charge and
 * publish. Running it twice is harmless: only the lease that completes first releases.
 *
 * @module
 */
import { formatCsv, parseCsv } from "../data/csv.ts";
import { synthesize } from "../synthesis/synthesize.ts";
import type { JobHandler } from "./worker_pool.ts";
import type { JobStore } from "./store.ts";

/**
 * The public name of a fit's stage: the first word of its label ("unweighted", "lw",
 * "calibration", "reweight"…), without the data-dependent settings that follow it.
 *
 * @param label A fit's label from the mechanism.
 * @returns Its first word.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { publicStage } from "./synthesis_job.ts";
 * assert.equal(publicStage("calibration g=-0.31"), "calibration");
 * ```
 */
export function publicStage(label: string): string {
  return label.trim().split(/\s+/)[0] || "fit";
}

/**
 * The handler that runs syntheses for a {@linkcode WorkerPool}.
 *
 * @param store Where the job's request and data are.
 * @returns A handler that synthesizes and returns the release (report, diagnostics, CSVs).
 */
export function synthesisHandler(store: JobStore): JobHandler {
  return async (lease, onProgress) => {
    const input = await store.jobInput(lease.jobId);
    if (input === null) throw new Error(`job ${lease.jobId} has no input`);
    const source = input.datasetId === null ? "inline data" : `dataset ${input.datasetId}`;
    const data = parseCsv(input.csv, source);
    const result = await synthesize(data, input.spec, {
      onProgress: (stage, done, total) =>
        onProgress({ stage: publicStage(stage), fraction: total > 0 ? done / total : 0 }),
    });
    return {
      report: result.report,
      diagnostics: result.diagnostics,
      datasets: result.datasets.map(formatCsv),
    };
  };
}
