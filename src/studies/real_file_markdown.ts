/**
 * The markdown report of the real public-use file run (`docs/studies/real_file.md`): what was
 * done and the data's source and licence, then the releases, the utility measures, the utility
 * models, the survey table side by side, and findings worded from the numbers.
 *
 * @module
 */
import type { ModelUtility, UtilityReport } from "../synthesis/utility_report.ts";
import { fmt, markdownTable } from "./markdown.ts";
import {
  type ArmFailure,
  type ArmResult,
  LEVELS,
  OUTCOME_MODELS,
  OUTCOMES,
  PUBLIC,
  type RealFileResult,
  released,
  UTILITY_MODELS,
} from "./real_file.ts";

/** The result with its released arms apart from those that failed to reach their ε. */
type View = Omit<RealFileResult, "arms"> & {
  readonly arms: readonly ArmResult[];
  readonly failures: readonly ArmFailure[];
};

/** What R's `survey` gave on the same file (`test/reference/nhanes_tables_expected.json`). */
export interface RReference {
  /** The largest relative difference of any cell's count, mean or SE from R's. */
  readonly maxRelativeDifference: number;
  /** The range over cells of R's two-stage (PSU-clustered) SE over the stratified-only SE. */
  readonly clusteredMeanSERatio: readonly [number, number];
  readonly clusteredCountSERatio: readonly [number, number];
  /** The survey package's version. */
  readonly survey: string;
}

const sci = (v: number | null | undefined) =>
  v === null || v === undefined ? "–" : v.toExponential(2);

function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const h = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2;
}

/** The TVD (mean over m, and its range over the datasets) of a synthesised variable. */
function variableTvd(report: UtilityReport, name: string) {
  const variable = report.variables.find((v) => v.name === name);
  return variable?.kind === "categorical" ? variable.tvd : undefined;
}

function twoWayTvd(report: UtilityReport, a: string, b: string) {
  return report.twoWay.find((t) => t.variables[0] === a && t.variables[1] === b)?.tvd;
}

function tvdCell(tvd: { mean: number; byDataset: readonly number[] } | undefined): string {
  if (tvd === undefined) return "–";
  return `${fmt(tvd.mean, 4)} (${fmt(Math.min(...tvd.byDataset), 4)}–${
    fmt(Math.max(...tvd.byDataset), 4)
  })`;
}

/** The pairs of the two-way tables, in the report's order. */
function pairs(result: View): [string, string][] {
  const full = result.arms.find((arm) => arm.kind !== "histogram")!;
  return full.utility.twoWay.map((t) => [t.variables[0], t.variables[1]]);
}

function modelOf(report: UtilityReport, formula: string): ModelUtility | undefined {
  return report.models.find((model) => model.formula === formula);
}

/** Mean CI overlap and mean standardised difference of a model's coefficients. */
function modelSummary(model: ModelUtility | undefined): { overlap: number; diff: number } | null {
  if (model === undefined || !("coefficients" in model)) return null;
  const overlaps = model.coefficients.map((c) => c.overlap).filter((v) => v !== null);
  const diffs = model.coefficients.map((c) => c.standardizedDifference).filter((v) => v !== null);
  return { overlap: mean(overlaps), diff: mean(diffs) };
}

function releasesTable(result: View): string {
  const rows = result.arms.map((arm) => {
    const fit = arm.finalFit;
    const warm = arm.fits.filter((f) => f.warmStart).length;
    return [
      arm.label,
      arm.outcomes.join(", "),
      arm.targetEpsilon === null ? "–" : String(arm.targetEpsilon),
      `${fmt(arm.epsilon, 2)} (${arm.guarantee})`,
      fmt(arm.lipschitz, 3),
      fmt(arm.unweightedLipschitz, 3),
      fmt(arm.g, 3),
      fmt(arm.k, 3),
      fmt(arm.alphaMean, 3),
      arm.kind === "histogram" ? "0" : `${arm.fits.length} (${warm} warm)`,
      fit === null
        ? "–"
        : `${fmt(fit.rhatMax, 3)} / ${fmt(fit.essBulkMin, 0)} / ${fit.divergences}`,
      fit === null ? "–" : fit.flagged ? "yes" : "no",
    ];
  });
  for (const failure of result.failures) {
    rows.push([
      failure.label,
      failure.kind === "histogram" ? "hi_chol" : OUTCOMES.join(", "),
      String(failure.targetEpsilon),
      `not released: ${failure.error}`,
      ...Array<string>(8).fill("–"),
    ]);
  }
  return markdownTable(
    [
      "synthesizer",
      "outcomes",
      "target ε",
      "achieved ε",
      "Δ_{α,x}",
      "Δ unweighted",
      "g",
      "k",
      "mean α",
      "fits",
      "final fit R̂ max / bulk ESS min / divergences",
      "flagged",
    ],
    rows,
  );
}

