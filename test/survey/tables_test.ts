import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { Rng } from "../../src/random/rng.ts";
import {
  type Grouping,
  MARGIN_LABEL,
  surveyTable,
  type TableInput,
  tableInput,
} from "../../src/survey/tables.ts";
import { referenceSampleCsv } from "../reference/survey_sample.ts";
import { EXPECTED_CELLS, REFERENCE } from "./_reference.ts";

// Reference values: Rscript test/reference/survey_tables.R (R 4.2.2, survey 4.1.1) on
// test/reference/survey_sample.csv.

const sampleText = await Deno.readTextFile(new URL("survey_sample.csv", REFERENCE));

const COLUMNS = { y: "salary", weight: "w", strata: "field", by: ["field", "gender"] } as const;

Deno.test("the recorded survey sample is what test/reference/survey_sample.ts draws", () => {
  assert.equal(sampleText, referenceSampleCsv());
});

Deno.test("`surveyTable()` matches R's survey package on all 108 numbers to 1e-8 relative", () => {
  const table = surveyTable(tableInput(parseCsv(sampleText, "survey_sample.csv"), COLUMNS));
  assert.equal(table.count.length, 27);
  assert.equal(EXPECTED_CELLS.length, 27);
  assert.deepEqual(table.by, ["field", "gender"]);
  let worst = 0;
  for (const cell of EXPECTED_CELLS) {
    const r = table.labels[0].findIndex((label, k) =>
      label === cell.field && table.labels[1][k] === cell.gender
    );
    assert.ok(r >= 0, `${cell.field}/${cell.gender} missing`);
    for (const key of ["count", "countSE", "mean", "meanSE"] as const) {
      const error = Math.abs(table[key][r] / cell[key] - 1);
      worst = Math.max(worst, error);
      assert.ok(
        error < 1e-8,
        `${cell.field}/${cell.gender} ${key}: ${table[key][r]} vs ${cell[key]}`,
      );
    }
  }
  // The JSON carries 15 significant digits, so agreement is at that level.
  assert.ok(worst < 1e-13, `worst relative difference ${worst}`);
  // Rows: grand total first, then the gender margins, then each field's total and cells.
  assert.deepEqual(table.labels[0].slice(0, 4), [
    MARGIN_LABEL,
    MARGIN_LABEL,
    MARGIN_LABEL,
    "field1",
  ]);
  assert.deepEqual(table.labels[1].slice(0, 4), [MARGIN_LABEL, "male", "female", MARGIN_LABEL]);
});

/**
 * SPEC §8 transcribed literally: for each cell build z over all n units (zero outside), centre
 * within strata and sum n_h/(n_h − 1)·Σ(z − z̄_h)².
 */
function naiveCell(input: TableInput, inCell: (i: number) => boolean) {
  const { y, weight, strata } = input;
  const n = y.length;
  let count = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (inCell(i)) {
      count += weight[i];
      total += weight[i] * y[i];
    }
  }
  const mean = total / count;
  const variance = (z: Float64Array) => {
    let v = 0;
    const H = Math.max(...strata) + 1;
    for (let h = 0; h < H; h++) {
      const members = [...z.keys()].filter((i) => strata[i] === h);
      if (members.length === 0) continue;
      const bar = members.reduce((s, i) => s + z[i], 0) / members.length;
      v += members.length / (members.length - 1) *
        members.reduce((s, i) => s + (z[i] - bar) ** 2, 0);
    }
    return v;
  };
  const zCount = Float64Array.from(y, (_, i) => inCell(i) ? weight[i] : 0);
  const zMean = Float64Array.from(y, (yi, i) => inCell(i) ? weight[i] * (yi - mean) / count : 0);
  return { count, mean, countSE: Math.sqrt(variance(zCount)), meanSE: Math.sqrt(variance(zMean)) };
}

