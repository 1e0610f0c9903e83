import assert from "node:assert/strict";
import { LognormalModel } from "../../src/models/lognormal.ts";
import type { Design, Model } from "../../src/models/model.ts";
import { NormalModel } from "../../src/models/normal.ts";
import { Rng } from "../../src/random/rng.ts";

/** A design of n records: an intercept, a raw-scale column near 2000 and a 0/1 column. */
function rawDesign(n: number, seed: number, positive: boolean): Design {
  const rng = new Rng(seed);
  const k = 3;
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const year = 1990 + 30 * rng.uniform();
    const flag = rng.uniform() < 0.4 ? 1 : 0;
    x.set([1, year, flag], i * k);
    const eta = -40 + 0.02 * year + 0.3 * flag + 0.5 * (rng.uniform() - 0.5);
    y[i] = positive ? Math.exp(eta) : 1e3 * eta;
  }
  return { n, k, x, y, coefficientNames: ["intercept", "year", "flag"] };
}

/** The two ways' log densities and gradients agree at u. */
function assertSame(sums: Model, loop: Model, u: Float64Array, alpha: Float64Array | null) {
  const gradSums = new Float64Array(sums.dim);
  const gradLoop = new Float64Array(loop.dim);
  const a = sums.logDensity(u, gradSums, { alpha });
  const b = loop.logDensity(u, gradLoop, { alpha });
  assert.ok(Math.abs(a - b) <= 1e-10 * Math.abs(b), `log density ${a} vs ${b}`);
  for (let j = 0; j < sums.dim; j++) {
    const scale = Math.max(1, Math.abs(gradLoop[j]));
    assert.ok(
      Math.abs(gradSums[j] - gradLoop[j]) <= 1e-8 * scale,
      `∂/∂u_${j}: ${gradSums[j]} vs ${gradLoop[j]}`,
    );
  }
}

for (
  const [name, make, positive] of [
    ["NormalModel", (d: Design, sums: boolean) => new NormalModel(d, { sums }), false],
    ["LognormalModel", (d: Design, sums: boolean) => new LognormalModel(d, { sums }), true],
  ] as const
) {
  Deno.test(`\`${name}\`: the weighting's sums give the record loop's density and gradient`, () => {
    const design = rawDesign(501, 7, positive);
    const sums = make(design, true);
    const loop = make(design, false);
    const rng = new Rng(11);
    const alpha = Float64Array.from({ length: design.n }, () => {
      const r = rng.uniform();
      return r < 0.2 ? 0 : r;
    });
    const scale = positive ? 1 : 1e3;
    for (let trial = 0; trial < 20; trial++) {
      const u = new Float64Array(sums.dim);
      u[0] = scale * (-40 + 4 * (rng.uniform() - 0.5));
      u[1] = scale * (0.02 + 0.002 * (rng.uniform() - 0.5));
      u[2] = scale * (0.3 + rng.uniform() - 0.5);
      for (let j = 3; j < 6; j++) u[j] = rng.uniform() - 0.5;
      u[6] = Math.log(scale * (0.1 + rng.uniform()));
      assertSame(sums, loop, u, alpha);
      assertSame(sums, loop, u, null);
    }
  });
}

Deno.test("`NormalModel`: censored densities and a non-finite response keep the record loop", () => {
  const design = rawDesign(40, 3, false);
  const u = Float64Array.of(-40e3, 20, 300, 0, 0, 0, Math.log(500));
  const censored = { alpha: null, censor: 0.5 };
  const gradSums = new Float64Array(7);
  const gradLoop = new Float64Array(7);
  assert.equal(
    new NormalModel(design).logDensity(u, gradSums, censored),
    new NormalModel(design, { sums: false }).logDensity(u, gradLoop, censored),
  );
  assert.deepEqual(gradSums, gradLoop);
  const y = design.y.slice();
  y[5] = NaN;
  const broken = { ...design, y };
  const alpha = new Float64Array(40).fill(0.5);
  assert.ok(Number.isNaN(new NormalModel(broken).logDensity(u, null, { alpha })));
  alpha[5] = 0; // a record of zero weight is left out of the density either way
  assertSame(new NormalModel(broken), new NormalModel(broken, { sums: false }), u, alpha);
});