function alphaTable(result: View): string {
  const weighted = result.arms.filter((arm) => arm.alphaByLevel !== null);
  const columns = (["hi_chol", "race"] as const).flatMap((name) =>
    LEVELS[name].map((level) => [name, level] as const)
  );
  return markdownTable(
    ["synthesizer", "mean α", ...columns.map(([name, level]) => `${name} = ${level}`)],
    weighted.map((arm) => [
      arm.label,
      fmt(arm.alphaMean, 3),
      ...columns.map(([name, level]) => fmt(arm.alphaByLevel?.[name]?.[level], 3)),
    ]),
  );
}

function tvdTable(result: View): string {
  const twoWays = pairs(result);
  const rows = result.arms.map((arm) => [
    arm.label,
    tvdCell(variableTvd(arm.utility, "race")),
    tvdCell(variableTvd(arm.utility, "hi_chol")),
    ...twoWays.map(([a, b]) => tvdCell(twoWayTvd(arm.utility, a, b))),
  ]);
  return markdownTable(
    ["synthesizer", "race", "hi_chol", ...twoWays.map(([a, b]) => `${a} × ${b}`)],
    rows,
  );
}

function propensityTable(result: View): string {
  const range = (values: readonly number[]) =>
    `${fmt(Math.min(...values), 2)}–${fmt(Math.max(...values), 2)}`;
  const rows = result.arms.map((arm) => {
    const full = arm.kind === "histogram" ? undefined : arm.utility.propensity;
    const small = arm.hiChol.propensity;
    return [
      arm.label,
      full === undefined ? "–" : sci(full.mean.pMSE),
      full === undefined
        ? "–"
        : `${fmt(full.mean.ratio, 2)} (${range(full.byDataset.map((d) => d.ratio))})`,
      sci(small.mean.pMSE),
      `${fmt(small.mean.ratio, 2)} (${range(small.byDataset.map((d) => d.ratio))})`,
    ];
  });
  const fullModel = result.arms.find((arm) => arm.kind !== "histogram")!.utility.propensity.model;
  const smallModel = result.arms[0].hiChol.propensity.model;
  return markdownTable(
    [
      "synthesizer",
      `pMSE, \`${fullModel}\``,
      "S_pMSE (range over m)",
      `pMSE, \`${smallModel}\``,
      "S_pMSE (range over m)",
    ],
    rows,
  );
}

function modelTable(formula: string, arms: readonly ArmResult[]): string {
  const models = arms.map((arm) => modelOf(arm.utility, formula) ?? modelOf(arm.hiChol, formula));
  // The confidential fit is the same in every arm; an arm whose synthetic fit failed has none.
  const fitted = models.find((model) => model !== undefined && "coefficients" in model);
  const failures = arms.flatMap((arm, j) => {
    const model = models[j];
    return model !== undefined && "error" in model ? [`${arm.label}: ${model.error}`] : [];
  });
  const failed = failures.length === 0
    ? ""
    : `\n\nFits that failed (no combined estimate for that synthesizer): ${failures.join("; ")}.`;
  if (fitted === undefined || !("coefficients" in fitted)) {
    return `No synthesizer's fits of \`${formula}\` succeeded.${failed}`;
  }
  const cell = (model: ModelUtility | undefined, name: string) => {
    if (model === undefined) return "–";
    if (!("coefficients" in model)) return "fit failed";
    const c = model.coefficients.find((c) => c.name === name);
    return c === undefined
      ? "–"
      : `${fmt(c.synthetic.estimate, 2)}; ${fmt(c.overlap, 2)} / ${
        fmt(c.standardizedDifference, 2)
      }`;
  };
  const rows = fitted.coefficients.map((c) => [
    `\`${c.name}\``,
    `${fmt(c.confidential.estimate, 2)} [${fmt(c.confidential.lower, 2)}, ${
      fmt(c.confidential.upper, 2)
    }]`,
    ...models.map((model) => cell(model, c.name)),
  ]);
  rows.push([
    "mean over coefficients",
    "",
    ...models.map((model) => {
      const s = modelSummary(model);
      return s === null ? "–" : `${fmt(s.overlap, 2)} / ${fmt(s.diff, 2)}`;
    }),
  ]);
  return markdownTable(
    ["coefficient", "confidential [95% CI]", ...arms.map((arm) => arm.label)],
    rows,
  ) + failed;
}

