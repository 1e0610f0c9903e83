/**
 * The real-file study's report as data (`templates/real_file.md` holds its prose): the tables
 * (releases, weights, TVDs, propensity, the utility models, the survey table's counts, prevalences
 * and coverage), the run's sizes and settings, data-decided clauses, and the findings'
 * values (`real_file_findings.ts`). It has no verdicts: the study compares synthesizers on one real file, not
 * with a paper's numbers.
 *
 * @module
 */
import {
  findings,
  median,
  modelOf,
  modelSummary,
  pairs,
  pct,
  sci,
  twoWayTvd,
  variableTvd,
  type View,
} from "./real_file_findings.ts";
import {
  type ArmFailure,
  type ArmResult,
  LEVELS,
  OUTCOMES,
  type RealFileRecord,
  type RealFileSettings,
  type RealFileSummary,
  released,
  UTILITY_MODELS,
} from "./real_file_settings.ts";
import { cat, num, type Report, type ReportTable, text, type Value } from "./study_document.ts";
import type { StudyResult } from "./study.ts";
import type { ModelUtility } from "../synthesis/utility_report.ts";

/** The failed-fits sentence under a utility model's table ("" when none failed). */
function failedFits(failures: readonly string[]): string {
  return failures.length === 0
    ? ""
    : `\n\nFits that failed (no combined estimate for that synthesizer): ${failures.join("; ")}.`;
}

/**
 * The report of the study's one record.
 *
 * @param result The result (its settings, seed and one record).
 * @returns The document: values, tables, no figures and no verdicts.
 */
export function realFileDocument(
  result: StudyResult<RealFileSettings, RealFileRecord, RealFileSummary>,
): Report {
  const record = result.records[0];
  const s = result.settings;
  const view: View = {
    ...record,
    settings: s,
    arms: record.arms.filter(released),
    failures: record.arms.filter((arm): arm is ArmFailure => !released(arm)),
  };
  const epsilons = (kind: string) =>
    view.arms.filter((arm) => arm.kind === kind).map((arm) => arm.targetEpsilon);
  const histograms = epsilons("histogram");
  const full = modelTable(UTILITY_MODELS[0], view.arms.filter((arm) => arm.kind !== "histogram"));
  const small = modelTable(UTILITY_MODELS[1], view.arms);
  const ref = record.reference;
  return {
    verdicts: [],
    values: {
      lw_epsilons: epsilons("lw-final").join(", "),
      m: num.plain(s.m),
      histogram_epsilons: histograms.join(", "),
      data: s.data,
      subsample: s.every === 1 ? "" : ` (every ${s.every}th record of the file: a reduced run)`,
      n_file: num.plain(record.n.file),
      n_dropped: num.plain(record.n.dropped),
      n_used: num.plain(record.n.used),
      chains: num.plain(s.chains),
      warmup: num.plain(s.warmup),
      draws_per_chain: num.plain(s.draws / s.chains),
      seed: num.plain(result.seed),
      model_full_failures: failedFits(full.failures),
      model_small_failures: failedFits(small.failures),
      psu_reference: ref === null ? "." : cat(
        text`: with the PSUs (\`ids = ~psu, nest = TRUE\`) R's SEs are ${
          num.fixed(ref.clusteredMeanSERatio[0], 2)
        }–${num.fixed(ref.clusteredMeanSERatio[1], 2)}× these for the prevalences and ${
          num.fixed(ref.clusteredCountSERatio[0], 2)
        }–${num.fixed(ref.clusteredCountSERatio[1], 2)}× for the counts. The confidential table `,
        text`agrees with R's \`survey\` ${ref.survey} on this file to a relative ${
          sci(ref.maxRelativeDifference)
        } in every count, mean and SE (\`test/reference/nhanes_tables.R\`).`,
      ),
      histograms_elsewhere: histograms.length > 1
        ? ` The histogram at ε = ${histograms.slice(1).join(" and ")} is in the JSON and the ` +
          "summary below."
        : "",
      ...findings(view),
    },
    tables: {
      releases: releasesTable(view),
      alpha: alphaTable(view),
      tvd: tvdTable(view),
      propensity: propensityTable(view),
      model_full: full.table,
      model_small: small.table,
      counts: countsTable(view),
      prevalence: prevalenceTable(view),
      coverage: coverageTable(view),
    },
    figures: {},
  };
}

