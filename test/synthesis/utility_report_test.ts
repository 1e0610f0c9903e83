import assert from "node:assert/strict";
import type { OutputColumn } from "../../src/data/csv.ts";
import { quantile } from "../../src/stats/quantile.ts";
import { utilityOf } from "../../src/synthesis/utility.ts";
import {
  type ReportVariable,
  type UtilityReport,
  utilityReport,
} from "../../src/synthesis/utility_report.ts";
import { readUtilityReference, UTILITY_EXPECTED } from "./_utility_reference.ts";

interface RCoefficient {
  name: string;
  confidential: { estimate: number; se: number; lower: number; upper: number };
  synthetic: {
    estimate: number;
    between: number;
    within: number;
    se: number;
    df: number | string;
    lower: number;
    upper: number;
  };
  overlap: number;
  standardizedDifference: number;
}
const expected = JSON.parse(await Deno.readTextFile(UTILITY_EXPECTED)) as {
  levels: { region: string[]; B: string[]; D: string[] };
  pmse: { pMSE: number; k: number; N: number; c: number; expected: number; ratio: number }[];
  models: { formula: string; family: string; coefficients: RCoefficient[] }[];
};

/** The reference CSV split by its `dataset` column: 0 confidential, 1..m synthetic. */
async function referenceDatasets(): Promise<Map<string, OutputColumn>[]> {
  const all = await readUtilityReference();
  const dataset = all.columns.get("dataset")!;
  assert.equal(dataset.kind, "numeric");
  const out: Map<string, OutputColumn>[] = [];
  for (let i = 0; i < all.n; i++) {
    const d = (dataset as { values: Float64Array }).values[i];
    while (out.length <= d) out.push(new Map());
  }
  for (const name of all.names.filter((name) => name !== "dataset")) {
    const column = all.columns.get(name)!;
    const parts = out.map(() => [] as (string | number)[]);
    for (let i = 0; i < all.n; i++) {
      const d = (dataset as { values: Float64Array }).values[i];
      parts[d].push(column.kind === "numeric" ? column.values[i] : column.levels[column.codes[i]]);
    }
    out.forEach((map, d) =>
      map.set(
        name,
        column.kind === "numeric" ? Float64Array.from(parts[d] as number[]) : parts[d] as string[],
      )
    );
  }
  return out;
}

function close(actual: number | null, want: number, tolerance: number, what: string): number {
  assert.ok(actual !== null, `${what}: null`);
  const error = Math.abs(actual - want) / Math.max(1, Math.abs(want));
  assert.ok(error < tolerance, `${what}: ${actual} vs R ${want} (relative error ${error})`);
  return error;
}

const [confidential, ...synthetic] = await referenceDatasets();
const synthesized: ReportVariable[] = [
  { name: "A", kind: "numeric" },
  { name: "B", kind: "categorical", levels: expected.levels.B },
  { name: "D", kind: "categorical", levels: expected.levels.D },
];
const publicVariables: ReportVariable[] = [
  { name: "x1", kind: "numeric" },
  { name: "region", kind: "categorical", levels: expected.levels.region },
];

