import assert from "node:assert/strict";
import {
  laplaceNoiseGrid,
  laplaceQueryGrid,
  type RandomBytes,
  sampleDiscreteLaplace,
  secureLaplace,
  secureLaplaceNoise,
} from "../../src/mechanisms/secure_laplace.ts";
import { Rng } from "../../src/random/rng.ts";
import { chiSquareTest, ksTest, momentsWithin } from "../random/_stats.ts";

/** Significance level of every goodness-of-fit test (ARCHITECTURE.md: α = 1e-6). */
const ALPHA = 1e-6;
const N = 20000;
const SEEDS = [1, 2, 3];

/** A reproducible byte source: the little-endian bytes of the Philox stream `Rng(seed)`. */
function seededBytes(seed: number): RandomBytes {
  const rng = new Rng(seed);
  return (n) => {
    const out = new Uint8Array(n);
    let word = 0;
    for (let i = 0; i < n; i++) {
      if (i % 4 === 0) word = rng.nextUint32();
      out[i] = (word >>> (8 * (i % 4))) & 0xff;
    }
    return out;
  };
}

function draws(n: number, draw: () => number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = draw();
  return out;
}

/** Two-sided geometric pmf of Lap_ℤ(τ): tanh(1/(2τ))·e^{−|z|/τ}. */
const discreteLaplacePmf = (tau: number) => (z: number) =>
  Math.tanh(1 / (2 * tau)) * Math.exp(-Math.abs(z) / tau);

/** Var of Lap_ℤ(τ): 2q/(1 − q)², q = e^{−1/τ}. */
function discreteLaplaceVariance(tau: number): number {
  const q = Math.exp(-1 / tau);
  return 2 * q / (1 - q) ** 2;
}

/** CDF of the continuous Laplace(0, b). */
const laplaceCdf = (b: number) => (x: number) =>
  x < 0 ? 0.5 * Math.exp(x / b) : 1 - 0.5 * Math.exp(-x / b);

function assertKs(sample: Float64Array, cdf: (x: number) => number, label: string): void {
  const fit = ksTest(sample, cdf);
  assert.ok(fit.pValue > ALPHA, `${label}: KS D=${fit.statistic}, p=${fit.pValue}`);
}

function assertMoments(sample: Float64Array, variance: number, label: string): void {
  const r = momentsWithin(sample, 0, variance, 5);
  assert.ok(r.ok, `${label}: ${r.detail}`);
}

Deno.test("`sampleDiscreteLaplace()` matches the two-sided geometric pmf at coarse scales (chi-square)", () => {
  const scales: [bigint, bigint][] = [[3n, 1n], [7n, 3n], [1n, 2n]];
  for (const [numerator, denominator] of scales) {
    const tau = Number(numerator) / Number(denominator);
    for (const seed of SEEDS) {
      const bytes = seededBytes(seed);
      const sample = draws(
        N,
        () => Number(sampleDiscreteLaplace({ numerator, denominator }, bytes)),
      );
      const fit = chiSquareTest(sample, discreteLaplacePmf(tau), -Math.ceil(25 * tau));
      assert.ok(fit.cells >= 5, `τ=${tau}: only ${fit.cells} cells`);
      assert.ok(
        fit.pValue > ALPHA,
        `τ=${tau}, seed ${seed}: chi-square=${fit.statistic} on ${
          fit.cells - 1
        } df, p=${fit.pValue}`,
      );
      assertMoments(sample, discreteLaplaceVariance(tau), `τ=${tau}, seed ${seed}`);
    }
  }
});

Deno.test("`secureLaplaceNoise()` matches the continuous Laplace(0, b) at its fine grid (KS, moments)", () => {
  for (const b of [1.7, 0.25, 3e6]) {
    for (const seed of SEEDS) {
      const bytes = seededBytes(seed);
      const sample = draws(N, () => secureLaplaceNoise(b, bytes));
      assertKs(sample, laplaceCdf(b), `b=${b}, seed ${seed}`);
      assertMoments(sample, 2 * b * b, `b=${b}, seed ${seed}`);
    }
  }
});

Deno.test("`secureLaplace()` releases the value plus Laplace(0, Δ/ε) (KS, moments)", () => {
  const value = 5;
  for (const [sensitivity, epsilon] of [[1, 0.5], [2, 8]]) {
    const b = sensitivity / epsilon;
    for (const seed of SEEDS) {
      const bytes = seededBytes(seed);
      const sample = draws(
        N,
        () => secureLaplace(value, { sensitivity, epsilon, randomBytes: bytes }) - value,
      );
      assertKs(sample, laplaceCdf(b), `Δ=${sensitivity}, ε=${epsilon}, seed ${seed}`);
      assertMoments(sample, 2 * b * b, `Δ=${sensitivity}, ε=${epsilon}, seed ${seed}`);
    }
  }
});

