import assert from "node:assert/strict";
import {
  type NoisyHistogram,
  perturbedHistogram,
  sampleFromHistogram,
} from "../../src/mechanisms/histogram.ts";
import { sampleBeta, sampleLaplace } from "../../src/random/distributions.ts";
import { Rng } from "../../src/random/rng.ts";

/**
 * Upper 1e-6 quantiles of χ² with 1..12 degrees of freedom, from R 4.x:
 *   options(digits = 17); qchisq(1e-6, 1:12, lower.tail = FALSE)
 */
const CHI_SQUARE_1E6 = [
  23.928126976934827,
  27.631021115928547,
  30.664849706213598,
  33.376841581719844,
  35.888186879672872,
  38.258336377209687,
  40.521831234179864,
  42.700913926544267,
  44.810937870687823,
  46.863046846784385,
  48.865642763203638,
  50.825252138874447,
];

const zero = () => 0;

Deno.test("`perturbedHistogram()` counts exactly when the noise is 0", () => {
  // Bins [0, 0.25), [0.25, 0.5), [0.5, 0.75), [0.75, 1]: edges go to the bin above, 1 to the last.
  const y = new Float64Array([0, 0.1, 0.25, 0.3, 0.5, 0.74, 0.75, 1, 1, 0.9]);
  const scales: number[] = [];
  const h = perturbedHistogram(y, {
    lower: 0,
    upper: 1,
    bins: 4,
    epsilon: 0.5,
    noise: (scale) => {
      scales.push(scale);
      return 0;
    },
  });
  assert.deepEqual([...h.edges], [0, 0.25, 0.5, 0.75, 1]);
  assert.deepEqual([...h.counts], [2, 2, 2, 4]);
  assert.deepEqual([...h.probabilities], [0.2, 0.2, 0.2, 0.4]);
  // One Laplace draw per bin at scale 1/ε (add/remove sensitivity 1).
  assert.deepEqual(scales, [2, 2, 2, 2]);
});

Deno.test("`perturbedHistogram()` adds the noise, clamps at 0 and normalises", () => {
  const noises = [-5, 1.5, 0.5, -0.5];
  let call = 0;
  const h = perturbedHistogram(new Float64Array([1, 3, 5, 7, 7]), {
    lower: 0,
    upper: 8,
    bins: 4,
    epsilon: 1,
    noise: () => noises[call++],
  });
  // True counts (1, 1, 1, 2) + noise = (−4, 2.5, 1.5, 1.5) → (0, 2.5, 1.5, 1.5), sum 5.5.
  assert.deepEqual([...h.counts], [0, 2.5, 1.5, 1.5]);
  assert.deepEqual([...h.probabilities], [0, 2.5 / 5.5, 1.5 / 5.5, 1.5 / 5.5]);
});

Deno.test("`perturbedHistogram()` uses ⌈n^{1/3}⌉ bins by default", () => {
  for (const [n, k] of [[1, 1], [8, 2], [9, 3], [27, 3], [1000, 10], [1001, 11]]) {
    const h = perturbedHistogram(new Float64Array(n).fill(0.5), {
      lower: 0,
      upper: 1,
      epsilon: 1,
      noise: zero,
    });
    assert.equal(h.counts.length, k, `n = ${n}`);
    assert.equal(h.edges.length, k + 1, `n = ${n}`);
  }
});

Deno.test("`perturbedHistogram()` falls back to uniform when every noisy count is ≤ 0", () => {
  const h = perturbedHistogram(new Float64Array([0.2, 0.6]), {
    lower: 0,
    upper: 1,
    bins: 4,
    epsilon: 1,
    noise: () => -10,
  });
  assert.deepEqual([...h.counts], [0, 0, 0, 0]);
  assert.deepEqual([...h.probabilities], [0.25, 0.25, 0.25, 0.25]);
});