const pct = (v: number, digits = 1) => fmt(100 * v, digits);

function countsTable(result: View): string {
  const t = result.confidentialTable;
  const rows = t.count.map((count, r) => [
    t.labels[0][r],
    t.labels[1][r],
    count.toFixed(0),
    t.countSE[r].toFixed(0),
    fmt(100 * t.countSE[r] / count, 2),
  ]);
  return markdownTable(["agecat", "gender", "weighted count N̂", "SE", "CV %"], rows);
}

/** The arms shown in the prevalence table: all but the histograms after the first. */
function shownInTable(result: View): ArmResult[] {
  const histograms = result.arms.filter((arm) => arm.kind === "histogram");
  return result.arms.filter((arm) => arm.kind !== "histogram" || arm === histograms[0]);
}

function prevalenceTable(result: View): string {
  const t = result.confidentialTable;
  const arms = shownInTable(result);
  const rows = t.mean.map((q, r) => [
    t.labels[0][r],
    t.labels[1][r],
    `${pct(q)} (${pct(t.meanSE[r], 2)})`,
    ...arms.map((arm) => {
      const s = arm.table;
      return `${pct(s.mean[r])} (${pct(s.meanSE[r], 2)}) [${pct(s.meanLower[r])}, ${
        pct(s.meanUpper[r])
      }]${s.meanCovers[r] ? "" : " ✗"}`;
    }),
  ]);
  return markdownTable(
    ["agecat", "gender", "confidential % (SE)", ...arms.map((arm) => `${arm.label}: q̄ (√T) [95%]`)],
    rows,
  );
}

function coverageTable(result: View): string {
  const t = result.confidentialTable;
  const rows = result.arms.map((arm) => {
    const s = arm.table;
    const covered = s.meanCovers.filter((c) => c).length;
    // Cells with a confidential SE of 0 (no case in the cell) have no ratio.
    const seRatio = s.meanSE.map((se, r) => se / t.meanSE[r]).filter(Number.isFinite);
    const zs = s.mean.map((q, r) => Math.abs(q - t.mean[r]) / t.meanSE[r])
      .filter(Number.isFinite);
    return [
      arm.label,
      `${covered} of ${s.meanCovers.length}`,
      fmt(median(seRatio), 2),
      fmt(median(zs), 2),
      fmt(Math.max(...zs), 2),
    ];
  });
  return markdownTable(
    [
      "synthesizer",
      "95% intervals covering the confidential estimate",
      "median √T / SE",
      "median |q̄ − q| / SE",
      "max |q̄ − q| / SE",
    ],
    rows,
  );
}

/** A measure per arm, for the findings. */
interface Measure {
  readonly name: string;
  /** Larger is worse (true) or better (false). */
  readonly worseUp: boolean;
  readonly value: (arm: ArmResult) => number | null;
  readonly digits: number;
  readonly scientific?: boolean;
}

