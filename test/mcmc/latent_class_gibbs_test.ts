import assert from "node:assert/strict";
import { requestStop, stopFlag } from "../../src/data/worker_stop.ts";
import { mcseMean } from "../../src/mcmc/diagnostics.ts";
import { sampleLatentClass, TERM_SUM } from "../../src/mcmc/latent_class_gibbs.ts";
import {
  DEFAULT_LATENT_CLASS_PRIOR,
  type EncodedFile,
  LatentClassModel,
} from "../../src/models/latent_class.ts";
import { sampleBeta } from "../../src/random/distributions.ts";
import { Rng } from "../../src/random/rng.ts";
import { lgamma } from "../../src/stats/special.ts";

// Four records over two binary columns, weights with α_i ≠ 1.
const FILE: EncodedFile = {
  n: 4,
  columns: [
    { name: "a", levels: 2, codes: Int32Array.of(1, 1, 0, 0) },
    { name: "b", levels: 2, codes: Int32Array.of(1, 1, 1, 0) },
  ],
};
const ALPHA = Float64Array.of(1, 0.5, 0.8, 0.3);
const A = DEFAULT_LATENT_CLASS_PRIOR.dirichlet;

/** log B(v) = Σ log Γ(v_l) − log Γ(Σ v_l). */
function logBeta(...v: number[]): number {
  return v.reduce((s, x) => s + lgamma(x), 0) - lgamma(v.reduce((s, x) => s + x, 0));
}

/**
 * The exact pseudo posterior means, at concentration γ and truncation K, of P*(a = 1, b = 1) =
 * Σ_k π_k φ_ka[1] φ_kb[1] and of π_1: by enumeration over z ∈ {0..K−1}^n with the Beta and
 * Dirichlet integrals of the α-weighted (fractional) counts (given z, the sticks V_k ~ Beta(1 +
 * W_k, γ + Σ_{l>k} W_l) and the φ_kj are independent). Returns the unnormalised total weight and
 * the weighted sums of the two quantities.
 */
function enumerate(
  alpha: Float64Array,
  gamma: number,
  K: number,
  file: EncodedFile = FILE,
): [number, number, number] {
  let total = 0;
  let cell = 0;
  let pi = 0;
  for (let code = 0; code < K ** file.n; code++) {
    const W = new Array(K).fill(0);
    const C = Array.from({ length: K }, () => [[0, 0], [0, 0]]); // C[k][column][level]
    for (let i = 0, rest = code; i < file.n; i++, rest = Math.floor(rest / K)) {
      const k = rest % K;
      W[k] += alpha[i];
      file.columns.forEach((c, j) => C[k][j][c.codes[i]] += alpha[i]);
    }
    let logW = 0;
    const meanPi: number[] = [];
    let remaining = 1;
    for (let k = 0; k < K; k++) {
      const tail = W.slice(k + 1).reduce((s, w) => s + w, 0);
      const meanV = k === K - 1 ? 1 : (1 + W[k]) / (1 + W[k] + gamma + tail);
      if (k < K - 1) logW += logBeta(1 + W[k], gamma + tail) - logBeta(1, gamma);
      meanPi.push(remaining * meanV);
      remaining *= 1 - meanV;
      for (let j = 0; j < 2; j++) logW += logBeta(A + C[k][j][0], A + C[k][j][1]) - logBeta(A, A);
    }
    const w = Math.exp(logW);
    const phi = (k: number, j: number) => (A + C[k][j][1]) / (2 * A + C[k][j][0] + C[k][j][1]);
    total += w;
    let c = 0;
    for (let k = 0; k < K; k++) c += meanPi[k] * phi(k, 0) * phi(k, 1);
    cell += w * c;
    pi += w * meanPi[0];
  }
  return [total, cell, pi];
}

/**
 * The same means with γ ~ Gamma(a_γ, b_γ) integrated out: γ = t⁴ (smooth at 0), the midpoint rule
 * over t ∈ (0, 400^¼). The integrand is smooth and vanishes at both ends, so the rule converges
 * faster than any power of the step: 250 and 20,000 steps agree to 1e-15 (a trapezoid without its
 * t = 0 end, the rule before issue 36, was off by 2e-5 at 20,000 steps).
 */
function enumerateOverGamma(alpha: Float64Array, K: number): [number, number] {
  const { gammaShape: shape, gammaRate: rate } = DEFAULT_LATENT_CLASS_PRIOR;
  const T = 400 ** 0.25;
  const steps = 400;
  let [total, cell, pi] = [0, 0, 0];
  for (let s = 1; s <= steps; s++) {
    const t = ((s - 0.5) * T) / steps;
    const gamma = t ** 4;
    // Gamma density in γ times dγ/dt = 4t³; the constant cancels.
    const density = Math.exp((shape - 1) * Math.log(gamma) - rate * gamma) * 4 * t ** 3;
    const [w, c, p] = enumerate(alpha, gamma, K);
    total += density * w;
    cell += density * c;
    pi += density * p;
  }
  return [cell / total, pi / total];
}