Deno.test("`surveyTable()` equals a literal transcription of SPEC §8 on random designs", () => {
  const rng = new Rng(21);
  for (let trial = 0; trial < 5; trial++) {
    const n = 60 + trial * 17;
    const H = 2 + trial;
    const A = 3;
    const B = 2 + (trial % 2);
    const input: TableInput = {
      y: Float64Array.from({ length: n }, () => 50 + 20 * rng.normal()),
      weight: Float64Array.from({ length: n }, () => 1 + 30 * rng.uniform()),
      strata: Int32Array.from({ length: n }, (_, i) => i % H),
      by: [
        {
          name: "a",
          codes: Int32Array.from({ length: n }, () => rng.nextUint32() % A),
          levels: ["a0", "a1", "a2"],
        },
        {
          name: "b",
          codes: Int32Array.from({ length: n }, () => rng.nextUint32() % B),
          levels: ["b0", "b1", "b2"].slice(0, B),
        },
      ],
    };
    const table = surveyTable(input);
    assert.equal(table.count.length, (A + 1) * (B + 1));
    table.count.forEach((_, r) => {
      const la = table.labels[0][r];
      const lb = table.labels[1][r];
      const match = (g: Grouping, label: string, i: number) =>
        label === MARGIN_LABEL || g.levels[g.codes[i]] === label;
      const ref = naiveCell(input, (i) => match(input.by[0], la, i) && match(input.by[1], lb, i));
      for (const key of ["count", "countSE", "mean", "meanSE"] as const) {
        assert.ok(Math.abs(table[key][r] / ref[key] - 1) < 1e-12, `${la}/${lb} ${key}`);
      }
    });
  }
});

Deno.test("`surveyTable()`: an empty cell has count 0 (SE 0) and NaN mean; errors name the input", () => {
  const base: TableInput = {
    y: Float64Array.of(1, 2, 3, 4),
    weight: Float64Array.of(1, 2, 3, 4),
    strata: Int32Array.of(0, 0, 1, 1),
    by: [
      { name: "a", codes: Int32Array.of(0, 0, 0, 0), levels: ["x"] },
      { name: "b", codes: Int32Array.of(0, 0, 0, 0), levels: ["p", "q"] },
    ],
  };
  const table = surveyTable(base);
  const q = table.labels[1].indexOf("q");
  assert.equal(table.count[q], 0);
  assert.equal(table.countSE[q], 0);
  assert.ok(Number.isNaN(table.mean[q]) && Number.isNaN(table.meanSE[q]));
  assert.equal(table.count[0], 10);
  assert.equal(table.mean[0], 3);
  // A lone unit (survey.lonely.psu = "adjust"): stratum 0's z = 1, 2, 3 give 3/2·2 = 3, and
  // stratum 1's lone z = 4 adds (4 − 10/4)² = 2.25 about the mean of z over all 4 units.
  const lone = surveyTable({ ...base, strata: Int32Array.of(0, 0, 0, 1) });
  assert.ok(Math.abs(lone.countSE[0] ** 2 - 5.25) < 1e-12, `${lone.countSE[0] ** 2}`);
  // A zero weight counts for nothing but stays a unit of its stratum.
  const zero = surveyTable({ ...base, weight: Float64Array.of(1, 0, 3, 4) });
  assert.equal(zero.count[0], 8);
  assert.equal(zero.mean[0], (1 + 9 + 16) / 8);
  assert.throws(
    () => surveyTable({ ...base, weight: Float64Array.of(1, -1, 1, 1) }),
    /weight\[1\]=-1/,
  );
  assert.throws(
    () => surveyTable({ ...base, weight: Float64Array.of(1, 2) }),
    /Invalid weight: must have one entry per unit: length=2, n=4/,
  );
});

Deno.test("`tableInput()` names the file, row and column of bad input", () => {
  const data = (text: string) => parseCsv(text, "s.csv");
  const columns = { y: "y", weight: "w", strata: "h", by: ["a", "b"] } as const;
  assert.throws(
    () => tableInput(data("y,w,h,a,b\n1,1,1,x,p\n2,-1,1,x,q\n"), columns),
    /s\.csv, row 2 \(line 3\), column "w": survey weights must be non-negative/,
  );
  // A stratum of one unit and a zero weight are kept (`surveyTable`'s rules).
  const kept = tableInput(data("y,w,h,a,b\n1,1,1,x,p\n2,0,1,x,q\n3,1,2,x,q\n"), columns);
  assert.deepEqual([...kept.weight], [1, 0, 1]);
  assert.throws(
    () => tableInput(data("y,h,a,b\n1,1,x,p\n"), columns),
    /column "w": missing column/,
  );
  // Numeric grouping columns take their distinct values as levels, in order of appearance.
  const input = tableInput(data("y,w,h,a,b\n1,1,1,3,p\n2,1,1,1,q\n"), columns);
  assert.deepEqual(input.by[0].levels, ["3", "1"]);
  assert.deepEqual([...input.by[0].codes], [0, 1]);
});
