import assert from "node:assert/strict";
import { CategoricalModel } from "../../src/models/categorical.ts";
import { LogisticModel } from "../../src/models/logistic.ts";
import type { Design, Model, Weighting } from "../../src/models/model.ts";
import { MAX_GROUP_SHARE, rowGroups } from "../../src/models/row_groups.ts";
import { Rng } from "../../src/random/rng.ts";

/** n records of an intercept and two dummies of a three-level factor (so 3 distinct rows). */
function factorDesign(n: number, y: (i: number, rng: Rng) => number, levels?: string[]): Design {
  const rng = new Rng(11);
  const x = new Float64Array(n * 3);
  const ys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const f = Math.floor(rng.uniform() * 3);
    x.set([1, f === 1 ? 1 : 0, f === 2 ? 1 : 0], i * 3);
    ys[i] = y(i, rng);
  }
  return {
    n,
    k: 3,
    y: ys,
    x,
    coefficientNames: ["intercept", "f=b", "f=c"],
    ...(levels === undefined ? {} : { outcomeLevels: levels }),
  };
}

/** Asserts two models give the same log density, gradient and ℓ, bit for bit. */
function assertSameBits(grouped: Model, plain: Model, seed: number): void {
  const rng = new Rng(seed);
  const n = grouped.design.n;
  for (let trial = 0; trial < 20; trial++) {
    const u = Float64Array.from({ length: grouped.dim }, () => 3 * (rng.uniform() - 0.5));
    const alpha = Float64Array.from({ length: n }, () => rng.uniform() < 0.1 ? 0 : rng.uniform());
    const weightings: Weighting[] = [{ alpha: null }, { alpha }, { alpha, censor: 0.4 }];
    for (const weighting of weightings) {
      const [ga, gb] = [new Float64Array(grouped.dim), new Float64Array(grouped.dim)];
      const a = grouped.logDensity(u, ga, weighting);
      const b = plain.logDensity(u, gb, weighting);
      assert.ok(Object.is(a, b), `log density ${a} vs ${b}`);
      ga.forEach((v, j) => assert.ok(Object.is(v, gb[j]), `gradient ${j}: ${v} vs ${gb[j]}`));
      assert.ok(Object.is(grouped.logDensity(u, null, weighting), b));
    }
    const theta = grouped.constrain(u);
    const [la, lb] = [
      grouped.logLik(theta, new Float64Array(n)),
      plain.logLik(theta, new Float64Array(n)),
    ];
    la.forEach((v, i) => assert.ok(Object.is(v, lb[i]), `ℓ_${i}: ${v} vs ${lb[i]}`));
  }
}

Deno.test("rowGroups groups equal rows and keys, tells −0 from 0, and gives up past the share", () => {
  // 20 records (intercept, z): z = 0 but record 1's z = −0, and the key splits record 2 off.
  const x = new Float64Array(40);
  for (let i = 0; i < 20; i++) x[2 * i] = 1;
  x[3] = -0;
  const key = new Float64Array(20).fill(1);
  key[2] = -1;
  const groups = rowGroups(x, 20, 2, key)!;
  assert.deepEqual([...groups.first], [0, 1, 2]);
  assert.deepEqual([...groups.of.slice(0, 4)], [0, 1, 2, 0]);
  assert.equal(groups.of.filter((g) => g === 0).length, 18);
  // More than MAX_GROUP_SHARE·n distinct rows: no groups.
  const distinct = Float64Array.from({ length: 200 }, (_, i) => i % 2 === 0 ? 1 : i);
  assert.equal(rowGroups(distinct, 100, 2, null), null);
  // Exactly MAX_GROUP_SHARE·n distinct rows: groups.
  const atShare = Float64Array.from({ length: 200 }, (_, i) => i % 2 === 0 ? 1 : (i >> 1) % 25);
  assert.equal(rowGroups(atShare, 100, 2, null)?.first.length, 100 * MAX_GROUP_SHARE);
});

Deno.test("the logistic model's grouped records give the per-record loop's values bit for bit", () => {
  // An outcome code 2 is not 0 or 1: ℓ = −∞ for that record, in both loops.
  const design = factorDesign(400, (i, rng) => i === 17 ? 2 : rng.uniform() < 0.3 ? 1 : 0);
  const grouped = new LogisticModel(design);
  assert.notEqual(rowGroups(design.x, design.n, design.k, null), null);
  assertSameBits(grouped, new LogisticModel(design, { groupRows: false, simd: false }), 5);
});

Deno.test("the categorical model's grouped records give the per-record loop's values bit for bit", () => {
  const design = factorDesign(
    400,
    (i, rng) => i === 17 ? 7 : Math.floor(rng.uniform() * 4),
    ["a", "b", "c", "d"],
  );
  assertSameBits(
    new CategoricalModel(design),
    new CategoricalModel(design, { groupRows: false, simd: false }),
    6,
  );
});
