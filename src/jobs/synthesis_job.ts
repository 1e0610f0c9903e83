/**
 * The synthesis job: runs the job's plan (`runPlan`: `synthesize`, SPEC §7, then the one release
 * bundle) on its confidential data, returning the release for the queue to charge and publish.
 * Running it twice is harmless: only the lease that completes first releases.
 *
 * @module
 */
import type { Dataset } from "../data/dataset.ts";
import type { SynthesisPlan } from "../synthesis/plan.ts";
import { runPlan } from "../synthesis/run_plan.ts";
import { FitTracker } from "../synthesis/fit_progress.ts";
import type { SynthesisProgress } from "../synthesis/synthesize.ts";
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
 * A synthesis's progress as a job's: every running fit (one per conditional) with its public
 * stage, iteration of total, and seconds run and left (`FitTracker`), the stage of the fit that
 * reported and the fraction of the running fits' iterations done.
 *
 * @param onProgress Where the job's progress goes.
 * @param now Milliseconds (default `performance.now()`).
 * @returns The synthesis's progress callback.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jobProgress } from "./synthesis_job.ts";
 * const seen: unknown[] = [];
 * const update = jobProgress((progress) => seen.push(progress), () => 0);
 * update("lw calibration g=0.2", 30, 100, "a");
 * update("lw calibration g=0.2", 10, 100, "b");
 * assert.deepEqual(seen.at(-1), {
 *   stage: "lw",
 *   fraction: 0.2,
 *   fits: [
 *     { stage: "lw", conditional: "a", iteration: 30, total: 100, elapsedSeconds: 0, remainingSeconds: 0 },
 *     { stage: "lw", conditional: "b", iteration: 10, total: 100, elapsedSeconds: 0, remainingSeconds: 0 },
 *   ],
 * });
 * ```
 */
export function jobProgress(
  onProgress: (progress: JobProgress) => void,
  now?: () => number,
): SynthesisProgress {
  const tracker = new FitTracker(now);
  const tenth = (seconds: number) => Math.round(seconds * 10) / 10;
  return (stage, done, total, conditional) => {
    tracker.update(stage, done, total, conditional);
    const fits = tracker.fits().map((fit) => ({
      ...fit,
      stage: publicStage(fit.stage),
      elapsedSeconds: tenth(fit.elapsedSeconds),
      remainingSeconds: fit.remainingSeconds === null ? null : tenth(fit.remainingSeconds),
    }));
    const iterations = fits.reduce((sum, fit) => sum + fit.iteration, 0);
    const totals = fits.reduce((sum, fit) => sum + fit.total, 0);
    onProgress({
      stage: publicStage(stage),
      fraction: totals > 0 ? Math.min(1, iterations / totals) : 0,
      fits,
    });
  };
}

/**
 * Runs the plan and returns the release as the one release bundle holds it (`release_bundle.ts`):
 * the public report, the owner's diagnostics with the utility report and the request's settings,
 * and the m CSVs (formula cells escaped: released to analysts).
 *
 * @param data The confidential dataset.
 * @param plan The job's plan.
 * @param onProgress Where the fits' progress goes (public stage names only).
 * @param signal Aborting it stops the synthesis (the job ran past its time limit).
 */
export async function runSynthesisJob(
  data: Dataset,
  plan: SynthesisPlan,
  onProgress: (progress: JobProgress) => void,
  signal?: AbortSignal,
): Promise<JobOutput> {
  const { bundle } = await runPlan(data, {
    plan,
    options: { onProgress: jobProgress(onProgress), signal },
  });
  const { report, owner, datasets } = bundle;
  return { report, diagnostics: owner, datasets };
}
