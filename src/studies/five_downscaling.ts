/**
 * The censoring slides' "fine tuning with downscaling" at ε = 4 (issue 25): Weighted-e and
 * Censor w with their weights downscaled, α̃_i = c₁·α_i with c₁ = ε/5, against the same rule
 * without it (c = 1, g = 0), each measured where it ends (above ε/2 included, as the slides'
 * violins show): the Lipschitz bounds and avg-ECDF as distributions over the databases, and the
 * verdict on "Improved utility with downscaling", paired on the databases.
 *
 * @module
 */
import { distributionSeries, type Figure, type Panel } from "../report/figure.ts";
import type { FiveEntry, FiveRecord, FiveResult } from "./five_result.ts";
import { FIVE_DOWNSCALED, FIVE_LABELS, type FiveDownscaled } from "./five_settings.ts";
import * as md from "./markdown.ts";
import { pairedDifference } from "../stats/paired_difference.ts";
import { isTie, Judge, type Verdict, verdict } from "./verdict.ts";

const COLORS: Readonly<Record<FiveDownscaled, string>> = {
  "weighted-e": "#CC79A7",
  "censored-w": "#009E73",
};

/** The index of the downscaling ε among the settings' ε's (−1: not run). */
function downscalingIndex(result: FiveResult): number {
  const { downscaling, epsilons } = result.settings;
  return downscaling === null ? -1 : epsilons.indexOf(downscaling);
}

/** A synthesizer's entries over the databases, downscaled or not. */
function entries(
  result: FiveResult,
  m: FiveDownscaled,
  downscaled: boolean,
): (FiveEntry | null)[] {
  const e = downscalingIndex(result);
  if (e < 0) return [];
  return result.records.map((r: FiveRecord) =>
    r.epsilons[e].downscaling?.[downscaled ? "scaled" : "unscaled"][m] ?? null
  );
}

/** The slides' two violins as distributions over the databases: Δ and avg-ECDF. */
export function downscalingFigure(result: FiveResult): Figure {
  const c1 = result.settings.downscaling === null
    ? "–"
    : String(result.settings.downscaling / result.settings.reference);
  const panel = (title: string, xLabel: string, value: (x: FiveEntry) => number | null): Panel => ({
    title,
    xLabel,
    yLabel: "share of databases at or below",
    series: FIVE_DOWNSCALED.flatMap((m) =>
      [false, true].map((downscaled) =>
        distributionSeries(
          `${FIVE_LABELS[m]}, c = ${downscaled ? c1 : 1}`,
          COLORS[m],
          entries(result, m, downscaled).map((x) => x === null ? null : value(x)),
          { dashed: !downscaled },
        )
      )
    ),
  });
  return {
    title: "Fine tuning with downscaling (censoring slides)",
    panels: [
      panel("Lipschitz bound", "Δ", (x) => x.lipschitz),
      panel("avg-ECDF", "avg-ECDF ×10³", (x) => 1000 * x.ecdfMeanSquared),
    ],
    legend: FIVE_DOWNSCALED.map((m) => [FIVE_LABELS[m], COLORS[m]] as const),
    caption: `solid: downscaled, c₁ = ${c1}; dashed: c = 1 (no downscaling); released or not`,
  };
}

/** The slides' "Improved utility with downscaling" (avg-ECDF), per synthesizer, paired. */
export function downscalingVerdict(result: FiveResult): Verdict | null {
  if (downscalingIndex(result) < 0) return null;
  const per = FIVE_DOWNSCALED.map((m) => {
    const down = entries(result, m, true);
    const plain = entries(result, m, false);
    const pairs = down.map((x, r) =>
      [x?.ecdfMeanSquared ?? null, plain[r]?.ecdfMeanSquared ?? null] as const
    );
    const both = pairs.filter(([a, b]) => a !== null && b !== null).length;
    return { m, d: both < 2 ? null : pairedDifference(pairs), down, plain };
  });
  const half = result.settings.downscaling! / 2;
  const above = (xs: readonly (FiveEntry | null)[]) =>
    xs.filter((x) => x !== null && (x.lipschitz ?? 0) > half).length;
  const ours = per.map(({ m, d, down, plain }) =>
    `${FIVE_LABELS[m]}: Δ > ε/2 on ${above(down)} of ${down.length} databases downscaled, ` +
    `${above(plain)} at c = 1` +
    (d === null
      ? ""
      : `; avg-ECDF ×10³ lower by ${md.fmt(-1000 * d.mean, 3)} downscaled (paired z = ` +
        `${md.fmt(-d.z, 1)}, ${d.n} databases)`)
  ).join("; ");
  const cells = {
    quantity: `Censoring slides: "Improved utility with downscaling" (avg-ECDF, ε = ` +
      `${result.settings.downscaling}), Weighted-e and Censor w at c₁ = ε/5 against c = 1`,
    paper: "improved",
    ours,
  };
  if (per.some((p) => p.d === null)) {
    return verdict(cells, Judge.differs("not comparable: fewer than two databases ran both"));
  }
  const worse = per.filter((p) => !isTie(p.d!) && p.d!.mean > 0);
  const tied = per.filter((p) => isTie(p.d!));
  if (worse.length > 0) {
    return verdict(
      cells,
      Judge.differs(`downscaling worsens ${worse.map((p) => FIVE_LABELS[p.m]).join(" and ")}`),
    );
  }
  return verdict(
    cells,
    tied.length === 0 ? Judge.agrees() : Judge.tie(
      tied.map((p) => `${FIVE_LABELS[p.m]}: paired z = ${md.fmt(-p.d!.z, 1)}`).join("; "),
    ),
  );
}
