/**
 * The bounded mode of the Laplace baseline (declared bounds of y and the weights): its
 * sensitivities against a brute-force worst case over add/remove neighbours, and a noise grid
 * that depends on the bounds and ε only (issue 22).
 */
import assert from "node:assert/strict";
import { withoutUnit } from "./_without_unit.ts";
import { laplaceQueryGrid } from "../../src/mechanisms/secure_laplace.ts";
import { Rng } from "../../src/random/rng.ts";
import {
  type LaplaceBounds,
  type LaplaceTable,
  laplaceTable,
  secureRelease,
} from "../../src/survey/laplace_baseline.ts";
import { runTableMethod } from "../../src/survey/table_methods.ts";
import type { TableInput } from "../../src/survey/tables.ts";
import type { Dataset } from "../../src/data/dataset.ts";

/** A small sample: H strata, A × B cells, weights and outcomes drawn inside the bounds. */
function sample(seed: number, n: number, A: number, B: number, bounds: LaplaceBounds): TableInput {
  const rng = new Rng(seed);
  const [a, b] = bounds.y;
  const [lo, hi] = bounds.weight;
  const pick = (k: number) => Math.floor(rng.uniform() * k);
  return {
    y: Float64Array.from({ length: n }, () => a + (b - a) * rng.uniform()),
    weight: Float64Array.from({ length: n }, () => lo + (hi - lo) * rng.uniform()),
    strata: Int32Array.from({ length: n }, (_, i) => i % 3),
    by: [
      {
        name: "f",
        codes: Int32Array.from({ length: n }, () => pick(A)),
        levels: Array.from({ length: A }, (_, k) => `f${k}`),
      },
      {
        name: "g",
        codes: Int32Array.from({ length: n }, () => pick(B)),
        levels: Array.from({ length: B }, (_, k) => `g${k}`),
      },
    ],
  };
}

/** The input with one unit added. */
function plus(input: TableInput, y: number, w: number, f: number, g: number): TableInput {
  const append = <T extends Float64Array | Int32Array>(array: T, value: number): T => {
    const longer = new (array.constructor as new (n: number) => T)(array.length + 1);
    longer.set(array);
    longer[array.length] = value;
    return longer;
  };
  return {
    y: append(input.y, y),
    weight: append(input.weight, w),
    strata: append(input.strata, 0),
    by: [
      { ...input.by[0], codes: append(input.by[0].codes, f) },
      { ...input.by[1], codes: append(input.by[1].codes, g) },
    ],
  };
}

/** The noiseless bounded table (the query values that the release noises). */
function exact(input: TableInput, bounds: LaplaceBounds, epsilon = 1): LaplaceTable {
  return laplaceTable(input, { epsilon, bounds, rng: new Rng(1), release: (value) => value });
}

const BOUNDS: LaplaceBounds[] = [
  { y: [-50, 200], weight: [0.5, 7] },
  { y: [10_000, 90_000], weight: [0, 1000] },
  { y: [0.1, 0.3], weight: [1, 1.5] },
];

