/**
 * What analysts see of a release on a registered dataset (SPEC §11; issue 22): the charged cap as
 * its ε, no Δ; the achieved values go to the owner's diagnostics.
 *
 * @module
 */
import { divUp } from "../mechanisms/privacy.ts";
import { lookupMechanism, MECHANISMS } from "../mechanisms/registry.ts";
import type { MechanismName } from "../mechanisms/mechanism.ts";
import type { JobOutput } from "./store.ts";

/**
 * The release of a job on a registered dataset as analysts see it. The exact Δ and the achieved
 * ε = 2Δm are statistics of the data (the largest |ℓ_i| over draws is the most extreme record's),
 * so the public report and a table's privacy state the charged cap as the release's ε, no Δ, and
 * per dataset {@linkcode statedPerDataset} (from the mechanism's privacy map, never from the
 * achieved values: weighted-e's achieved Δ is 0 when every record was truncated); the achieved
 * values go to the owner's diagnostics (`achieved`). A release
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
    report: { ...report, ...stated, epsilonPerDataset: statedPerDataset(report, cap) },
    diagnostics: { ...release.diagnostics, achieved },
    ...(privacy == null
      ? {}
      : { result: { ...release.result!, privacy: { ...privacy, ...stated } } }),
  };
}

/**
 * The ε per dataset a public report states for a charged cap, from public facts only: the
 * mechanism's privacy map (registry) and m. Where the map gives every dataset the release's
 * whole ε (the histogram: each dataset post-processes one ε-DP output) it is the cap; otherwise
 * the m datasets compose and each carries cap/m (rounded up).
 *
 * @param report The release's mechanism and m.
 * @param cap The charged ε.
 * @returns The stated ε per dataset.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { statedPerDataset } from "./public_release.ts";
 * assert.equal(statedPerDataset({ mechanism: "histogram", m: 4 }, 1), 1);
 * assert.ok(statedPerDataset({ mechanism: "weighted-e", m: 2 }, 0.02) < 0.0100001);
 * ```
 */
export function statedPerDataset(
  report: { readonly mechanism: string; readonly m: number },
  cap: number,
): number {
  const { privacy } = lookupMechanism(MECHANISMS, report.mechanism as MechanismName);
  const shape = privacy.map(1, report.m);
  return shape.epsilonPerDataset === shape.epsilon ? cap : divUp(cap, report.m);
}
