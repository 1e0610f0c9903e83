/**
 * The verdicts of the five-synthesizer study (Study 3) against the JSM censoring slides, on the
 * paired comparisons of `five_paired.ts`.
 *
 * @module
 */
import type { FiveRecord, FiveResult, FiveSummary } from "./five_result.ts";
import { FIVE_LABELS, FIVE_MECHANISMS, type FiveMechanism } from "./five_settings.ts";
import { downscalingVerdict } from "./five_downscaling.ts";
import { flip, type Lower, lowerBy, lowerText, tiesText } from "./five_paired.ts";
import { cellUnder, entryUnder, rankUnder, type Tuning } from "./five_tuning.ts";
import * as md from "./markdown.ts";
import { pairedDifference } from "../stats/paired_difference.ts";
import { isTie, Judge, type Judgement, type Verdict, verdict } from "./verdict.ts";

/**
 * Weighted-e's truncation per ε: the databases still above ε/2 after it (refused) and the
 * others' Δ range and zeroed records.
 */
export function truncationText(result: FiveResult): string {
  return result.summary.epsilons.map(({ epsilon, mechanisms }) => {
    const cell = mechanisms["weighted-e"];
    return cell === null || cell.lipschitz === null
      ? `ε = ${epsilon}: –`
      : `ε = ${epsilon}: ${result.replicates - cell.replicates} of ${result.replicates} ` +
        "databases still above ε/2 after the one truncation (refused by the cap: no release); " +
        `the others Δ ${md.fmt(cell.lipschitz.min, 3)}–${md.fmt(cell.lipschitz.max, 3)}, ` +
        `${md.fmt(cell.zeroWeightsMean, 1)} records zeroed on average`;
  }).join("; ");
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
function rankingJudgement(result: FiveResult): Judgement {
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
        return lower.length === 0 ? [] : [`ε = ${eps.epsilon}: ${lower.join(", ")}`];
      });
      return parts.length === 0 ? [] : [`under ${tuningText(tuning)}, ${parts.join("; ")}`];
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
    return ties.length === 0 ? Judge.agrees() : Judge.tie(ties.join("; "));
  }
  return Judge.differs(`${contradicted.join("; ")}${tiesText(ties)}`);
}

/**
 * The slides' "Weighted-e Produces Slightly Worse Utility" with both at the fixed rule, paired on
 * the databases both released: Weighted-e better by a real difference contradicts it. (With
 * calibrated weights Weighted-e is Weighted: calibration leaves nothing above ε/2 to truncate.)
 */
function slightlyWorseJudgement(result: FiveResult): Judgement {
  const compared = result.summary.epsilons.flatMap((eps, e) => {
    const d = lowerBy(result, e, "lw", "weighted-e", "ecdfMax", "fixed");
    return d === null ? [] : [{ epsilon: eps.epsilon, d }];
  });
  const text = (d: Lower) =>
    d.mean >= 0
      ? lowerText("lw", "weighted-e", d, "fixed")
      : lowerText("weighted-e", "lw", flip(d), "fixed");
  const better = compared.filter((c) => !c.d.tie && c.d.mean < 0);
  const tied = compared.filter((c) => c.d.tie).map((c) => `ε = ${c.epsilon}: ${text(c.d)}`);
  if (compared.length === 0) {
    return Judge.differs(
      "not comparable: Weighted and Weighted-e at the fixed rule released together on fewer " +
        "than two databases at every ε",
    );
  }
  if (better.length === 0) return tied.length === 0 ? Judge.agrees() : Judge.tie(tied.join("; "));
  return Judge.differs(
    `Weighted-e is better at ${better.map((c) => `ε = ${c.epsilon}: ${text(c.d)}`).join("; ")}` +
      `, both at the fixed rule, paired on the databases both released${tiesText(tied)}`,
  );
}

/**
 * The slides' "faster convergence" of Weighted-e onto ε/2 against Weighted, both at the fixed
 * rule: per database, whether each ends above ε/2 (refused by the cap; Weighted-e after its one
 * truncation), paired. Weighted-e above on fewer databases by a real difference agrees.
 */
function contractionJudgement(result: FiveResult): { ours: string; judgement: Judgement } {
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
  const z = (p: typeof per[number]) => `paired z = ${md.fmt(p.d!.z, 1)}`;
  const slower = per.filter((p) => !isTie(p.d!) && p.d!.mean < 0);
  const tied = per.filter((p) => isTie(p.d!));
  if (slower.length > 0) {
    return {
      ours,
      judgement: Judge.differs(
        `Weighted-e ends above ε/2 more often at ${
          slower.map((p) => `ε = ${p.epsilon} (${z(p)})`).join(", ")
        }`,
      ),
    };
  }
  return {
    ours,
    judgement: tied.length === 0 ? Judge.agrees() : Judge.tie(
      tied.map((p) => `ε = ${p.epsilon}: ${z(p)}`).join("; "),
    ),
  };
}

/**
 * The verdict rows: what the censoring slides print or state about the simulation (its results
 * are violin plots without printed values) and their SDR table.
 */
export function fiveVerdicts(result: FiveResult): Verdict[] {
  const { summary } = result;
  const per = (f: (e: FiveSummary["epsilons"][number]) => string) =>
    summary.epsilons.map((e) => `ε = ${e.epsilon}: ${f(e)}`).join("; ");
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
          `max ${md.fmt(e.mechanisms["censored-w"]?.lipschitz?.max, 3)} and ${
            md.fmt(e.mechanisms.censored?.lipschitz?.max, 3)
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
      ours: TUNINGS.map((tuning) =>
        `${tuningText(tuning)}: ${
          per((e) => rankUnder(e, tuning).map((m) => FIVE_LABELS[m]).join(" < "))
        }`
      ).join("; "),
    }, rankingJudgement(result)),
    verdict({
      quantity: 'Censoring slides: "Weighted-e Produces Slightly Worse Utility" than Weighted ' +
        "(a slide title; its figure shows the average of the mean parameter μ at n = 100, 400, " +
        "1600, 6400 over R = 100, not max-ECDF), both at the fixed rule c = ε/5, g = 0",
      paper: "slightly worse",
      ours: per((e) =>
        `Weighted-e ${md.fmt(cellUnder(e, "weighted-e", "fixed")?.ecdfMax.mean, 4)} vs Weighted ${
          md.fmt(cellUnder(e, "lw", "fixed")?.ecdfMax.mean, 4)
        } (mean max-ECDF)`
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