function measures(result: View): Measure[] {
  const twoWays = pairs(result);
  const model = (arm: ArmResult) => modelSummary(modelOf(arm.utility, UTILITY_MODELS[0]));
  return [
    {
      name: "TVD of race",
      worseUp: true,
      value: (arm) => variableTvd(arm.utility, "race")?.mean ?? null,
      digits: 4,
    },
    {
      name: "TVD of hi_chol",
      worseUp: true,
      value: (arm) => variableTvd(arm.utility, "hi_chol")?.mean ?? null,
      digits: 4,
    },
    {
      name: "mean TVD of the two-way tables",
      worseUp: true,
      value: (arm) => {
        const tvds = twoWays.map(([a, b]) => twoWayTvd(arm.utility, a, b)?.mean);
        return tvds.every((v) => v !== undefined) ? mean(tvds as number[]) : null;
      },
      digits: 4,
    },
    {
      name: "S_pMSE",
      worseUp: true,
      value: (arm) => arm.kind === "histogram" ? null : arm.utility.propensity.mean.ratio,
      digits: 2,
    },
    {
      name: "mean CI overlap of the analysis model",
      worseUp: false,
      value: (arm) => model(arm)?.overlap ?? null,
      digits: 2,
    },
    {
      name: "mean standardised difference of the analysis model",
      worseUp: true,
      value: (arm) => model(arm)?.diff ?? null,
      digits: 2,
    },
  ];
}

/** A measure's values from the unweighted synthesizer down the ε of LW_final. */
interface Trend {
  readonly name: string;
  readonly text: string;
  /** How many times worse at the smallest ε than the unweighted synthesizer. */
  readonly factor: number;
}

function trends(result: View, lw: readonly ArmResult[], unweighted: ArmResult): Trend[] {
  const smallest = lw[lw.length - 1];
  return measures(result).flatMap((measure) => {
    const base = measure.value(unweighted);
    const values = lw.map((arm) => measure.value(arm));
    const worst = measure.value(smallest);
    if (base === null || worst === null || values.some((v) => v === null)) return [];
    return [{
      name: measure.name,
      text: `${measure.name} ${fmt(base, measure.digits)} (unweighted) → ${
        lw.map((arm, j) => `${fmt(values[j], measure.digits)} (ε = ${arm.targetEpsilon})`)
          .join(" → ")
      }`,
      factor: measure.worseUp ? worst / base : base / worst,
    }];
  });
}