Deno.test("`secureLaplace()` and `secureLaplaceNoise()` outputs lie exactly on the grid", () => {
  const bytes = seededBytes(7);
  for (
    const [value, sensitivity, epsilon] of [[1 / 3, 0.1, 0.7], [-123.456, 1, 0.05], [0, 1e-9, 3]]
  ) {
    const step = laplaceQueryGrid(sensitivity, epsilon).step;
    for (let i = 0; i < 200; i++) {
      const release = secureLaplace(value, { sensitivity, epsilon, randomBytes: bytes });
      assert.ok(Number.isInteger(release / step), `${release} is not a multiple of ${step}`);
    }
  }
  for (const b of [2, 0.3, 1e9]) {
    const step = laplaceNoiseGrid(b).step;
    assert.ok(step <= 1);
    for (let i = 0; i < 200; i++) {
      const noise = secureLaplaceNoise(b, bytes);
      assert.ok(Number.isInteger(noise / step), `${noise} is not a multiple of ${step}`);
      assert.ok(Number.isInteger((17 + noise) / step), "count + noise stays on the grid");
    }
  }
});

Deno.test("`secureLaplace()` output is the grid value plus noise independent of the value (no Mironov leak)", () => {
  const options = { sensitivity: 1, epsilon: 0.5 };
  const step = laplaceQueryGrid(options.sensitivity, options.epsilon).step;
  for (const value of [1 / 3, 1e6 + 0.1, -7.123456789, 2 ** -30]) {
    const onGrid = Math.round(value / step) * step;
    const withValue = seededBytes(11);
    const atZero = seededBytes(11);
    for (let i = 0; i < 500; i++) {
      const release = secureLaplace(value, { ...options, randomBytes: withValue });
      const noise = secureLaplace(0, { ...options, randomBytes: atZero });
      assert.equal(release - onGrid, noise, `value ${value}, draw ${i}`);
    }
  }
});

Deno.test("`laplaceQueryGrid()` rounds Δ up to the grid and sets τ = Δ_γ/ε exactly", () => {
  // Exact binary values: 0.1 = 3602879701896397·2^−55, 1/3 = 6004799503160661·2^−54.
  assert.equal(3602879701896397 / 2 ** 55, 0.1);
  assert.equal(6004799503160661 / 2 ** 54, 1 / 3);
  const cases: [number, number, bigint, bigint, bigint, bigint][] = [
    // [Δ, ε, Δ numerator, Δ denominator, ε numerator, ε denominator]
    [1 / 3, 0.1, 6004799503160661n, 2n ** 54n, 3602879701896397n, 2n ** 55n],
    [1, 0.75, 1n, 1n, 3n, 4n],
    [2, 8, 2n, 1n, 8n, 1n],
    [1 / 3, 8, 6004799503160661n, 2n ** 54n, 8n, 1n],
    [3 * 2 ** 1000, 1, 3n * 2n ** 1000n, 1n, 1n, 1n],
    [(2 ** 53 - 1) * 2 ** 950, 1, (2n ** 53n - 1n) * 2n ** 950n, 1n, 1n, 1n],
  ];
  for (const [sensitivity, epsilon, dNum, dDen, eNum, eDen] of cases) {
    const grid = laplaceQueryGrid(sensitivity, epsilon);
    const bound = Math.min(sensitivity, sensitivity / epsilon) * 2 ** -20;
    assert.equal(grid.step, 2 ** grid.exponent);
    assert.ok(grid.step <= bound && 2 * grid.step > bound, `step ${grid.step} for ${bound}`);
    // Δ_γ = ⌈Δ/γ⌉: Δ_γ·γ ≥ Δ > (Δ_γ − 1)·γ, in exact rationals.
    const k = BigInt(-grid.exponent);
    const [stepNum, stepDen] = k >= 0n ? [1n, 2n ** k] : [2n ** -k, 1n];
    const steps = grid.sensitivitySteps;
    assert.ok(steps * stepNum * dDen >= dNum * stepDen, `Δ=${sensitivity}: Δ_γ·γ ≥ Δ`);
    assert.ok((steps - 1n) * stepNum * dDen < dNum * stepDen, `Δ=${sensitivity}: (Δ_γ − 1)·γ < Δ`);
    // Δ_γ/τ = ε exactly: Δ_γ·denominator/numerator = eNum/eDen.
    assert.equal(
      steps * grid.scale.denominator * eDen,
      grid.scale.numerator * eNum,
      `ε=${epsilon}`,
    );
  }
});

