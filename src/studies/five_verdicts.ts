/**
 * The verdicts of the five-synthesizer study (Study 3) against the JSM censoring slides, and the
 * analyses they and the report (`five_document.ts`) read:
 *
 * - the two tunings (issue 25): the slides calibrate Weighted and give Weighted-e and Censor w the
 *   fixed rule, and the study runs each of the three the other way too (`retuned`); a
 *   synthesizer's entry or cell under one tuning, so that comparisons are made with every
 *   synthesizer tuned the same way;
 * - the paired comparisons: one synthesizer's utility against another's on the databases where
 *   both released, under one tuning, with its z and whether the difference is a tie within Monte
 *   Carlo error, and the sentences built from them;
 * - the slides' "fine tuning with downscaling" at ε = 4: Weighted-e and Censor w with their
 *   weights downscaled, α̃_i = c₁·α_i with c₁ = ε/5, against the same rule without it (c = 1,
 *   g = 0), each measured where it ends (above ε/2 included, as the slides' violins show): the
 *   Lipschitz bounds and avg-ECDF over the databases, and the verdict on "Improved utility with
 *   downscaling", paired on the databases.
 *
 * @module
 */
import {
  FIVE_DOWNSCALED,
  FIVE_LABELS,
  FIVE_MECHANISMS,
  FIVE_TUNABLE,
  type FiveCell,
  type FiveDownscaled,
  type FiveEntry,
  type FiveMechanism,
  type FiveRecord,
  type FiveResult,
  type FiveSummary,
  type FiveTunable,
} from "./five_settings.ts";
import { type PairedDifference, pairedDifference } from "../stats/paired_difference.ts";
import { isTie, Judge, type Judgement, type ReportVerdict, verdict } from "./verdict.ts";
import { cat, joined, num, text, type Value } from "./study_document.ts";

/**
 * How a tunable synthesizer's weights are set: the slides' fixed rule (c = ε/5, g = 0), Weighted's
 * calibrated shift, or "native", as the slides run each (Weighted calibrated, the others fixed).
 */
export type Tuning = "fixed" | "calibrated" | "native";

/** The tuning each tunable synthesizer runs under in `mechanisms` (the rest in `retuned`). */
const NATIVE: Readonly<Record<FiveTunable, Tuning>> = {
  lw: "calibrated",
  "weighted-e": "fixed",
  "censored-w": "fixed",
};

const isTunable = (m: FiveMechanism): m is FiveTunable =>
  (FIVE_TUNABLE as readonly string[]).includes(m);

/** Where a synthesizer under a tuning is kept: `mechanisms` or `retuned`. */
const inRetuned = (m: FiveMechanism, tuning: Tuning) =>
  isTunable(m) && tuning !== "native" && NATIVE[m] !== tuning;

/**
 * A synthesizer under a tuning in one ε's `mechanisms` and `retuned`: a database's entry or the
 * summary's cell (null: not released, or not run).
 */
function under<T>(
  eps: {
    readonly mechanisms: Readonly<Record<FiveMechanism, T | null>>;
    readonly retuned: Readonly<Record<FiveTunable, T | null>>;
  },
  m: FiveMechanism,
  tuning: Tuning,
): T | null {
  return inRetuned(m, tuning) ? eps.retuned[m as FiveTunable] : eps.mechanisms[m];
}

/** A synthesizer's entry under a tuning in one database's ε entry (null: not released). */
export const entryUnder: (
  eps: FiveRecord["epsilons"][number],
  m: FiveMechanism,
  tuning: Tuning,
) => FiveEntry | null = under;

/** A synthesizer's cell under a tuning at one ε (null: none released or not run). */
export const cellUnder: (
  eps: FiveSummary["epsilons"][number],
  m: FiveMechanism,
  tuning: Tuning,
) => FiveCell | null = under;

/** The synthesizers under a tuning from best to worst by mean max-ECDF. */
export function rankUnder(eps: FiveSummary["epsilons"][number], tuning: Tuning): FiveMechanism[] {
  return FIVE_MECHANISMS.filter((m) => cellUnder(eps, m, tuning) !== null)
    .sort((p, q) =>
      cellUnder(eps, p, tuning)!.ecdfMax.mean - cellUnder(eps, q, tuning)!.ecdfMax.mean
    );
}