function findings(result: View): string[] {
  const lines: string[] = [];
  const unweighted = result.arms.find((arm) => arm.kind === "unweighted")!;
  const lw = result.arms.filter((arm) => arm.kind === "lw-final")
    .sort((a, b) => b.targetEpsilon! - a.targetEpsilon!);
  const histograms = result.arms.filter((arm) => arm.kind === "histogram");
  const failed = result.failures.filter((arm) => arm.kind === "lw-final");
  const t = result.confidentialTable;
  const m = result.settings.m;

  // Privacy.
  const met = lw.filter((arm) => arm.epsilon <= arm.targetEpsilon! * (1 + 1e-12));
  lines.push(
    `- **Privacy.** LW_final reached ${met.length} of ${lw.length + failed.length} targets${
      lw.length === 0
        ? ""
        : ": " + lw.map((arm) =>
          `ε = ${fmt(arm.epsilon, 2)} for the target ${arm.targetEpsilon} (Δ = ${
            fmt(arm.lipschitz, 3)
          }, mean α = ${fmt(arm.alphaMean, 3)})`
        ).join("; ")
    }${
      failed.length === 0
        ? ""
        : `; not released: ${failed.map((arm) => `ε = ${arm.targetEpsilon}`).join(", ")}`
    }. LW_final stays below its target because re-weighting (k < 1) lowers Δ after the ` +
      `calibration. The unweighted synthesizer's Δ = ${fmt(unweighted.lipschitz, 3)} would ` +
      `give ε = ${fmt(unweighted.epsilon, 1)} for m = ${m}, but it is not calibrated: its Δ is ` +
      "read off the confidential data, so it is no guarantee; it is the utility ceiling only.",
  );
  if (lw.length === 0) return lines;
  const smallest = lw[lw.length - 1];

  // Utility against ε.
  const all = trends(result, lw, unweighted);
  if (all.length > 0) {
    const worst = all.reduce((a, b) => (b.factor > a.factor ? b : a));
    const mildest = all.reduce((a, b) => (b.factor < a.factor ? b : a));
    lines.push(
      `- **Utility against ε.** ${all.map((p) => p.text).join("; ")}. Against the unweighted ` +
        `synthesizer at ε = ${smallest.targetEpsilon}, the ${worst.name} degrades most (×${
          fmt(worst.factor, 1)
        }${
          worst.name.includes("overlap") ? ", as the inverse ratio of overlaps" : ""
        }) and the ${mildest.name} least (×${
          fmt(mildest.factor, 1)
        }). With m = ${m} datasets per synthesis each row is ` +
        "one run: the ranges over the m datasets in the tables above show how large the " +
        "synthesis noise is, and a step between ε values smaller than that range is not a trend.",
    );
  }

  // Whom the weights down-weight, and what that does to the prevalence.
  const total = 0; // the grand-total row
  const alphaOf = (arm: ArmResult, name: string, level: string) =>
    fmt(arm.alphaByLevel?.[name]?.[level], 2);
  lines.push(
    "- **What the weights do.** LW gives a record a weight that falls with its Lipschitz " +
      "value (its largest |log likelihood| over the draws); the table of mean α by level above " +
      `shows which records that hits. At ε = ${smallest.targetEpsilon} the mean α is ${
        alphaOf(smallest, "hi_chol", "0")
      } for hi_chol = 0 and ${alphaOf(smallest, "hi_chol", "1")} for hi_chol = 1. ${
        (smallest.alphaByLevel?.hi_chol["1"] ?? 1) < (smallest.alphaByLevel?.hi_chol["0"] ?? 1)
          ? "A weighted likelihood that counts the cases less than the non-cases pulls the " +
            "fitted prevalence down, and the synthetic records are drawn from it"
          : "The cases are not down-weighted more than the non-cases"
      }: the overall hi_chol prevalence is ` +
      `${pct(t.mean[total])}% in the confidential data, ${pct(unweighted.table.mean[total])}% ` +
      `from the unweighted synthesizer and ${
        lw.map((arm) => `${pct(arm.table.mean[total])}% at ε = ${arm.targetEpsilon}`).join(", ")
      } from LW_final.`,
  );

  // The histogram.
  if (histograms.length > 0) {
    const h = histograms[0];
    const tvd = (arm: ArmResult, a: string, b?: string) =>
      b === undefined ? variableTvd(arm.utility, a)?.mean : twoWayTvd(arm.utility, a, b)?.mean;
    const hModel = modelSummary(modelOf(h.utility, UTILITY_MODELS[1]));
    const lwModel = modelSummary(modelOf(smallest.hiChol, UTILITY_MODELS[1]));
    lines.push(
      `- **The perturbed histogram** of hi_chol (ε = ${
        histograms.map((arm) => arm.targetEpsilon).join(", ")
      }) adds Laplace noise of scale 1/ε to two counts of ${result.records.used} records, which ` +
        `is negligible: its marginal TVD is ${fmt(tvd(h, "hi_chol"), 4)} at ε = ` +
        `${h.targetEpsilon} (LW_final ${fmt(tvd(smallest, "hi_chol"), 4)}, unweighted ${
          fmt(tvd(unweighted, "hi_chol"), 4)
        }). But it draws hi_chol independently of agecat and gender: the agecat × hi_chol TVD is ` +
        `${fmt(tvd(h, "agecat", "hi_chol"), 4)} (LW_final at ε = ${smallest.targetEpsilon} ${
          fmt(tvd(smallest, "agecat", "hi_chol"), 4)
        }, unweighted ${fmt(tvd(unweighted, "agecat", "hi_chol"), 4)}), S_pMSE on (agecat, ` +
        `gender, hi_chol) ${fmt(h.hiChol.propensity.mean.ratio, 1)} (LW_final ${
          fmt(smallest.hiChol.propensity.mean.ratio, 1)
        }, unweighted ${fmt(unweighted.hiChol.propensity.mean.ratio, 1)}), and the mean CI ` +
        `overlap of \`${UTILITY_MODELS[1]}\` is ${
          hModel === null ? "not defined (a fit failed)" : fmt(hModel.overlap, 2)
        } (LW_final ${
          lwModel === null ? "not defined (a fit failed)" : fmt(lwModel.overlap, 2)
        }). ` +
        "It cannot release race with hi_chol: the mechanism takes one variable.",
    );
  }

  // The survey table.
  const coverage = (arm: ArmResult) => arm.table.meanCovers.filter((c) => c).length;
  const row = (a: string, g: string) =>
    t.labels[0].findIndex((label, r) => label === a && t.labels[1][r] === g);
  const men = row("60+", "male");
  const women = row("60+", "female");
  lines.push(
    `- **The survey table.** Of the ${t.mean.length} prevalence cells, the combined 95% ` +
      `intervals cover the confidential estimate in ${coverage(unweighted)} (unweighted), ${
        lw.map((arm) => `${coverage(arm)} (LW_final ε = ${arm.targetEpsilon})`).join(", ")
      }${
        histograms.map((arm) => `, ${coverage(arm)} (histogram ε = ${arm.targetEpsilon})`).join("")
      }. The weighted counts are the same in every synthetic dataset as in the confidential ` +
      "data (agecat, gender and the weights are public and unsynthesised), so only the " +
      "prevalences carry synthesis error. A partially synthetic interval is centred on the " +
      "synthesizer's estimate, not on the confidential one, so it misses a cell where the model " +
      "is wrong as well as by chance: the logistic model has main effects only, while the " +
      `confidential prevalence among those 60+ is ${pct(t.mean[men])}% for men and ` +
      `${pct(t.mean[women])}% for women (an age × gender interaction the model cannot carry).`,
  );

  // MCMC.
  const fitted = result.arms.filter((arm) => arm.finalFit !== null);
  const flagged = fitted.filter((arm) => arm.finalFit!.flagged);
  const failures = [
    ...new Set(fitted.map((arm) => arm.finalFit!.preconditionFailure).filter((f) => f !== null)),
  ];
  lines.push(
    `- **MCMC.** ${flagged.length} of ${fitted.length} final fits are flagged (R̂ > 1.01, bulk ` +
      `ESS < 400 or a divergence): ${
        fitted.map((arm) =>
          `${arm.label} ${arm.finalFit!.divergences} divergences, R̂ max ${
            fmt(arm.finalFit!.rhatMax, 3)
          }, bulk ESS min ${fmt(arm.finalFit!.essBulkMin, 0)}`
        ).join("; ")
      }. ${
        failures.length === 0 ? "" : `The preconditioner was not used (${failures.join("; ")}). `
      }A flagged final fit stops a release (docs/decisions.md): Δ is a maximum over the ` +
      "draws, so a sampler that misses part of the posterior can understate it; this study lets " +
      "one through (`allowFlagged`, research) so that it is reported, not lost. The pipeline " +
      "keeps the diagnostics of the final fit only, not those of the calibration and " +
      "re-weighting refits; a refit warm-starts only after a fit without divergences and when " +
      "its own short warmup shows none, " +
      `so here ${
        lw.map((arm) =>
          `${
            arm.fits.filter((f) => f.warmStart).length
          } of ${arm.fits.length} (ε = ${arm.targetEpsilon})`
        ).join(", ")
      } fits started warm.`,
  );
  return lines;
}

