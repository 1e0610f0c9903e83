/**
 * The synthesis job: runs the one pipeline (`synthesize`, SPEC §7) on a job's request and
 * confidential data, returning the release for the queue to charge and publish. Running it twice
 * is harmless: only the lease that completes first releases.
 *
 * @module
 */
import { formatCsv } from "../data/csv.ts";
import type { Dataset } from "../data/dataset.ts";
import { releaseSettings } from "../synthesis/release_summary.ts";
import type { SynthesisSpec } from "../synthesis/spec.ts";
import { synthesize } from "../synthesis/synthesize.ts";
import type { JobOutput, JobProgress } from "./store.ts";

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
 * Synthesizes and returns the release (report, diagnostics, the m CSVs).
 *
 * @param data The confidential dataset.
 * @param spec The job's request.
 * @param onProgress Where the fits' progress goes (public stage names only).
 * @param signal Aborting it stops the synthesis (the job ran past its time limit).
 */
export async function runSynthesisJob(
  data: Dataset,
  spec: SynthesisSpec,
  onProgress: (progress: JobProgress) => void,
  signal?: AbortSignal,
): Promise<JobOutput> {
  const result = await synthesize(data, spec, {
    onProgress: (stage, done, total) =>
      onProgress({ stage: publicStage(stage), fraction: total > 0 ? done / total : 0 }),
    signal,
  });
  return {
    report: result.report,
    // The utility report summarises the confidential data: it goes with the diagnostics, with
    // the request's settings that the release report's first section lists.
    diagnostics: result.utility === undefined ? result.diagnostics : {
      ...result.diagnostics,
      utilityReport: result.utility,
      releaseSettings: releaseSettings(spec),
    },
    // Released to analysts: cells a spreadsheet would run as formulas are escaped.
    datasets: result.datasets.map((columns) => formatCsv(columns, { escapeFormulas: true })),
  };
}