Deno.test("`laplaceNoiseGrid()` uses a power-of-two step ≤ min(1, b·2^−20) and τ·γ = b exactly", () => {
  for (const b of [2, 0.1, 1 / 3, 5e-200, 3e6, 1e300]) {
    const grid = laplaceNoiseGrid(b);
    const bound = Math.min(1, b * 2 ** -20);
    assert.equal(grid.step, 2 ** grid.exponent);
    assert.ok(grid.step <= bound && 2 * grid.step > bound, `b=${b}: step ${grid.step}`);
    const { numerator, denominator } = grid.scale;
    const k = grid.exponent;
    // τ·γ = b: numerator·2^k / denominator, compared as exact rationals via b's float value.
    assert.equal(Number(numerator) / Number(denominator) * 2 ** k, b);
    assert.ok(numerator >= denominator, "τ ≥ 1");
  }
});

Deno.test("`secureLaplace()` and `secureLaplaceNoise()` default to crypto.getRandomValues", () => {
  const original = crypto.getRandomValues;
  let calls = 0;
  crypto.getRandomValues = ((array: Uint8Array) => {
    calls++;
    return original.call(crypto, array);
  }) as typeof crypto.getRandomValues;
  try {
    const releases = new Set<number>();
    for (let i = 0; i < 20; i++) releases.add(secureLaplace(0, { sensitivity: 1, epsilon: 1 }));
    assert.ok(releases.size > 15, `only ${releases.size} distinct releases in 20`);
    const noises = new Set<number>();
    for (let i = 0; i < 20; i++) noises.add(secureLaplaceNoise(1));
    assert.ok(noises.size > 15, `only ${noises.size} distinct noises in 20`);
    assert.ok(calls > 0, "crypto.getRandomValues was not called");
  } finally {
    crypto.getRandomValues = original;
  }
});

Deno.test("`secureLaplace()` rejects invalid inputs with errors naming the parameter", () => {
  const ok = { sensitivity: 1, epsilon: 1 };
  for (const value of [NaN, Infinity, -Infinity]) {
    assert.throws(() => secureLaplace(value, ok), (e: Error) => {
      assert.ok(e instanceof RangeError);
      assert.match(e.message, /^Invalid value: must be finite$/);
      return true;
    });
  }
  for (const sensitivity of [0, -1, NaN, Infinity]) {
    assert.throws(() => secureLaplace(0, { sensitivity, epsilon: 1 }), {
      name: "RangeError",
      message: `Invalid sensitivity: must be positive and finite: sensitivity=${sensitivity}`,
    });
  }
  for (const epsilon of [0, -0.5, NaN, Infinity]) {
    assert.throws(() => secureLaplace(0, { sensitivity: 1, epsilon }), {
      name: "RangeError",
      message: `Invalid epsilon: must be positive and finite: epsilon=${epsilon}`,
    });
  }
  assert.throws(() => secureLaplace(0, { sensitivity: 1e300, epsilon: 1e-300 }), {
    name: "RangeError",
    message: /^Invalid epsilon: sensitivity\/epsilon must be a positive finite float64/,
  });
  assert.throws(() => secureLaplace(0, { sensitivity: 1e-300, epsilon: 1e300 }), {
    name: "RangeError",
    message: /^Invalid epsilon/,
  });
  assert.throws(() => secureLaplace(0, { sensitivity: 1e-305, epsilon: 1 }), {
    name: "RangeError",
    message: /^Invalid sensitivity: too small for a float64 grid/,
  });
  for (const scale of [0, -2, NaN, Infinity]) {
    assert.throws(() => secureLaplaceNoise(scale), {
      name: "RangeError",
      message: `Invalid scale: must be positive and finite: scale=${scale}`,
    });
  }
  assert.throws(() => secureLaplaceNoise(1e-305), {
    name: "RangeError",
    message: /^Invalid scale: too small for a float64 grid/,
  });
  assert.throws(() => sampleDiscreteLaplace({ numerator: 0n, denominator: 1n }), {
    name: "RangeError",
    message: "Invalid scale: numerator and denominator must be positive BigInts: scale=0/1",
  });
  assert.throws(() => secureLaplaceNoise(1, (n) => new Uint8Array(n - 1)), {
    name: "TypeError",
    message: /^Invalid randomBytes: must return a Uint8Array of \d+ bytes: got \d+ bytes$/,
  });
});
