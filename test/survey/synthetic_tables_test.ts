import assert from "node:assert/strict";
import { Rng } from "../../src/random/rng.ts";
import { fbpMeanWeights, syntheticSampleTable } from "../../src/survey/synthetic_tables.ts";
import { MARGIN_LABEL, surveyTable, type TableInput } from "../../src/survey/tables.ts";

/** Two strata (the first grouping), 3 × 2 interior cells, every cell with ≥ 2 records. */
function input(n: number, seed: number): TableInput & { y: Float64Array; weight: Float64Array } {
  const rng = new Rng(seed);
  const a = Int32Array.from({ length: n }, (_, i) => i % 3);
  const b = Int32Array.from({ length: n }, (_, i) => Math.floor(i / 3) % 2);
  return {
    y: Float64Array.from({ length: n }, () => Math.exp(11 + 0.4 * rng.normal())),
    weight: Float64Array.from({ length: n }, () => Math.exp(4 + 0.5 * rng.normal())),
    strata: a.map((v) => v % 2),
    by: [
      { name: "field", codes: a, levels: ["f1", "f2", "f3"] },
      { name: "gender", codes: b, levels: ["male", "female"] },
    ],
  };
}

Deno.test("FBP's table: counts from w*, interior means unweighted, margins Σ N̂_c·ȳ_c / Σ N̂_c", () => {
  const base = input(60, 3);
  const { y, weight } = base;
  const table = syntheticSampleTable("fbp", base, y, weight);
  const counts = surveyTable({ ...base, y, weight });
  const unweighted = surveyTable({ ...base, y, weight: new Float64Array(y.length).fill(1) });
  assert.deepEqual(table.count, counts.count);
  assert.deepEqual(table.countSE, counts.countSE);
  // By hand: each interior cell's N̂_c and ȳ_c.
  const cellTotal = new Map<string, { w: number; y: number; n: number }>();
  for (let i = 0; i < y.length; i++) {
    const key = `${base.by[0].levels[base.by[0].codes[i]]}/${
      base.by[1].levels[base.by[1].codes[i]]
    }`;
    const c = cellTotal.get(key) ?? { w: 0, y: 0, n: 0 };
    cellTotal.set(key, { w: c.w + weight[i], y: c.y + y[i], n: c.n + 1 });
  }
  for (let r = 0; r < table.mean.length; r++) {
    const [f, g] = [table.labels[0][r], table.labels[1][r]];
    let num = 0;
    let den = 0;
    for (const [key, c] of cellTotal) {
      const [cf, cg] = key.split("/");
      if ((f === MARGIN_LABEL || f === cf) && (g === MARGIN_LABEL || g === cg)) {
        num += c.w * c.y / c.n;
        den += c.w;
      }
    }
    const want = num / den;
    assert.ok(Math.abs(table.mean[r] / want - 1) < 1e-12, `row ${r} (${f}, ${g})`);
    if (f !== MARGIN_LABEL && g !== MARGIN_LABEL) {
      assert.ok(Math.abs(table.mean[r] / unweighted.mean[r] - 1) < 1e-12, `row ${r} mean`);
      assert.ok(Math.abs(table.meanSE[r] / unweighted.meanSE[r] - 1) < 1e-12, `row ${r} SE`);
    }
  }
  // The old rule (each record's own w*) differs on the margins: the test can fail.
  const perRecord = surveyTable({ ...base, y, weight });
  assert.ok(Math.abs(perRecord.mean[0] / table.mean[0] - 1) > 1e-6);
});

Deno.test("`fbpMeanWeights()` gives every record its cell's mean smoothed weight", () => {
  const base = input(24, 5);
  const v = fbpMeanWeights(base, base.weight);
  for (let i = 0; i < v.length; i++) {
    let sum = 0;
    let n = 0;
    for (let j = 0; j < v.length; j++) {
      if (
        base.by[0].codes[j] === base.by[0].codes[i] && base.by[1].codes[j] === base.by[1].codes[i]
      ) {
        sum += base.weight[j];
        n++;
      }
    }
    assert.ok(Math.abs(v[i] - sum / n) < 1e-9 * v[i]);
  }
  assert.deepEqual(syntheticSampleTable("fbs", base, base.y, base.weight), surveyTable(base));
});