function tvdCell(tvd: { mean: number; byDataset: readonly number[] } | undefined): Value {
  if (tvd === undefined) return "–";
  return text`${num.fixed(tvd.mean, 4)} (${num.fixed(Math.min(...tvd.byDataset), 4)}–${
    num.fixed(Math.max(...tvd.byDataset), 4)
  })`;
}

export function releasesTable(view: View): ReportTable {
  const rows = view.arms.map((arm) => {
    const fit = arm.finalFit;
    const warm = arm.fits.filter((f) => f.warmStart).length;
    return [
      arm.label,
      arm.outcomes.join(", "),
      num.plain(arm.targetEpsilon),
      text`${num.fixed(arm.epsilon, 2)} (${arm.guarantee})`,
      num.fixed(arm.lipschitz, 3),
      num.fixed(arm.unweightedLipschitz, 3),
      num.fixed(arm.g, 3),
      num.fixed(arm.k, 3),
      num.fixed(arm.alphaMean, 3),
      arm.kind === "histogram" ? "0" : `${arm.fits.length} (${warm} warm)`,
      fit === null
        ? "–"
        : text`${num.fixed(fit.rhatMax, 3)} / ${num.fixed(fit.essBulkMin, 0)} / ${fit.divergences}`,
      fit === null ? "–" : fit.flagged ? "yes" : "no",
    ];
  });
  for (const failure of view.failures) {
    rows.push([
      failure.label,
      failure.kind === "histogram" ? "hi_chol" : OUTCOMES.join(", "),
      num.plain(failure.targetEpsilon),
      `not released: ${failure.error}`,
      ...Array<string>(8).fill("–"),
    ]);
  }
  const header = ["synthesizer", "outcomes", "target ε", "achieved ε", "Δ_{α,x}"];
  header.push("Δ unweighted", "g", "k", "mean α", "fits");
  header.push("final fit R̂ max / bulk ESS min / divergences", "flagged");
  return { header, rows };
}

export function alphaTable(view: View): ReportTable {
  const weighted = view.arms.filter((arm) => arm.alphaByLevel !== null);
  const columns = (["hi_chol", "race"] as const).flatMap((name) =>
    LEVELS[name].map((level) => [name, level] as const)
  );
  return {
    header: ["synthesizer", "mean α", ...columns.map(([name, level]) => `${name} = ${level}`)],
    rows: weighted.map((arm) => [
      arm.label,
      num.fixed(arm.alphaMean, 3),
      ...columns.map(([name, level]) => num.fixed(arm.alphaByLevel?.[name]?.[level], 3)),
    ]),
  };
}

export function tvdTable(view: View): ReportTable {
  const twoWays = pairs(view);
  return {
    header: ["synthesizer", "race", "hi_chol", ...twoWays.map(([a, b]) => `${a} × ${b}`)],
    rows: view.arms.map((arm) => [
      arm.label,
      tvdCell(variableTvd(arm.utility, "race")),
      tvdCell(variableTvd(arm.utility, "hi_chol")),
      ...twoWays.map(([a, b]) => tvdCell(twoWayTvd(arm.utility, a, b))),
    ]),
  };
}

export function propensityTable(view: View): ReportTable {
  const range = (values: readonly number[]) =>
    text`${num.fixed(Math.min(...values), 2)}–${num.fixed(Math.max(...values), 2)}`;
  const rows = view.arms.map((arm) => {
    const full = arm.kind === "histogram" ? undefined : arm.utility.propensity;
    const small = arm.hiChol.propensity;
    return [
      arm.label,
      full === undefined ? "–" : sci(full.mean.pMSE),
      full === undefined
        ? "–"
        : text`${num.fixed(full.mean.ratio, 2)} (${range(full.byDataset.map((d) => d.ratio))})`,
      sci(small.mean.pMSE),
      text`${num.fixed(small.mean.ratio, 2)} (${range(small.byDataset.map((d) => d.ratio))})`,
    ];
  });
  const fullModel = view.arms.find((arm) => arm.kind !== "histogram")?.utility.propensity.model;
  const smallModel = view.arms[0]?.hiChol.propensity.model;
  return {
    header: [
      "synthesizer",
      `pMSE, \`${fullModel ?? "–"}\``,
      "S_pMSE (range over m)",
      `pMSE, \`${smallModel ?? "–"}\``,
      "S_pMSE (range over m)",
    ],
    rows,
  };
}

/**
 * A utility model's coefficients, confidential and per arm (an empty body when no arm's fits
 * succeeded), and the failed fits: "ARM: MESSAGE" each.
 */