/** A synthesizer's label, with its tuning where it is not the slides' own. */
export function labelUnder(m: FiveMechanism, tuning: Tuning): string {
  return inRetuned(m, tuning) ? `${FIVE_LABELS[m]} (${tuning})` : FIVE_LABELS[m];
}

/** The utility measures: max-ECDF and avg-ECDF. */
export type Utility = "ecdfMax" | "ecdfMeanSquared";

export type Lower = PairedDifference & { readonly tie: boolean };

/**
 * `a` against `b` at ε index e under one tuning, paired on the databases where both released: how
 * much lower `a`'s utility measure is (positive when `a` is better), its z and the databases
 * (null when fewer than two databases have both).
 */
export function lowerBy(
  result: FiveResult,
  e: number,
  a: FiveMechanism,
  b: FiveMechanism,
  key: Utility,
  tuning: Tuning = "native",
): Lower | null {
  const pairs = result.records.map((r) => {
    const eps = r.epsilons[e];
    return [
      entryUnder(eps, b, tuning)?.[key] ?? null,
      entryUnder(eps, a, tuning)?.[key] ?? null,
    ] as const;
  });
  if (pairs.filter(([x, y]) => x !== null && y !== null).length < 2) return null;
  const d = pairedDifference(pairs);
  return { ...d, tie: isTie(d) };
}

/** The same comparison the other way round. */
export const flip = (d: Lower): Lower => ({ ...d, mean: -d.mean, z: -d.z });

/** "Censor w lower than Weighted by 0.0021 (paired z = 1.1, 100 databases)". */
export function lowerText(
  a: FiveMechanism,
  b: FiveMechanism,
  d: Lower,
  tuning: Tuning = "native",
): Value {
  return cat(
    text`${labelUnder(a, tuning)} lower than ${labelUnder(b, tuning)} by ${num.fixed(d.mean, 4)} `,
    text`(paired z = ${num.fixed(d.z, 1)}, ${d.n} databases)`,
  );
}

/** "; ties within Monte Carlo error (z < 2): …", or "" when there are none. */
export const tiesText = (ties: readonly Value[]) =>
  ties.length === 0 ? "" : text`; ties within Monte Carlo error (z < 2): ${joined(ties, "; ")}`;

/**
 * Weighted against the synthesizer with the best mean at ε index e, paired: "best by max-ECDF",
 * "tied for best …" (|z| < 2 is not a loss) or "not best …" (the slides' "Weighted best").
 */
export function weightedAgainstBest(
  result: FiveResult,
  e: number,
  rank: readonly FiveMechanism[],
  measure: string,
  key: Utility,
): Value {
  if (rank[0] === "lw") return `best by ${measure}`;
  const d = lowerBy(result, e, rank[0], "lw", key);
  if (d === null) return `not best by ${measure} (${FIVE_LABELS[rank[0]]} is)`;
  const z = text`paired z = ${num.fixed(d.z, 1)}, ${d.n} databases`;
  if (!d.tie && d.mean < 0) {
    return cat(
      `best by ${measure} on the databases both released (paired z = `,
      text`${num.fixed(-d.z, 1)} against ${FIVE_LABELS[rank[0]]}, ${d.n} databases)`,
    );
  }
  return d.tie
    ? cat(
      text`tied for best by ${measure} (${FIVE_LABELS[rank[0]]}'s mean is lower, ${z}: a tie `,
      "within Monte Carlo error)",
    )
    : text`not best by ${measure} (${FIVE_LABELS[rank[0]]} is, ${z})`;
}

/** The index of the downscaling ε among the settings' ε's (−1: not run). */
export function downscalingIndex(result: FiveResult): number {
  const { downscaling, epsilons } = result.settings;
  return downscaling === null ? -1 : epsilons.indexOf(downscaling);
}