/** Per-chain draws of the cell probability and π_1 from a fit. */
function perChain(model: LatentClassModel, fit: ReturnType<typeof sampleLatentClass>) {
  const cell: Float64Array[] = [];
  const pi: Float64Array[] = [];
  for (let c = 0; c < fit.chains; c++) {
    const x = new Float64Array(fit.drawsPerChain);
    const y = new Float64Array(fit.drawsPerChain);
    for (let d = 0; d < fit.drawsPerChain; d++) {
      const theta = fit.draws.subarray((c * fit.drawsPerChain + d) * fit.dim);
      for (let k = 0; k < model.K; k++) {
        x[d] += theta[k] * theta[model.phiIndex(k, 0, 1)] * theta[model.phiIndex(k, 1, 1)];
      }
      y[d] = theta[0];
    }
    cell.push(x);
    pi.push(y);
  }
  return { cell, pi };
}

function mean(chains: Float64Array[]): number {
  let sum = 0;
  let count = 0;
  for (const chain of chains) for (const v of chain) [sum, count] = [sum + v, count + 1];
  return sum / count;
}

for (const splitMerge of [0, 2]) {
  Deno.test(`sampleLatentClass() matches the exact pseudo posterior at a fixed γ (α_i ≠ 1, ${splitMerge} split–merge)`, () => {
    const model = new LatentClassModel(FILE, 3);
    const gamma = 1.5;
    const fit = sampleLatentClass(model, ALPHA, {
      seed: 3,
      chains: 4,
      warmup: 200,
      draws: 5000,
      concentration: gamma,
      splitMerge,
    });
    const [total, cell, pi] = enumerate(ALPHA, gamma, 3);
    const draws = perChain(model, fit);
    for (
      const [name, exact, chains] of [
        ["cell", cell / total, draws.cell],
        ["pi_1", pi / total, draws.pi],
      ] as const
    ) {
      const error = mcseMean(chains);
      assert.ok(error > 0 && error < 0.01, `${name}: mcse ${error}`);
      assert.ok(
        Math.abs(mean(chains) - exact) < 4 * error,
        `${name}: Gibbs ${mean(chains)} vs exact ${exact} (mcse ${error})`,
      );
    }
    // The check can fail: the unweighted posterior's value lies many standard errors away.
    const [t1, c1] = enumerate(new Float64Array(4).fill(1), gamma, 3);
    assert.ok(Math.abs(c1 / t1 - cell / total) > 10 * mcseMean(draws.cell));
  });
}

for (const splitMerge of [0, 2]) {
  Deno.test(`sampleLatentClass() matches the exact pseudo posterior with γ ~ Gamma(0.25, 0.25) (${splitMerge} split–merge)`, () => {
    const model = new LatentClassModel(FILE, 3);
    const fit = sampleLatentClass(model, ALPHA, {
      seed: 4,
      chains: 4,
      warmup: 200,
      draws: 5000,
      splitMerge,
    });
    const [cell, pi] = enumerateOverGamma(ALPHA, 3);
    const draws = perChain(model, fit);
    for (
      const [name, exact, chains] of [
        ["cell", cell, draws.cell],
        ["pi_1", pi, draws.pi],
      ] as const
    ) {
      const error = mcseMean(chains);
      assert.ok(
        Math.abs(mean(chains) - exact) < 4 * error,
        `${name}: Gibbs ${mean(chains)} vs exact ${exact} (mcse ${error})`,
      );
    }
  });
}

Deno.test("sampleLatentClass() reports Σ_i u_i at its draws, reproducibly, and flags short fits", () => {
  const model = new LatentClassModel(FILE, 2);
  const options = { seed: 5, chains: 2, warmup: 20, draws: 50 };
  const fit = sampleLatentClass(model, ALPHA, options);
  const again = sampleLatentClass(model, ALPHA, options);
  assert.deepEqual(fit.draws, again.draws);
  // Σ_i u_i from the sampler equals the model's terms at each kept draw.
  const terms = model.termMatrix(fit.draws, ALPHA);
  const sums = Array.from({ length: fit.S }, (_, s) => {
    let sum = 0;
    for (let i = 0; i < 4; i++) sum += terms[s * 4 + i];
    return sum;
  });
  const want = sums.reduce((a, b) => a + b, 0) / fit.S;
  assert.ok(Math.abs(fit.summary[TERM_SUM].mean - want) < 1e-12);
  assert.equal(fit.flagged, true); // 100 draws cannot reach a bulk ESS of 400
  assert.deepEqual(Object.keys(fit.summary), [TERM_SUM, "margin:a", "margin:b"]);
  for (let s = 0; s < fit.S; s++) {
    const theta = fit.draws.subarray(s * model.dim, (s + 1) * model.dim);
    assert.ok(Math.abs(theta[0] + theta[1] - 1) < 1e-12);
  }
});