Deno.test("`utilityReport()`: pMSE and the CI overlaps agree with R's glm/lm computation to 1e-9", () => {
  const report = utilityReport(
    { confidential, synthetic, synthesized, public: publicVariables },
    { models: ["A ~ x1 + B", "D ~ x1 + region"] },
  );
  assert.equal(report.n, 80);
  assert.equal(report.m, 2);
  assert.equal(report.propensity.model, "t ~ x1 + region + A + B + D");
  let worst = 0;
  expected.pmse.forEach((r, l) => {
    const ours = report.propensity.byDataset[l];
    assert.equal(ours.k, r.k);
    assert.equal(ours.N, r.N);
    assert.equal(ours.c, r.c);
    assert.equal(ours.separated, false);
    worst = Math.max(
      worst,
      close(ours.pMSE, r.pMSE, 1e-9, `pMSE ${l + 1}`),
      close(ours.expected, r.expected, 1e-12, `E[pMSE] ${l + 1}`),
      close(ours.ratio, r.ratio, 1e-9, `S_pMSE ${l + 1}`),
    );
  });
  close(
    report.propensity.mean.pMSE,
    (expected.pmse[0].pMSE + expected.pmse[1].pMSE) / 2,
    1e-9,
    "mean",
  );
  console.log(`pMSE vs R: worst relative error ${worst.toExponential(2)}`);

  // R names dummies regionS, Bb; ours region=S, B=b.
  const rName = (name: string) => name.replace("=", "");
  let worstModel = 0;
  expected.models.forEach((r, index) => {
    const model = report.models[index];
    assert.ok("coefficients" in model, JSON.stringify(model));
    assert.equal(model.family, r.family);
    assert.deepEqual(
      model.coefficients.map((c) => rName(c.name)),
      r.coefficients.map((c) => c.name),
    );
    model.coefficients.forEach((c, j) => {
      const w = r.coefficients[j];
      const what = `${r.formula} ${w.name}`;
      for (const key of ["estimate", "se", "lower", "upper"] as const) {
        worstModel = Math.max(
          worstModel,
          close(c.confidential[key], w.confidential[key], 1e-9, `${what} confidential ${key}`),
        );
      }
      for (const key of ["estimate", "se", "lower", "upper", "between", "within"] as const) {
        worstModel = Math.max(
          worstModel,
          close(c.synthetic[key], w.synthetic[key], 1e-9, `${what} synthetic ${key}`),
        );
      }
      worstModel = Math.max(
        worstModel,
        close(c.synthetic.df, w.synthetic.df as number, 1e-9, `${what} df`),
        close(c.overlap, w.overlap, 1e-9, `${what} overlap`),
        close(c.standardizedDifference, w.standardizedDifference, 1e-9, `${what} std. difference`),
      );
    });
  });
  console.log(
    `CI overlap and coefficients vs R: worst relative error ${worstModel.toExponential(2)}`,
  );
});

Deno.test("`utilityReport()`: pMSE of a saturated one-variable propensity model equals the hand count", () => {
  // Propensity t ~ B with B's 3 levels: p̂ in each level = n*_level/(n_level + n*_level).
  // Confidential: a a a b b c (n = 6); synthetic 1: a b b b c c; synthetic 2: a a b b c c.
  const conf = new Map([["B", ["a", "a", "a", "b", "b", "c"]]]);
  const s1 = new Map([["B", ["a", "b", "b", "b", "c", "c"]]]);
  const s2 = new Map([["B", ["a", "a", "b", "b", "c", "c"]]]);
  const report = utilityReport({
    confidential: conf,
    synthetic: [s1, s2],
    synthesized: [{ name: "B", kind: "categorical", levels: ["a", "b", "c"] }],
    public: [],
  });
  const N = 12;
  const c = 0.5;
  // Synthetic 1: a 3 conf + 1 syn (p̂ 1/4), b 2 + 3 (3/5), c 1 + 2 (2/3).
  const pmse1 = (4 * (1 / 4 - c) ** 2 + 5 * (3 / 5 - c) ** 2 + 3 * (2 / 3 - c) ** 2) / N;
  // Synthetic 2: a 3 + 2 (2/5), b 2 + 2 (1/2), c 1 + 2 (2/3).
  const pmse2 = (5 * (2 / 5 - c) ** 2 + 4 * (1 / 2 - c) ** 2 + 3 * (2 / 3 - c) ** 2) / N;
  const expectedNull = (3 - 1) * (1 - c) ** 2 * c / N;
  const [p1, p2] = report.propensity.byDataset;
  assert.ok(Math.abs(p1.pMSE - pmse1) < 1e-12, `${p1.pMSE} vs ${pmse1}`);
  assert.ok(Math.abs(p2.pMSE - pmse2) < 1e-12, `${p2.pMSE} vs ${pmse2}`);
  assert.equal(p1.k, 3);
  assert.ok(Math.abs(p1.expected - expectedNull) < 1e-15);
  assert.ok(Math.abs(p1.ratio - pmse1 / expectedNull) < 1e-10);
  assert.ok(Math.abs(report.propensity.mean.pMSE - (pmse1 + pmse2) / 2) < 1e-12);
  // Marginals and TVD: conf (3, 2, 1)/6; synthetic 1 (1, 3, 2)/6: TVD ½(2 + 1 + 1)/6 = 1/3;
  // synthetic 2 (2, 2, 2)/6: ½(1 + 0 + 1)/6 = 1/6.
  const b = report.variables[0];
  assert.equal(b.kind, "categorical");
  if (b.kind !== "categorical") return;
  assert.deepEqual(b.confidential.counts, [3, 2, 1]);
  assert.deepEqual(b.synthetic.counts, [1.5, 2.5, 2]);
  assert.ok(Math.abs(b.tvd.byDataset[0] - 1 / 3) < 1e-15);
  assert.ok(Math.abs(b.tvd.byDataset[1] - 1 / 6) < 1e-15);
  assert.ok(Math.abs(b.tvd.mean - 1 / 4) < 1e-15);
});

