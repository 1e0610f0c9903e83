import assert from "node:assert/strict";
import { mcseMean } from "../../src/mcmc/diagnostics.ts";
import {
  drawsPreconditioner,
  laplacePreconditioner,
  preconditioned,
  toLatent,
  toPosition,
} from "../../src/mcmc/precondition.ts";
import type { LogDensityFn } from "../../src/mcmc/nuts.ts";
import { sample } from "../../src/mcmc/sample.ts";
import { synthesizeYOnZ } from "../_synthesis.ts";
import { sampleNegBinomial } from "../../src/random/distributions.ts";
import { Rng } from "../../src/random/rng.ts";

/** A bivariate normal with mean m, sds s and correlation r (the exact reference). */
function gaussian(m: [number, number], s: [number, number], r: number): LogDensityFn {
  const det = 1 - r * r;
  return (u, g) => {
    const a = (u[0] - m[0]) / s[0];
    const b = (u[1] - m[1]) / s[1];
    g[0] = -(a - r * b) / (det * s[0]);
    g[1] = -(b - r * a) / (det * s[1]);
    return -(a * a - 2 * r * a * b + b * b) / (2 * det);
  };
}

Deno.test("laplacePreconditioner finds a Gaussian's mean and covariance (LLᵀ = Σ)", () => {
  // Scales 10⁻³ and 1, correlation −0.9: the shape of an intercept and a binary covariate's
  // coefficient at n = 10⁵ next to a prior-dominated scale.
  const target = gaussian([4.6, -0.4], [1e-3, 1], -0.9);
  const { preconditioner: p, evaluations } = laplacePreconditioner(target, Float64Array.of(4, 0));
  assert.ok(p !== null);
  assert.equal(p.source, "laplace");
  assert.ok(Math.abs(p.mean[0] - 4.6) < 1e-9 && Math.abs(p.mean[1] + 0.4) < 1e-7, `${p.mean}`);
  const [l00, , l10, l11] = p.factor;
  const sigma = [l00 * l00, l00 * l10, l10 * l10 + l11 * l11];
  const exact = [1e-6, -0.9e-3, 1];
  sigma.forEach((v, j) => assert.ok(Math.abs(v / exact[j] - 1) < 1e-6, `Σ entry ${j}: ${v}`));
  assert.ok(evaluations < 100, `${evaluations} evaluations`);
});

Deno.test("laplacePreconditioner returns null with a reason when there is no mode", () => {
  // log p(u) = u: increasing without bound.
  const result = laplacePreconditioner((u, g) => ((g[0] = 1), u[0]), Float64Array.of(0));
  assert.equal(result.preconditioner, null);
  assert.match(result.failure ?? "", /positive definite|mode/);
});

Deno.test("toLatent inverts toPosition; the z target's gradient is Lᵀ∇u (finite differences)", () => {
  const p = drawsPreconditioner(
    Float64Array.of(0, 1, 2, 1, 3, 0, 2, 5, 1, 4, 2, 2, -1, 0, 3),
    3,
  );
  assert.ok(p !== null);
  const z = Float64Array.of(0.3, -1.2, 0.7);
  const u = toPosition(p, z, new Float64Array(3));
  const back = toLatent(p, u, new Float64Array(3));
  back.forEach((v, j) => assert.ok(Math.abs(v - z[j]) < 1e-12));
  const f: LogDensityFn = (x, g) => {
    g[0] = -x[0] + x[1];
    g[1] = x[0] - 3 * x[1];
    g[2] = -Math.sinh(x[2]);
    return -(x[0] ** 2) / 2 + x[0] * x[1] - 1.5 * x[1] ** 2 - Math.cosh(x[2]);
  };
  const fz = preconditioned(f, p);
  const grad = new Float64Array(3);
  fz(z, grad);
  for (let j = 0; j < 3; j++) {
    const h = 1e-6;
    const plus = Float64Array.from(z);
    const minus = Float64Array.from(z);
    plus[j] += h;
    minus[j] -= h;
    const scratch = new Float64Array(3);
    const numeric = (fz(plus, scratch) - fz(minus, scratch)) / (2 * h);
    assert.ok(Math.abs(numeric - grad[j]) < 1e-6 * (1 + Math.abs(numeric)), `∂z${j}`);
  }
});

Deno.test("a preconditioned sample has the target's exact moments (within 4 MCSE)", () => {
  const target = gaussian([4.6, -0.4], [1e-3, 1], -0.9);
  const { preconditioner } = laplacePreconditioner(target, Float64Array.of(4, 0));
  const r = sample(target, 2, {
    seed: 11,
    init: preconditioner!.mean,
    chains: 4,
    warmup: 300,
    draws: 1000,
    precondition: preconditioner,
  });
  for (const [j, mean, sd] of [[0, 4.6, 1e-3], [1, -0.4, 1]] as const) {
    const chains = Array.from(
      { length: 4 },
      (_, c) => Float64Array.from({ length: 1000 }, (_, s) => r.draws[(c * 1000 + s) * 2 + j]),
    );
    const all = chains.flatMap((c) => [...c]);
    const m = all.reduce((s, x) => s + x, 0) / all.length;
    const v = all.reduce((s, x) => s + (x - m) ** 2, 0) / (all.length - 1);
    assert.ok(Math.abs(m - mean) < 4 * mcseMean(chains), `u${j}: mean ${m}`);
    assert.ok(Math.abs(Math.sqrt(v) / sd - 1) < 0.1, `u${j}: sd ${Math.sqrt(v)}`);
  }
  // z is close to a standard normal, so NUTS needs short trajectories throughout.
  assert.ok(r.gradientEvaluations / (4 * 1300) < 8, `${r.gradientEvaluations} evaluations`);
});

Deno.test("a censored likelihood's kink does not leave a chain without a finite start", async () => {
  // The data of a GPU-parity test that failed: NB counts and a normal covariate, every record's
  // contribution clamped at C = ε/(2m) = 1. Finite differences across the clamp gave a far too
  // wide L, and every jittered start of the censored fit was −∞.
  const rng = new Rng(1002);
  const rows = Array.from(
    { length: 300 },
    () => `${sampleNegBinomial(rng, 80, 10)},${rng.normal().toFixed(3)}`,
  );
  const result = await synthesizeYOnZ(rows, "random.csv", {
    model: "negbin",
    mechanism: "censored",
    epsilon: 4,
    m: 2,
    seed: 7,
    backend: "cpu",
    draws: 400,
    chains: 2,
    warmup: 150,
    // What is tested is that the censored fit starts; its short chains are not a release.
    allowFlagged: true,
  });
  assert.equal(result.report.guarantee, "DP");
  assert.ok(result.report.epsilon <= 4);
});