Deno.test("bounded `laplaceTable()`: no add/remove neighbour moves a count by more than max(|lo|, |hi|), a mean by more than b − a, or a table by more than 4× in L1", () => {
  let neighbours = 0;
  for (const [k, bounds] of BOUNDS.entries()) {
    for (const [seed, n, A, B] of [[1, 9, 2, 3], [2, 14, 3, 2], [3, 7, 3, 3]]) {
      const input = sample(100 * k + seed, n, A, B, bounds);
      const base = exact(input, bounds);
      const [a, b] = bounds.y;
      const [lo, hi] = bounds.weight;
      assert.equal(base.countSensitivity, Math.max(Math.abs(lo), Math.abs(hi)));
      assert.equal(base.meanSensitivity, b - a);
      const others: TableInput[] = [];
      for (let j = 0; j < n; j++) others.push(withoutUnit(input, j));
      for (const y of [a, b]) {
        for (const w of [lo, hi]) {
          for (let f = 0; f < A; f++) {
            for (let g = 0; g < B; g++) others.push(plus(input, y, w, f, g));
          }
        }
      }
      for (const other of others) {
        const next = exact(other, bounds);
        let countL1 = 0;
        let meanL1 = 0;
        for (let r = 0; r < base.count.length; r++) {
          const dc = Math.abs(next.count[r] - base.count[r]);
          const dm = Math.abs(next.mean[r] - base.mean[r]);
          assert.ok(dc <= base.countSensitivity, `count of row ${r} moved by ${dc}`);
          assert.ok(dm <= base.meanSensitivity, `mean of row ${r} moved by ${dm}`);
          assert.ok(next.mean[r] >= a && next.mean[r] <= b, "every mean lies in [a, b]");
          countL1 += dc;
          meanL1 += dm;
        }
        assert.ok(countL1 <= 4 * base.countSensitivity, `counts' L1 change ${countL1}`);
        assert.ok(meanL1 <= 4 * base.meanSensitivity, `means' L1 change ${meanL1}`);
        neighbours++;
      }
    }
  }
  assert.ok(neighbours > 300);
});

Deno.test("bounded `laplaceTable()`: ε/8 per cell, no replicates, NaN SEs, clamped values and an empty cell's mean at the point of [a, b] nearest 0", () => {
  const bounds: LaplaceBounds = { y: [10, 90], weight: [1, 4] };
  const input: TableInput = {
    y: Float64Array.of(5, 50, 95, 40, 60, 20),
    weight: Float64Array.of(2, 9, 3, 0.5, 2, 1),
    strata: Int32Array.of(0, 0, 0, 1, 1, 1),
    by: [
      { name: "f", codes: Int32Array.of(0, 0, 1, 1, 1, 0), levels: ["a", "b", "c"] },
      { name: "g", codes: Int32Array.of(0, 1, 0, 1, 0, 1), levels: ["m", "w"] },
    ],
  };
  const calls: [number, number][] = [];
  const table = laplaceTable(input, {
    epsilon: 4,
    bounds,
    rng: new Rng(1),
    release: (value, sensitivity, epsilon) => {
      calls.push([sensitivity, epsilon]);
      return value;
    },
  });
  assert.equal(table.epsilonPoint, 0.5);
  assert.equal(table.replicates, 0);
  assert.equal(calls.length, 2 * 12, "one release per cell and table, no replicates");
  assert.deepEqual(new Set(calls.map(([s, e]) => `${s}/${e}`)), new Set(["4/0.5", "80/0.5"]));
  assert.ok([...table.countSE, ...table.meanSE].every(Number.isNaN));
  // Clamped: y 5 → 10, 95 → 90; w 9 → 4, 0.5 → 1. Grand total count 2 + 4 + 3 + 1 + 2 + 1.
  assert.equal(table.count[0], 13);
  const total = (2 * 10 + 4 * 50 + 3 * 90 + 1 * 40 + 2 * 60 + 1 * 20) / 13;
  assert.ok(Math.abs(table.mean[0] - total) < 1e-12);
  const empty = table.labels[0].flatMap((label, r) => label === "c" ? [r] : []);
  for (const r of empty) assert.deepEqual([table.count[r], table.mean[r]], [0, 10]);
  const straddling = laplaceTable(input, {
    epsilon: 4,
    bounds: { y: [-5, 90], weight: [1, 4] },
    rng: new Rng(1),
    release: (value) => value,
  });
  for (const r of empty) assert.equal(straddling.mean[r], 0);
  assert.throws(
    () =>
      laplaceTable(input, {
        epsilon: 4,
        bounds: { y: [10, 90], weight: [-1, 4] },
        rng: new Rng(1),
        release: secureRelease,
      }),
    (error) => error instanceof RangeError && /weight's bounds/.test(error.message),
  );
  assert.throws(
    () =>
      laplaceTable(input, {
        epsilon: 4,
        bounds,
        replicates: 10,
        rng: new Rng(1),
        release: secureRelease,
      }),
    /replicates/,
  );
});

