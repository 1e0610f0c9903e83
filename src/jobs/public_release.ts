/**
 * What analysts see of a release on a registered dataset (SPEC §11; issue 22): the charged cap as
 * its ε, no Δ; the achieved values go to the owner's diagnostics.
 *
 * @module
 */
import { divUp } from "../mechanisms/privacy.ts";
import type { JobOutput } from "./store.ts";

/**
 * The release of a job on a registered dataset as analysts see it. The exact Δ and the achieved
 * ε = 2Δm are statistics of the data (the largest |ℓ_i| over draws is the most extreme record's),
 * so the public report and a table's privacy state the charged cap as the release's ε, cap/m per
 * dataset (the cap itself where every dataset post-processes one ε-DP output) and no Δ; the achieved values go to the owner's diagnostics (`achieved`). A release
 * whose achieved ε exceeds the cap is refused here (an internal error: the mechanisms never
 * exceed their target).
 *
 * @param release The release the job computed.
 * @param cap The ε charged when the job was accepted.
 * @returns The release to complete.
 */
export function publicRelease(release: JobOutput, cap: number): JobOutput {
  const report = release.report as JobOutput["report"] | null;
  if (report === null) return release;
  if (!(report.epsilon <= cap)) {
    throw new Error("the release's epsilon exceeds the cap charged when the job was accepted");
  }
  const achieved = {
    lipschitz: report.lipschitz,
    epsilonPerDataset: report.epsilonPerDataset,
    epsilon: report.epsilon,
  };
  const stated = { epsilon: cap, lipschitz: null };
  const privacy = release.result?.privacy;
  return {
    ...release,
    // Datasets that post-process one ε-DP output (the histogram) each carry the whole ε;
    // otherwise the m datasets compose, and each carries at most cap/m.
    report: {
      ...report,
      ...stated,
      epsilonPerDataset: report.epsilonPerDataset === report.epsilon ? cap : divUp(cap, report.m),
    },
    diagnostics: { ...release.diagnostics, achieved },
    ...(privacy == null
      ? {}
      : { result: { ...release.result!, privacy: { ...privacy, ...stated } } }),
  };
}