Deno.test("`utilityReport()`: a level one side lacks separates the propensity model, reported at its limit", () => {
  // Level c never synthesized: the c records are confidential for sure (p̂ → 0).
  const conf = new Map([["B", ["a", "a", "b", "b", "c", "c"]]]);
  const syn = new Map([["B", ["a", "b", "b", "a", "a", "b"]]]);
  const report = utilityReport({
    confidential: conf,
    synthetic: [syn],
    synthesized: [{ name: "B", kind: "categorical", levels: ["a", "b", "c"] }],
    public: [],
  });
  const p = report.propensity.byDataset[0];
  assert.equal(p.separated, true);
  // Limit: a 2 + 3 (3/5), b 2 + 3 (3/5), c 2 + 0 (0).
  const want = (10 * (3 / 5 - 0.5) ** 2 + 2 * 0.25) / 12;
  assert.ok(Math.abs(p.pMSE - want) < 1e-9, `${p.pMSE} vs ${want}`);
});

Deno.test("`utilityReport()`: numeric variables reuse `utilityOf`; ECDF points are quantiles, not records", () => {
  const report = utilityReport(
    { confidential, synthetic, synthesized, public: ["x1", "region"] },
    { ecdfPoints: 50 },
  );
  // Names only: x1 numeric, region categorical with levels in order of first appearance.
  assert.deepEqual(report.public[0], { name: "x1", kind: "numeric" });
  assert.equal(report.public[1].kind, "categorical");
  const a = report.variables[0];
  assert.equal(a.kind, "numeric");
  if (a.kind !== "numeric") return;
  synthetic.forEach((s, l) => {
    const u = utilityOf(confidential.get("A") as Float64Array, s.get("A") as Float64Array);
    assert.deepEqual(a.byDataset[l], {
      synthetic: u.synthetic,
      ecdfMax: u.ecdfMax,
      ecdfMeanSquared: u.ecdfMeanSquared,
    });
    assert.deepEqual(a.confidential, u.confidential);
  });
  assert.equal(a.mean.ecdfMax, (a.byDataset[0].ecdfMax + a.byDataset[1].ecdfMax) / 2);
  assert.equal(a.ecdf.probabilities.length, 50);
  assert.equal(a.ecdf.probabilities[0], 0.01);
  assert.equal(a.ecdf.synthetic.length, 2);
  const values = [...(confidential.get("A") as Float64Array)];
  assert.ok(a.ecdf.confidential[0] > Math.min(...values), "not the minimum");
  assert.ok(a.ecdf.confidential[49] < Math.max(...values), "not the maximum");
  const sorted = Float64Array.from(values).sort();
  a.ecdf.probabilities.forEach((p, k) => {
    assert.equal(a.ecdf.confidential[k], quantile(sorted, p));
    assert.equal(a.ecdf.synthetic[1][k], quantile(synthetic[1].get("A") as Float64Array, p));
  });
  // Two-way tables: every categorical pair with a synthesized member (region × B, region × D,
  // B × D), none of public × public.
  assert.deepEqual(report.twoWay.map((t) => t.variables), [["region", "B"], ["region", "D"], [
    "B",
    "D",
  ]]);
});