/** The exponent of the largest power of two dividing a nonzero float. */
function twoAdic(x: number): number {
  let k = Math.floor(Math.log2(Math.abs(x))) + 1;
  while (!Number.isInteger(x / 2 ** k)) k--;
  return k;
}

/** The smallest exponent over the released values: the grid step they were drawn on. */
function gridExponent(values: Float64Array): number {
  return Math.min(...[...values].filter((v) => v !== 0).map(twoAdic));
}

Deno.test("bounded `laplaceTable()`: the released values' grid depends on the declared bounds and ε only, not on the data", () => {
  const bounds: LaplaceBounds = { y: [0, 250_000], weight: [0, 2000] };
  const epsilon = 0.5;
  const small = sample(11, 200, 8, 2, { y: [20_000, 21_000], weight: [1, 2] });
  const large = sample(12, 200, 8, 2, { y: [0, 250_000], weight: [1500, 2000] });
  // One record alone with an extreme value and weight in its own cell.
  large.y[0] = 249_999;
  large.weight[0] = 1999;
  const expectedCount = laplaceQueryGrid(2000, epsilon / 8).exponent;
  const expectedMean = laplaceQueryGrid(250_000, epsilon / 8).exponent;
  for (const input of [small, large]) {
    const table = laplaceTable(input, { epsilon, bounds, rng: new Rng(1), release: secureRelease });
    assert.equal(gridExponent(table.count), expectedCount);
    assert.equal(gridExponent(table.mean), expectedMean);
    assert.equal(table.countSensitivity, 2000);
    assert.equal(table.meanSensitivity, 250_000);
  }
});

Deno.test("`runTableMethod()` laplace with bounds clamps the data, counts the clamped values and states a DP guarantee", async () => {
  const data: Dataset = {
    source: "t.csv",
    n: 6,
    names: ["s", "w", "f", "g"],
    columns: new Map([
      ["s", { kind: "numeric", values: Float64Array.of(5, 50, 95, 40, 60, 20) }],
      ["w", { kind: "numeric", values: Float64Array.of(2, 9, 3, 0.5, 2, 1) }],
      ["f", { kind: "categorical", codes: Int32Array.of(0, 0, 1, 1, 1, 0), levels: ["a", "b"] }],
      ["g", { kind: "categorical", codes: Int32Array.of(0, 1, 0, 1, 0, 1), levels: ["m", "w"] }],
    ]),
  };
  const request = {
    y: "s",
    weight: "w",
    strata: "f",
    by: ["f", "g"] as const,
    method: "laplace" as const,
    epsilon: 2,
    seed: 3,
  };
  const bounds = { y: [10, 90], weight: [1, 4] } as const;
  const { table, privacy, clamped } = await runTableMethod(data, { ...request, bounds });
  assert.deepEqual(clamped, { s: 2, w: 2 });
  assert.equal(privacy?.guarantee, "DP");
  assert.equal(privacy?.epsilonPoint, 0.25);
  assert.equal(privacy?.replicates, 0);
  assert.equal(privacy?.epsilonReplicate, undefined);
  assert.deepEqual(privacy?.bounds, { y: [10, 90], weight: [1, 4] });
  assert.ok([...table.countSE, ...table.meanSE].every(Number.isNaN));
  const again = await runTableMethod(data, request, { bounds });
  assert.deepEqual(again.table, table, "options.bounds and the request's bounds alike");
  const local = await runTableMethod(data, request);
  assert.equal(local.privacy?.guarantee, "local DP");
  assert.equal(local.clamped, undefined);
  await assert.rejects(
    runTableMethod(data, { ...request, method: "sample" }, { bounds }).then(() =>
      runTableMethod(data, { ...request, method: "fbs" }, { bounds })
    ),
    /only the laplace method takes bounds/,
  );
});