Deno.test("sampleLatentClass() with censoring matches the censored pseudo posterior (importance sampling)", () => {
  const model = new LatentClassModel(FILE, 2);
  const gamma = 1.5;
  const censor = 1;
  // Reference: self-normalised importance sampling from the prior, weight Π_i e^{max(u_i, −C)}.
  const rng = new Rng(99);
  const theta = new Float64Array(model.dim);
  const draws = 400_000;
  let [total, squares, cell, pi] = [0, 0, 0, 0];
  const values: number[][] = [];
  for (let d = 0; d < draws; d++) {
    const v = sampleBeta(rng, 1, gamma);
    theta[0] = v;
    theta[1] = 1 - v;
    for (let k = 0; k < 2; k++) {
      for (let j = 0; j < 2; j++) {
        const p = sampleBeta(rng, A, A);
        theta[model.phiIndex(k, j, 0)] = 1 - p;
        theta[model.phiIndex(k, j, 1)] = p;
      }
    }
    let logW = 0;
    for (let i = 0; i < 4; i++) logW += Math.max(model.recordTerm(theta, i, ALPHA[i]), -censor);
    const w = Math.exp(logW);
    let c = 0;
    for (let k = 0; k < 2; k++) {
      c += theta[k] * theta[model.phiIndex(k, 0, 1)] * theta[model.phiIndex(k, 1, 1)];
    }
    total += w;
    squares += w * w;
    cell += w * c;
    pi += w * theta[0];
    if (d < 2000) values.push([w, c, theta[0]]);
  }
  const essIs = (total * total) / squares;
  const fit = sampleLatentClass(model, ALPHA, {
    seed: 6,
    chains: 4,
    warmup: 200,
    draws: 5000,
    concentration: gamma,
    censor,
  });
  const sampled = perChain(model, fit);
  for (
    const [name, exact, chains, index] of [
      ["cell", cell / total, sampled.cell, 1],
      ["pi_1", pi / total, sampled.pi, 2],
    ] as const
  ) {
    // The reference's standard error from the importance-sampling ESS and the weighted spread.
    let spread = 0;
    for (const v of values) spread += v[0] * (v[index] - exact) ** 2;
    const referenceError = Math.sqrt(spread / values.reduce((s, v) => s + v[0], 0) / essIs);
    const error = Math.hypot(mcseMean(chains), referenceError);
    assert.ok(
      Math.abs(mean(chains) - exact) < 4 * error,
      `${name}: Gibbs ${mean(chains)} vs reference ${exact} (se ${error})`,
    );
  }
  // Censoring moves the answer: the uncensored value lies many standard errors away.
  const [t0, c0] = enumerate(ALPHA, gamma, 2);
  assert.ok(Math.abs(c0 / t0 - cell / total) > 5 * mcseMean(sampled.cell));
});

Deno.test("split–merge moves keep the exact pseudo posterior on seven records (K = 3, γ fixed)", () => {
  const file: EncodedFile = {
    n: 7,
    columns: [
      { name: "a", levels: 2, codes: Int32Array.of(1, 1, 1, 0, 0, 0, 1) },
      { name: "b", levels: 2, codes: Int32Array.of(1, 1, 0, 0, 0, 1, 1) },
    ],
  };
  const alpha = Float64Array.of(1, 0.9, 0.4, 1, 0.7, 0.2, 0.6);
  const model = new LatentClassModel(file, 3);
  const gamma = 0.8;
  const fit = sampleLatentClass(model, alpha, {
    seed: 8,
    chains: 4,
    warmup: 200,
    draws: 5000,
    concentration: gamma,
    splitMerge: 3,
  });
  const [total, cell, pi] = enumerate(alpha, gamma, 3, file);
  const draws = perChain(model, fit);
  for (
    const [name, exact, chains] of [
      ["cell", cell / total, draws.cell],
      ["pi_1", pi / total, draws.pi],
    ] as const
  ) {
    const error = mcseMean(chains);
    assert.ok(
      Math.abs(mean(chains) - exact) < 4 * error,
      `${name}: Gibbs ${mean(chains)} vs exact ${exact} (mcse ${error})`,
    );
  }
});

Deno.test("sampleLatentClass() stops at the next sweep once its stop flag is set", () => {
  const model = new LatentClassModel(FILE, 2);
  const stop = stopFlag();
  const reports: number[] = [];
  // The first report (sweep 40 of 4,000) asks for the stop; the next sweep throws, before the
  // next report (sweep 80).
  assert.throws(
    () =>
      sampleLatentClass(model, null, {
        seed: 1,
        chains: 2,
        warmup: 1000,
        draws: 1000,
        stop,
        onSweep: (done) => {
          reports.push(done);
          requestStop(stop);
        },
      }),
    { name: "StopRequested" },
  );
  assert.deepEqual(reports, [40]);
});