Deno.test("`utilityReport()`: two-way tables and their TVD by hand", () => {
  const conf = new Map<string, OutputColumn>([
    ["g", ["u", "u", "v", "v"]],
    ["B", ["a", "b", "a", "b"]],
  ]);
  const syn = new Map<string, OutputColumn>([
    ["g", ["u", "u", "v", "v"]],
    ["B", ["a", "a", "a", "b"]],
  ]);
  const report = utilityReport({
    confidential: conf,
    synthetic: [syn],
    synthesized: [{ name: "B", kind: "categorical", levels: ["a", "b"] }],
    public: ["g"],
  });
  const [t] = report.twoWay;
  assert.deepEqual(t.variables, ["g", "B"]);
  assert.deepEqual(t.confidential, [[1, 1], [1, 1]]);
  assert.deepEqual(t.synthetic, [[2, 0], [1, 1]]);
  // ½(|¼ − ½| + |¼ − 0| + 0 + 0) = ¼.
  assert.equal(t.tvd.mean, 0.25);
});

Deno.test("`utilityReport()` is JSON as it stands: no NaN, no Infinity, no typed arrays", () => {
  const report = utilityReport(
    { confidential, synthetic: [synthetic[0]], synthesized, public: publicVariables },
    { models: ["A ~ x1 + B + region", "D ~ A"] },
  );
  // m = 1: b = 0, ν infinite, reported as null.
  const model = report.models[0];
  assert.ok("coefficients" in model);
  assert.equal(model.coefficients[0].synthetic.df, null);
  const roundTrip = JSON.parse(JSON.stringify(report)) as UtilityReport;
  assert.deepEqual(roundTrip, report);
});

Deno.test("bad utility models are errors naming the formula and the column", () => {
  const run = (model: string) => () =>
    utilityReport(
      { confidential, synthetic, synthesized, public: publicVariables },
      { models: [model] },
    );
  assert.throws(
    run("A ~ x1 + Q"),
    /^RangeError: Invalid utility model "A ~ x1 \+ Q": unknown column "Q" \(known: x1, region, A, B, D\)$/,
  );
  assert.throws(run("Z ~ x1"), /"Z ~ x1": unknown column "Z"/);
  assert.throws(run("A ~ x1 * B"), /"A ~ x1 \* B": unexpected "\*" at character 8/);
  assert.throws(run("A x1"), /"A x1": unexpected "x" at character 3/);
  assert.throws(run("A ~ x1 +"), /"A ~ x1 \+": unexpected end/);
  assert.throws(run("B ~ x1"), /"B ~ x1": the outcome "B" is categorical with 3 levels/);
});

Deno.test("`utilityReport()`: a synthetic fit that fails gives the model an error, the rest stands", () => {
  // D ~ B where synthetic D is "yes" for every B = c record: separation in that dataset only.
  const syn = new Map(synthetic[0]);
  const b = syn.get("B") as string[];
  syn.set("D", (syn.get("D") as string[]).map((d, i) => b[i] === "c" ? "yes" : d));
  const report = utilityReport(
    { confidential, synthetic: [syn], synthesized, public: publicVariables },
    { models: ["D ~ B", "A ~ x1"] },
  );
  const [failed, fine] = report.models;
  assert.ok("error" in failed);
  assert.match(failed.error, /^synthetic dataset 1: .*separated/);
  assert.ok("coefficients" in fine);
});

Deno.test("`utilityReport()`: missing columns and unknown levels name the dataset, column and row", () => {
  const syn = new Map(synthetic[0]);
  syn.delete("A");
  assert.throws(
    () => utilityReport({ confidential, synthetic: [syn], synthesized, public: publicVariables }),
    /Invalid synthetic dataset 1: no column "A"/,
  );
  const odd = new Map(synthetic[0]);
  odd.set("B", (odd.get("B") as string[]).map((v, i) => i === 4 ? "zz" : v));
  assert.throws(
    () => utilityReport({ confidential, synthetic: [odd], synthesized, public: publicVariables }),
    /Invalid synthetic dataset 1: column "B" row 5 is not one of its levels \(a, b, c\)$/,
  );
});