/**
 * The report.
 *
 * @param result The run's result.
 * @param footer Machine-dependent lines (wall times).
 * @param reference R's table on the same file, when the run used the whole file.
 */
export function realFileMarkdown(
  all: RealFileResult,
  footer: string,
  reference?: RReference,
): string {
  const result: View = {
    ...all,
    arms: all.arms.filter(released),
    failures: all.arms.filter((arm): arm is ArmFailure => !released(arm)),
  };
  const s = result.settings;
  const lw = result.arms.filter((arm) => arm.kind === "lw-final");
  const histograms = result.arms.filter((arm) => arm.kind === "histogram");
  const subsample = s.every === 1 ? "" : ` (every ${s.every}th record of the file: a reduced run)`;
  const lines = [
    "# A real public-use file end to end: NHANES 2009–2010",
    "",
    "Issue 15; SPEC §7, §8 and §10. This document and `real_file.json` are the output of one " +
    "command, `deno task real-file`, with fixed seeds.",
    "",
    `**What was done.** The confidential outcomes ${
      OUTCOMES.map((y, j) => `${y} (${OUTCOME_MODELS[j]})`).join(" then ")
    } were synthesised given the public covariates ${PUBLIC.join(" and ")}, as the chain ` +
    "p(race | agecat, gender)·p(hi_chol | agecat, gender, race) under one record-level guarantee " +
    `(\`deno task synth --y race,hi_chol --model categorical,logistic --x agecat,gender ` +
    `--missing drop\`), by LW_final calibrated to ε = ${
      lw.map((arm) => arm.targetEpsilon).join(", ")
    } and by the unweighted (non-private) synthesizer as the utility ceiling, m = ${s.m} ` +
    `synthetic datasets each. The perturbed histogram of hi_chol alone (ε = ${
      histograms.map((arm) => arm.targetEpsilon).join(", ")
    }) is the one-variable baseline. Each synthesis's utility comes from its own utility report ` +
    "(`src/synthesis/utility_report.ts`); the weighted survey table of hi_chol by agecat × gender " +
    "comes from `src/survey/tables.ts` on the confidential records and on each synthetic dataset, " +
    "combined by the partial-synthesis rules (`src/survey/combine.ts`).",
    "",
    `**Data.** \`${s.data}\`${subsample}: ${result.records.file} examined persons of the US ` +
    "National Health and Nutrition Examination Survey (NHANES) 2009–2010, as extracted in R's " +
    '`survey` package (4.1.1) dataset `nhanes` ("Data extracted from NHANES 2009-2010 on high ' +
    'cholesterol") and exported by `test/reference/nhanes_export.R`. Source: US National Center ' +
    "for Health Statistics (CDC/NCHS). **Licence**: NHANES public-use files are works of the US " +
    "government and in the public domain (the `survey` package that ships this extract is " +
    "GPL-2 | GPL-3). Columns: agecat (0-19, 20-39, 40-59, 60+), gender, race (hispanic, white " +
    "[non-Hispanic], black [non-Hispanic], other), hi_chol (total cholesterol ≥ 240 mg/dL, 0/1), " +
    "weight (WTMEC2YR, the examination weight), stratum (SDMVSTRA, 15 masked variance strata), psu " +
    `(SDMVPSU, 2 per stratum). ${result.records.dropped} records miss hi_chol; \`--missing drop\` ` +
    `removes them, leaving n = ${result.records.used}.`,
    "",
    "**Settings.** Declared (public) level sets: race " +
    `${LEVELS.race.join(", ")}; hi_chol ${LEVELS.hi_chol.join(", ")}. The default coefficient ` +
    "prior (`student-t`: β ~ Student-t(3, 0, 2.5), `src/models/glm_prior.ts`). NUTS, " +
    `${s.chains} chains × ` +
    `(${s.warmup} warmup + ${s.draws / s.chains} draws) per fit (a refit within a mechanism ` +
    `starts warm unless the fit before it diverged), CPU Lipschitz backend, seed ${s.seed} for every synthesis. LW_final is LW ` +
    "calibrated to ε (shift g) and then re-weighted (Algorithm 3, k = 0.95^j). The histogram has " +
    "one bin per declared level of hi_chol (0 and 1) on the codes, which is the 2-bin histogram " +
    "with public bounds [0, 1]: for a binary outcome the mechanism takes its bins from the " +
    "declared levels (`--lower`, `--upper` and `--bins` are not used) and draws level codes, so " +
    "its synthetic hi_chol is 0/1. It releases hi_chol only: agecat and gender are kept, race is " +
    "not in its datasets. The utility models' reference levels are the first in order of " +
    "appearance for the public covariates (agecat 20-39, gender male) and the first declared " +
    "level for race (hispanic).",
    "",
    "## Releases",
    "",
    releasesTable(result),
    "",
    "Achieved ε is the release manifest's: 2·Δ·m for the pseudo posterior (aDP), ε for the " +
    "histogram (DP). Fits: every fit the mechanism ran, the unweighted one first.",
    "",
    "Mean final weight α_i over the records of each confidential level:",
    "",
    alphaTable(result),
    "",
    "## Utility per variable: total variation distance",
    "",
    "½Σ|p − p*| between the confidential and each synthetic table, mean over the m datasets " +
    "(range over them in brackets); two-way tables of every pair with a synthesised variable.",
    "",
    tvdTable(result),
    "",
    "## Propensity score: pMSE and S_pMSE",
    "",
    "Snoke et al. (2018): a logistic regression of t (1 = synthetic) on the main effects over the " +
    "stacked confidential and synthetic records; S_pMSE = pMSE / its null expectation (about 1 " +
    "when the model cannot tell them apart). The second pair uses (agecat, gender, hi_chol) " +
    "only, the variables every synthesizer releases, so that the histogram can be compared.",
    "",
    propensityTable(result),
    "",
    `## Utility model \`${UTILITY_MODELS[0]}\``,
    "",
    "Logistic regression on the confidential data (Wald 95% interval) and on each synthetic " +
    "dataset, combined over m by the partial-synthesis rules. Cells: combined estimate; CI " +
    "overlap I (1 = identical intervals, < 0 disjoint) / standardised difference |β̄ − β|/SE.",
    "",
    modelTable(UTILITY_MODELS[0], result.arms.filter((arm) => arm.kind !== "histogram")),
    "",
    `## Utility model \`${UTILITY_MODELS[1]}\` (every synthesizer)`,
    "",
    modelTable(UTILITY_MODELS[1], result.arms),
    "",
    "## Survey table: hi_chol by agecat × gender, confidential vs synthetic",
    "",
    "Design: stratified one-stage, with replacement, strata = stratum (SDMVSTRA), weights = " +
    "weight (WTMEC2YR), Taylor-linearised SEs, domains by zeroing (SPEC §8; R's " +
    "`svydesign(ids = ~1, strata = ~stratum, weights = ~weight)`). NHANES is a two-stage " +
    "clustered design (PSUs within strata); this table ignores the PSU clustering (ids = ~1), so " +
    "its SEs are the stratified-only ones" +
    (reference === undefined
      ? "."
      : `: with the PSUs (\`ids = ~psu, nest = TRUE\`) R's SEs are ${
        fmt(reference.clusteredMeanSERatio[0], 2)
      }–${fmt(reference.clusteredMeanSERatio[1], 2)}× these for the prevalences and ${
        fmt(reference.clusteredCountSERatio[0], 2)
      }–${fmt(reference.clusteredCountSERatio[1], 2)}× for the counts. The confidential table ` +
        `agrees with R's \`survey\` ${reference.survey} on this file to a relative ${
          sci(reference.maxRelativeDifference)
        } in every count, mean and SE (\`test/reference/nhanes_tables.R\`).`) +
    " The design columns are public and unsynthesised: each synthetic record gets the weight and " +
    "stratum of the confidential record in its row (partial synthesis keeps the records in " +
    "order; the run checks that the synthetic datasets have the used records' count and the same " +
    "agecat and gender in every row, so the records `--missing drop` removed are removed from " +
    "the design columns too). The m synthetic tables are combined by the partial-synthesis " +
    "rules: q̄, T = b/m + ū, t_ν interval.",
    "",
    "### Weighted counts (identical in the confidential and every synthetic dataset)",
    "",
    countsTable(result),
    "",
    "### hi_chol prevalence (%), confidential vs synthetic",
    "",
    `Confidential: estimate (SE). Synthetic: q̄ (√T) [95% interval]; ✗ marks an interval that ` +
    `misses the confidential estimate.${
      histograms.length > 1
        ? ` The histogram at ε = ${
          histograms.slice(1).map((arm) => arm.targetEpsilon).join(" and ")
        } is in the JSON and the summary below.`
        : ""
    }`,
    "",
    prevalenceTable(result),
    "",
    coverageTable(result),
    "",
    "## Findings",
    "",
    ...findings(result),
  ];
  return [...lines, "", footer, ""].join("\n");
}