/** A synthesizer's entries over the databases, downscaled or not. */
export function downscalingEntries(
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

/** The slides' "Improved utility with downscaling" (avg-ECDF), per synthesizer, paired. */
export function downscalingVerdict(result: FiveResult): ReportVerdict | null {
  if (downscalingIndex(result) < 0) return null;
  const per = FIVE_DOWNSCALED.map((m) => {
    const down = downscalingEntries(result, m, true);
    const plain = downscalingEntries(result, m, false);
    const pairs = down.map((x, r) =>
      [x?.ecdfMeanSquared ?? null, plain[r]?.ecdfMeanSquared ?? null] as const
    );
    const both = pairs.filter(([a, b]) => a !== null && b !== null).length;
    return { m, d: both < 2 ? null : pairedDifference(pairs), down, plain };
  });
  const half = result.settings.downscaling! / 2;
  const above = (xs: readonly (FiveEntry | null)[]) =>
    xs.filter((x) => x !== null && (x.lipschitz ?? 0) > half).length;
  const ours = joined(
    per.map(({ m, d, down, plain }) =>
      cat(
        `${FIVE_LABELS[m]}: Δ > ε/2 on ${above(down)} of ${down.length} databases downscaled, `,
        `${above(plain)} at c = 1`,
        d === null ? "" : cat(
          text`; avg-ECDF ×10³ lower by ${num.fixed(-1000 * d.mean, 3)} downscaled (paired z = `,
          text`${num.fixed(-d.z, 1)}, ${d.n} databases)`,
        ),
      )
    ),
    "; ",
  );
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
      joined(tied.map((p) => text`${FIVE_LABELS[p.m]}: paired z = ${num.fixed(-p.d!.z, 1)}`), "; "),
    ),
  );
}

/**
 * Weighted-e's truncation per ε: the databases still above ε/2 after it (refused) and the
 * others' Δ range and zeroed records.
 */
export function truncationText(result: FiveResult): Value {
  return joined(
    result.summary.epsilons.map(({ epsilon, mechanisms }) => {
      const cell = mechanisms["weighted-e"];
      return cell === null || cell.lipschitz === null ? `ε = ${epsilon}: –` : cat(
        `ε = ${epsilon}: ${result.replicates - cell.replicates} of ${result.replicates} `,
        "databases still above ε/2 after the one truncation (refused by the cap: no release); ",
        text`the others Δ ${num.fixed(cell.lipschitz.min, 3)}–${
          num.fixed(cell.lipschitz.max, 3)
        }, `,
        text`${num.fixed(cell.zeroWeightsMean, 1)} records zeroed on average`,
      );
    }),
    "; ",
  );
}

/** The two tunings every comparison is made under, each synthesizer tuned the same way. */
const TUNINGS = ["fixed", "calibrated"] as const;

/** "the fixed rule c = ε/5, g = 0" or "calibrated g". */
const tuningText = (tuning: Tuning) =>
  tuning === "fixed" ? "the fixed rule c = ε/5, g = 0" : "calibrated g";

/**
 * The stated order Weighted < Censor w < others by max-ECDF, pair by pair under each tuning and
 * paired on the databases where both released: where the claimed-worse synthesizer is lower, a
 * real difference (|z| ≥ 2) contradicts the order and one within Monte Carlo error is a tie.
 */
function rankingJudgement(result: FiveResult): Judgement<Value> {
  const { summary } = result;
  const others = FIVE_MECHANISMS.filter((m) => m !== "lw" && m !== "censored-w");
  const claims: (readonly [FiveMechanism, FiveMechanism])[] = [
    ["censored-w", "lw"],
    ...others.map((worse) => [worse, "lw"] as const),
    ...others.map((worse) => [worse, "censored-w"] as const),
  ];
  const found = (tied: boolean) =>
    TUNINGS.flatMap((tuning) => {
      const parts = summary.epsilons.flatMap((eps, e) => {
        const lower = claims.flatMap(([worse, better]) => {
          const d = lowerBy(result, e, worse, better, "ecdfMax", tuning);
          return d !== null && d.mean > 0 && d.tie === tied
            ? [lowerText(worse, better, d, tuning)]
            : [];
        });
        return lower.length === 0 ? [] : [text`ε = ${eps.epsilon}: ${joined(lower, ", ")}`];
      });
      return parts.length === 0 ? [] : [text`under ${tuningText(tuning)}, ${joined(parts, "; ")}`];
    });
  const comparable = TUNINGS.some((tuning) =>
    summary.epsilons.some((_, e) =>
      claims.some(([w, b]) => lowerBy(result, e, w, b, "ecdfMax", tuning) !== null)
    )
  );
  if (!comparable) return Judge.differs("not comparable: fewer than two databases");
  const contradicted = found(false);
  const ties = found(true);
  if (contradicted.length === 0) {
    return ties.length === 0 ? Judge.agrees() : Judge.tie(joined(ties, "; "));
  }
  return Judge.differs(text`${joined(contradicted, "; ")}${tiesText(ties)}`);
}

