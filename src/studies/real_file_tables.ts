/**
 * The real-file study's tables as data (`real_file_document.ts` places them): the releases, the
 * weights by level, the utility measures, the utility models, and the survey table side by side.
 *
 * @module
 */
import type { ModelUtility } from "../synthesis/utility_report.ts";
import { fmt } from "./markdown.ts";
import {
  median,
  modelOf,
  modelSummary,
  pairs,
  pct,
  sci,
  twoWayTvd,
  variableTvd,
  type View,
} from "./real_file_measures.ts";
import { type ArmResult, LEVELS, OUTCOMES } from "./real_file_types.ts";
import type { Table } from "./study_document.ts";

function tvdCell(tvd: { mean: number; byDataset: readonly number[] } | undefined): string {
  if (tvd === undefined) return "–";
  return `${fmt(tvd.mean, 4)} (${fmt(Math.min(...tvd.byDataset), 4)}–${
    fmt(Math.max(...tvd.byDataset), 4)
  })`;
}

export function releasesTable(view: View): Table {
  const rows = view.arms.map((arm) => {
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
  for (const failure of view.failures) {
    rows.push([
      failure.label,
      failure.kind === "histogram" ? "hi_chol" : OUTCOMES.join(", "),
      String(failure.targetEpsilon),
      `not released: ${failure.error}`,
      ...Array<string>(8).fill("–"),
    ]);
  }
  const header = ["synthesizer", "outcomes", "target ε", "achieved ε", "Δ_{α,x}"];
  header.push("Δ unweighted", "g", "k", "mean α", "fits");
  header.push("final fit R̂ max / bulk ESS min / divergences", "flagged");
  return { header, rows };
}

export function alphaTable(view: View): Table {
  const weighted = view.arms.filter((arm) => arm.alphaByLevel !== null);
  const columns = (["hi_chol", "race"] as const).flatMap((name) =>
    LEVELS[name].map((level) => [name, level] as const)
  );
  return {
    header: ["synthesizer", "mean α", ...columns.map(([name, level]) => `${name} = ${level}`)],
    rows: weighted.map((arm) => [
      arm.label,
      fmt(arm.alphaMean, 3),
      ...columns.map(([name, level]) => fmt(arm.alphaByLevel?.[name]?.[level], 3)),
    ]),
  };
}

export function tvdTable(view: View): Table {
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

export function propensityTable(view: View): Table {
  const range = (values: readonly number[]) =>
    `${fmt(Math.min(...values), 2)}–${fmt(Math.max(...values), 2)}`;
  const rows = view.arms.map((arm) => {
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
): { table: Table; failures: string[] } {
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
  return { table: { header, rows }, failures };
}

export function countsTable(view: View): Table {
  const t = view.confidentialTable;
  return {
    header: ["agecat", "gender", "weighted count N̂", "SE", "CV %"],
    rows: t.count.map((count, r) => [
      t.labels[0][r],
      t.labels[1][r],
      fmt(count, 0),
      fmt(t.countSE[r], 0),
      fmt(100 * t.countSE[r] / count, 2),
    ]),
  };
}

/** The arms shown in the prevalence table: all but the histograms after the first. */
function shownInTable(view: View): ArmResult[] {
  const histograms = view.arms.filter((arm) => arm.kind === "histogram");
  return view.arms.filter((arm) => arm.kind !== "histogram" || arm === histograms[0]);
}

export function prevalenceTable(view: View): Table {
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
      `${pct(q)} (${pct(t.meanSE[r], 2)})`,
      ...arms.map((arm) => {
        const s = arm.table;
        return `${pct(s.mean[r])} (${pct(s.meanSE[r], 2)}) [${pct(s.meanLower[r])}, ${
          pct(s.meanUpper[r])
        }]${s.meanCovers[r] ? "" : " ✗"}`;
      }),
    ]),
  };
}

export function coverageTable(view: View): Table {
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
      fmt(median(seRatio), 2),
      fmt(median(zs), 2),
      fmt(Math.max(...zs), 2),
    ];
  });
  const header = ["synthesizer", "95% intervals covering the confidential estimate"];
  header.push("median √T / SE", "median |q̄ − q| / SE", "max |q̄ − q| / SE");
  return { header, rows };
}