Deno.test("`perturbedHistogram()` names the row of a value outside the bounds, not its value", () => {
  const options = { lower: 0, upper: 1, bins: 2, epsilon: 1, noise: zero };
  assert.throws(
    () => perturbedHistogram(new Float64Array([0.5, 0.2, 1.25]), options),
    (error: Error) =>
      error instanceof RangeError && /row 2/.test(error.message) &&
      !error.message.includes("1.25"),
  );
  assert.throws(() => perturbedHistogram(new Float64Array([NaN]), options), /row 0/);
  assert.throws(() => perturbedHistogram(new Float64Array(0), options), /Invalid y/);
  const y = new Float64Array([0.5]);
  assert.throws(() => perturbedHistogram(y, { ...options, upper: 0 }), /upper=0/);
  assert.throws(() => perturbedHistogram(y, { ...options, lower: NaN }), /lower=NaN/);
  assert.throws(() => perturbedHistogram(y, { ...options, epsilon: 0 }), /epsilon=0/);
  assert.throws(() => perturbedHistogram(y, { ...options, bins: 0 }), /bins=0/);
  assert.throws(() => perturbedHistogram(y, { ...options, bins: 2.5 }), /bins=2.5/);
  assert.throws(() => perturbedHistogram(y, { ...options, noise: () => NaN }), /noise/);
});

/** Index of the bin of v: [e_j, e_{j+1}), the last one closed. */
function binOf(edges: Float64Array, v: number): number {
  const k = edges.length - 1;
  for (let j = 0; j < k - 1; j++) if (v < edges[j + 1]) return j;
  return k - 1;
}

Deno.test("`sampleFromHistogram()` draws inside positive bins with the histogram's frequencies", () => {
  const rng = new Rng(20240611);
  const dataRng = rng.split(1);
  const y = Float64Array.from({ length: 1000 }, () => sampleBeta(dataRng, 0.5, 3));
  const noiseRng = rng.split(2);
  const hist = perturbedHistogram(y, {
    lower: 0,
    upper: 1,
    epsilon: 1,
    noise: (scale) => sampleLaplace(noiseRng, 0, scale),
  });
  const draws = 20000;
  const values = sampleFromHistogram(hist, draws, rng.split(3));
  const observed = new Float64Array(hist.probabilities.length);
  for (const v of values) {
    assert.ok(v >= 0 && v <= 1);
    const j = binOf(hist.edges, v);
    assert.ok(hist.probabilities[j] > 0, `draw in bin ${j} of probability 0`);
    observed[j]++;
  }
  let statistic = 0;
  let positive = 0;
  for (let j = 0; j < observed.length; j++) {
    const expected = draws * hist.probabilities[j];
    if (expected === 0) continue;
    positive++;
    statistic += (observed[j] - expected) ** 2 / expected;
  }
  assert.ok(positive >= 2);
  assert.ok(
    statistic < CHI_SQUARE_1E6[positive - 2],
    `χ² = ${statistic} on ${positive - 1} df`,
  );
});

Deno.test("`sampleFromHistogram()` never draws from a bin of probability 0", () => {
  const hist: NoisyHistogram = {
    counts: new Float64Array([0, 3, 0, 1, 0]),
    probabilities: new Float64Array([0, 0.75, 0, 0.25, 0]),
    edges: new Float64Array([0, 1, 2, 3, 4, 5]),
  };
  const values = sampleFromHistogram(hist, 2000, new Rng(7));
  for (const v of values) assert.ok((v >= 1 && v <= 2) || (v >= 3 && v <= 4), `${v}`);
});

Deno.test("`sampleFromHistogram()` rejects bad arguments naming them", () => {
  const edges = new Float64Array([0, 1, 2]);
  const good: NoisyHistogram = {
    counts: new Float64Array([1, 1]),
    probabilities: new Float64Array([0.5, 0.5]),
    edges,
  };
  const rng = new Rng(1);
  assert.throws(() => sampleFromHistogram(good, -1, rng), { name: "RangeError", message: /n=-1/ });
  assert.throws(() => sampleFromHistogram(good, 1.5, rng), /n=1.5/);
  assert.throws(
    () => sampleFromHistogram({ ...good, edges: new Float64Array([0, 1]) }, 1, rng),
    /edges/,
  );
  assert.throws(
    () => sampleFromHistogram({ ...good, probabilities: new Float64Array([0, 0]) }, 1, rng),
    /sum to 0/,
  );
  assert.throws(
    () => sampleFromHistogram({ ...good, probabilities: new Float64Array([-1, 2]) }, 1, rng),
    /probability 0/,
  );
  assert.throws(
    () => sampleFromHistogram({ ...good, edges: new Float64Array([0, 2, 1]) }, 1, rng),
    /bin 1/,
  );
  assert.equal(sampleFromHistogram(good, 0, rng).length, 0);
});