/**
 * The slides' "Weighted-e Produces Slightly Worse Utility" with both at the fixed rule, paired on
 * the databases both released: Weighted-e better by a real difference contradicts it. (With
 * calibrated weights Weighted-e is Weighted: calibration leaves nothing above ε/2 to truncate.)
 */
function slightlyWorseJudgement(result: FiveResult): Judgement<Value> {
  const compared = result.summary.epsilons.flatMap((eps, e) => {
    const d = lowerBy(result, e, "lw", "weighted-e", "ecdfMax", "fixed");
    return d === null ? [] : [{ epsilon: eps.epsilon, d }];
  });
  const lowerOf = (d: Lower) =>
    d.mean >= 0
      ? lowerText("lw", "weighted-e", d, "fixed")
      : lowerText("weighted-e", "lw", flip(d), "fixed");
  const better = compared.filter((c) => !c.d.tie && c.d.mean < 0);
  const tied = compared.filter((c) => c.d.tie).map((c) => text`ε = ${c.epsilon}: ${lowerOf(c.d)}`);
  if (compared.length === 0) {
    return Judge.differs(
      "not comparable: Weighted and Weighted-e at the fixed rule released together on fewer " +
        "than two databases at every ε",
    );
  }
  if (better.length === 0) {
    return tied.length === 0 ? Judge.agrees() : Judge.tie(joined(tied, "; "));
  }
  return Judge.differs(
    cat(
      text`Weighted-e is better at ${
        joined(better.map((c) => text`ε = ${c.epsilon}: ${lowerOf(c.d)}`), "; ")
      }`,
      text`, both at the fixed rule, paired on the databases both released${tiesText(tied)}`,
    ),
  );
}

/**
 * The slides' "faster convergence" of Weighted-e onto ε/2 against Weighted, both at the fixed
 * rule: per database, whether each ends above ε/2 (refused by the cap; Weighted-e after its one
 * truncation), paired. Weighted-e above on fewer databases by a real difference agrees.
 */
function contractionJudgement(result: FiveResult): { ours: string; judgement: Judgement<Value> } {
  const per = result.summary.epsilons.map((eps, e) => {
    const above = (r: FiveRecord, m: FiveMechanism) =>
      entryUnder(r.epsilons[e], m, "fixed") === null ? 1 : 0;
    const pairs = result.records.map((r) => [above(r, "lw"), above(r, "weighted-e")] as const);
    const count = (k: 0 | 1) => pairs.reduce((t, p) => t + p[k], 0);
    const d = pairs.length < 2 ? null : pairedDifference(pairs);
    return { epsilon: eps.epsilon, n: pairs.length, weighted: count(0), truncated: count(1), d };
  });
  const ours = per.map((p) =>
    `ε = ${p.epsilon}: above ε/2 in ${p.weighted} of ${p.n} databases at the fixed rule, ` +
    `Weighted-e in ${p.truncated} after its one truncation`
  ).join("; ");
  if (per.some((p) => p.d === null)) {
    return { ours, judgement: Judge.differs("not comparable: fewer than two databases") };
  }
  const z = (p: typeof per[number]) => text`paired z = ${num.fixed(p.d!.z, 1)}`;
  const slower = per.filter((p) => !isTie(p.d!) && p.d!.mean < 0);
  const tied = per.filter((p) => isTie(p.d!));
  if (slower.length > 0) {
    return {
      ours,
      judgement: Judge.differs(
        text`Weighted-e ends above ε/2 more often at ${
          joined(slower.map((p) => text`ε = ${p.epsilon} (${z(p)})`), ", ")
        }`,
      ),
    };
  }
  return {
    ours,
    judgement: tied.length === 0 ? Judge.agrees() : Judge.tie(
      joined(tied.map((p) => text`ε = ${p.epsilon}: ${z(p)}`), "; "),
    ),
  };
}