export function modelTable(
  formula: string,
  arms: readonly ArmResult[],
): { table: ReportTable; failures: string[] } {
  const models = arms.map((arm) => modelOf(arm.utility, formula) ?? modelOf(arm.hiChol, formula));
  // The confidential fit is the same in every arm; an arm whose synthetic fit failed has none.
  const fitted = models.find((model) => model !== undefined && "coefficients" in model);
  const failures = arms.flatMap((arm, j) => {
    const model = models[j];
    return model !== undefined && "error" in model ? [`${arm.label}: ${model.error}`] : [];
  });
  const header = ["coefficient", "confidential [95% CI]", ...arms.map((arm) => arm.label)];
  if (fitted === undefined || !("coefficients" in fitted)) {
    return { table: { header, rows: [] }, failures };
  }
  const cell = (model: ModelUtility | undefined, name: string) => {
    if (model === undefined) return "–";
    if (!("coefficients" in model)) return "fit failed";
    const c = model.coefficients.find((c) => c.name === name);
    return c === undefined
      ? "–"
      : text`${num.fixed(c.synthetic.estimate, 2)}; ${num.fixed(c.overlap, 2)} / ${
        num.fixed(c.standardizedDifference, 2)
      }`;
  };
  const rows = fitted.coefficients.map((c) => [
    `\`${c.name}\``,
    text`${num.fixed(c.confidential.estimate, 2)} [${num.fixed(c.confidential.lower, 2)}, ${
      num.fixed(c.confidential.upper, 2)
    }]`,
    ...models.map((model) => cell(model, c.name)),
  ]);
  rows.push([
    "mean over coefficients",
    "",
    ...models.map((model) => {
      const s = modelSummary(model);
      return s === null ? "–" : text`${num.fixed(s.overlap, 2)} / ${num.fixed(s.diff, 2)}`;
    }),
  ]);
  return { table: { header, rows }, failures };
}

export function countsTable(view: View): ReportTable {
  const t = view.confidentialTable;
  return {
    header: ["agecat", "gender", "weighted count N̂", "SE", "CV %"],
    rows: t.count.map((count, r) => [
      t.labels[0][r],
      t.labels[1][r],
      num.fixed(count, 0),
      num.fixed(t.countSE[r], 0),
      num.fixed(100 * t.countSE[r] / count, 2),
    ]),
  };
}

/** The arms shown in the prevalence table: all but the histograms after the first. */
function shownInTable(view: View): ArmResult[] {
  const histograms = view.arms.filter((arm) => arm.kind === "histogram");
  return view.arms.filter((arm) => arm.kind !== "histogram" || arm === histograms[0]);
}

export function prevalenceTable(view: View): ReportTable {
  const t = view.confidentialTable;
  const arms = shownInTable(view);
  return {
    header: [
      "agecat",
      "gender",
      "confidential % (SE)",
      ...arms.map((arm) => `${arm.label}: q̄ (√T) [95%]`),
    ],
    rows: t.mean.map((q, r) => [
      t.labels[0][r],
      t.labels[1][r],
      text`${pct(q)} (${pct(t.meanSE[r], 2)})`,
      ...arms.map((arm) => {
        const s = arm.table;
        return text`${pct(s.mean[r])} (${pct(s.meanSE[r], 2)}) [${pct(s.meanLower[r])}, ${
          pct(s.meanUpper[r])
        }]${s.meanCovers[r] ? "" : " ✗"}`;
      }),
    ]),
  };
}

export function coverageTable(view: View): ReportTable {
  const t = view.confidentialTable;
  const rows = view.arms.map((arm) => {
    const s = arm.table;
    const covered = s.meanCovers.filter((c) => c).length;
    // Cells with a confidential SE of 0 (no case in the cell) have no ratio.
    const seRatio = s.meanSE.map((se, r) => se / t.meanSE[r]).filter(Number.isFinite);
    const zs = s.mean.map((q, r) => Math.abs(q - t.mean[r]) / t.meanSE[r])
      .filter(Number.isFinite);
    return [
      arm.label,
      `${covered} of ${s.meanCovers.length}`,
      num.fixed(median(seRatio), 2),
      num.fixed(median(zs), 2),
      num.fixed(Math.max(...zs), 2),
    ];
  });
  const header = ["synthesizer", "95% intervals covering the confidential estimate"];
  header.push("median √T / SE", "median |q̄ − q| / SE", "max |q̄ − q| / SE");
  return { header, rows };
}