/**
 * The verdict rows: what the censoring slides print or state about the simulation (its results
 * are violin plots without printed values) and their SDR table.
 */
export function fiveVerdicts(result: FiveResult): ReportVerdict[] {
  const { summary } = result;
  const per = (f: (e: FiveSummary["epsilons"][number]) => Value) =>
    joined(summary.epsilons.map((e) => text`ε = ${e.epsilon}: ${f(e)}`), "; ");
  const censoredOk = summary.epsilons.every((e) =>
    [e.mechanisms["censored-w"], e.mechanisms.censored, e.retuned["censored-w"]].every((cell) =>
      (cell?.lipschitz?.max ?? 0) <= e.epsilon / 2
    )
  );
  const contraction = contractionJudgement(result);
  return [
    verdict(
      {
        quantity: "Censor w and Censor uw: Lipschitz bounds under the dashed line ε/2 (DP)",
        paper: "≤ ε/2 (violins, ε = 5, 4, 3)",
        ours: per((e) =>
          text`max ${num.fixed(e.mechanisms["censored-w"]?.lipschitz?.max, 3)} and ${
            num.fixed(e.mechanisms.censored?.lipschitz?.max, 3)
          }`
        ),
      },
      censoredOk
        ? Judge.byConstruction("every contribution is clamped")
        : Judge.differs("a censored bound above ε/2"),
    ),
    verdict(
      {
        quantity:
          'Weighted-e: aDP "with faster convergence" onto ε/2 than Weighted (truncation), ' +
          "both at the fixed rule c = ε/5, g = 0",
        paper: "faster contraction (violins)",
        ours: contraction.ours,
      },
      contraction.judgement,
    ),
    verdict({
      quantity: "Utility (max-ECDF): Weighted best, Censor w second, each tuning applied to " +
        "every synthesizer",
      paper: "Weighted < Censor w < others",
      ours: joined(
        TUNINGS.map((tuning) =>
          text`${tuningText(tuning)}: ${
            per((e) => rankUnder(e, tuning).map((m) => FIVE_LABELS[m]).join(" < "))
          }`
        ),
        "; ",
      ),
    }, rankingJudgement(result)),
    verdict({
      quantity: 'Censoring slides: "Weighted-e Produces Slightly Worse Utility" than Weighted ' +
        "(a slide title; its figure shows the average of the mean parameter μ at n = 100, 400, " +
        "1600, 6400 over R = 100, not max-ECDF), both at the fixed rule c = ε/5, g = 0",
      paper: "slightly worse",
      ours: per((e) =>
        text`Weighted-e ${
          num.fixed(cellUnder(e, "weighted-e", "fixed")?.ecdfMax.mean, 4)
        } vs Weighted ${num.fixed(cellUnder(e, "lw", "fixed")?.ecdfMax.mean, 4)} (mean max-ECDF)`
      ),
    }, slightlyWorseJudgement(result)),
    ...[downscalingVerdict(result)].filter((row) => row !== null),
    verdict(
      {
        quantity:
          "SDR application (n = 1601): Lipschitz 2.62, 2.61, 2.50, 2.50; ε 5.24, 5.22, 5, " +
          "5, 5; max-ECDF, avg-ECDF, mean, median, 15th and 90th percentiles",
        paper: "the slides' table",
        ours: "–",
      },
      Judge.differs(
        "not reproduced: the slides' SDR sample (mathematics and statistics faculty, 2017 public " +
          "use file) is not in this repository; study 3 is the slides' simulation only",
      ),
    ),
  ];
}
