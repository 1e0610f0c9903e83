import assert from "node:assert/strict";
import {
  gpdFit,
  psis,
  psisTailLength,
  psisThreshold,
  weightedUpperQuantile,
} from "../../src/stats/psis.ts";

// Reference values: Rscript test/reference/psis_reference.R (R package loo 2.5.1,
// loo::psis(log_ratios, r_eff = 1)).
const REFERENCE = new URL("../reference/", import.meta.url);

/** JSON numbers, with loo's infinite k written as the string "Inf". */
type JsonNumber = number | "Inf" | "-Inf" | null;

interface ExpectedSet {
  S: number;
  true_k: JsonNumber;
  pareto_k: JsonNumber;
  tail_len: number;
  n_eff: number;
  sum_w2: number;
  top10_log_weights: number[];
  warnings: string[];
  log_ratios: number[];
  log_weights: number[];
}

const expected: { sets: Record<string, ExpectedSet> } = JSON.parse(
  await Deno.readTextFile(new URL("psis_expected.json", REFERENCE)),
);

function toNumber(x: JsonNumber): number {
  if (x === "Inf") return Infinity;
  if (x === "-Inf") return -Infinity;
  return x === null ? NaN : x;
}

function assertClose(actual: number, wanted: number, tolerance: number, what: string): void {
  assert.ok(
    Math.abs(actual - wanted) <= tolerance,
    `${what}: got ${actual}, want ${wanted} (tolerance ${tolerance})`,
  );
}

const SET_NAMES = [
  "wider_s1000",
  "wider_s4000",
  "heavy_s4000",
  "light_s1000",
  "shifted_s1000",
  "small_s100",
  "tiny_s20",
  "rounded_s1000",
  "constant_s1000",
];

Deno.test("the reference file holds every set", () => {
  assert.deepEqual(Object.keys(expected.sets).sort(), [...SET_NAMES].sort());
});

for (const name of SET_NAMES) {
  Deno.test(`psis matches loo::psis(r_eff = 1): ${name}`, () => {
    const set = expected.sets[name];
    const logRatios = Float64Array.from(set.log_ratios);
    assert.equal(logRatios.length, set.S);
    const result = psis(logRatios);

    const wantK = toNumber(set.pareto_k);
    if (Number.isFinite(wantK)) assertClose(result.paretoK, wantK, 1e-6, "pareto k");
    else assert.equal(result.paretoK, wantK);
    assert.equal(result.tailLength, set.tail_len);

    // Weights to 1e-8 relative: |w − w_R| ≤ 1e-8·w_R, i.e. |log w − log w_R| ≲ 1e-8.
    assert.equal(result.logWeights.length, set.S);
    for (let i = 0; i < set.S; i++) {
      const relative = Math.abs(Math.expm1(result.logWeights[i] - set.log_weights[i]));
      assert.ok(
        relative <= 1e-8,
        `weight ${i}: log weight ${result.logWeights[i]}, loo ${set.log_weights[i]}`,
      );
    }
    const top10 = result.logWeights.slice().sort().reverse().slice(0, 10);
    top10.forEach((lw, i) =>
      assertClose(lw, set.top10_log_weights[i], 1e-8, `${i + 1}-th largest log weight`)
    );
    let sumW2 = 0;
    for (const lw of result.logWeights) sumW2 += Math.exp(2 * lw);
    assertClose(sumW2 / set.sum_w2, 1, 1e-8, "sum of squared weights / loo's");
    assertClose(result.essIs / set.n_eff, 1, 1e-8, "essIs / loo's n_eff");
  });
}

Deno.test("the reference k estimates sit near the known tail shapes", () => {
  // A sanity check on the reference sets themselves, not on loo: heavy > 0.7 > wider > light.
  const k = (name: string) => toNumber(expected.sets[name].pareto_k);
  assert.ok(k("heavy_s4000") > 0.7);
  assert.ok(k("wider_s1000") < 0.5 && k("wider_s4000") < 0.5 && k("small_s100") < 0.5);
  assert.ok(k("light_s1000") < 0);
});

Deno.test("psis: equal log ratios give equal weights and k = Infinity (as loo)", () => {
  for (const s of [1, 5, 20, 21, 1000]) {
    const { logWeights, paretoK, essIs, tailLength } = psis(new Float64Array(s).fill(-2.5));
    assert.equal(paretoK, Infinity, `S = ${s}`);
    assert.equal(tailLength, psisTailLength(s));
    for (const lw of logWeights) assertClose(lw, -Math.log(s), 1e-12, `log weight, S = ${s}`);
    assertClose(essIs, s, 1e-9 * s, `essIs, S = ${s}`);
  }
});

for (
  const [name, truncated] of [["heavy_s4000", 0], ["wider_s1000", 2], ["light_s1000", 3]] as const
) {
  Deno.test(`psis: shift invariant, body untouched, truncated at the largest ratio: ${name}`, () => {
    const logRatios = Float64Array.from(expected.sets[name].log_ratios);
    const base = psis(logRatios);
    const shifted = psis(logRatios.map((r) => r - 1000));
    assertClose(shifted.paretoK, base.paretoK, 1e-10, "k after a shift");
    for (let i = 0; i < logRatios.length; i++) {
      assertClose(shifted.logWeights[i], base.logWeights[i], 1e-9, `log weight ${i} after a shift`);
    }
    // Below the tail the weights are the raw ratios over one normalising constant.
    const sorted = logRatios.slice().sort();
    const cutoff = sorted[logRatios.length - base.tailLength - 1];
    const maxRatio = sorted[logRatios.length - 1];
    const offsets: number[] = [];
    for (let i = 0; i < logRatios.length; i++) {
      if (logRatios[i] <= cutoff) offsets.push(base.logWeights[i] - logRatios[i]);
    }
    assert.equal(offsets.length, logRatios.length - base.tailLength);
    for (const offset of offsets) assertClose(offset, offsets[0], 1e-12, "body offset");
    // No weight exceeds the largest raw ratio's; where the smoothed tail overshoots it, it is
    // truncated to that value.
    const cap = maxRatio + offsets[0];
    let atCap = 0;
    for (const lw of base.logWeights) {
      assert.ok(lw <= cap + 1e-12, `log weight ${lw} above the cap ${cap}`);
      if (Math.abs(lw - cap) < 1e-12) atCap++;
    }
    if (truncated === 0) assert.ok(atCap <= 1, `${atCap} draws at the cap`);
    else assert.ok(atCap >= truncated, `expected truncated tail draws, found ${atCap} at the cap`);
    let total = 0;
    for (const lw of base.logWeights) total += Math.exp(lw);
    assertClose(total, 1, 1e-12, "sum of weights");
  });
}

Deno.test("psis: rejects empty and non-finite input", () => {
  assert.throws(() => psis(new Float64Array(0)), RangeError);
  assert.throws(() => psis(new Float64Array(0)), /logRatios must hold at least one value/);
  for (const bad of [NaN, Infinity, -Infinity]) {
    const x = new Float64Array(50);
    x[7] = bad;
    assert.throws(
      () => psis(x),
      (e) => e instanceof RangeError && /logRatios\[7\]/.test(e.message),
    );
  }
});

Deno.test("psisTailLength: ⌈min(0.2·S, 3·√S)⌉", () => {
  assert.equal(psisTailLength(20), 4);
  assert.equal(psisTailLength(21), 5);
  assert.equal(psisTailLength(100), 20);
  assert.equal(psisTailLength(225), 45); // both rules give 45
  assert.equal(psisTailLength(1000), 95);
  assert.equal(psisTailLength(4000), 190);
  assert.throws(() => psisTailLength(0), RangeError);
  assert.throws(() => psisTailLength(2.5), RangeError);
});

Deno.test("psisThreshold: min(1 − 1/log10 S, 0.7) (loo ≥ 2.6)", () => {
  assert.equal(psisThreshold(100), 0.5);
  assertClose(psisThreshold(1000), 2 / 3, 1e-15, "S = 1000");
  assertClose(psisThreshold(320), 1 - 1 / Math.log10(320), 0, "S = 320");
  assert.ok(Math.abs(psisThreshold(320) - 0.6) < 0.001);
  assert.equal(psisThreshold(2200), 0.7);
  assert.equal(psisThreshold(4000), 0.7);
  assert.equal(psisThreshold(10), 0);
  assert.equal(psisThreshold(1), -Infinity);
  assert.throws(() => psisThreshold(0), RangeError);
  assert.throws(() => psisThreshold(NaN), RangeError);
});

Deno.test("gpdFit: recovers the shape of GPD quantiles; the prior shrinks k towards 0.5", () => {
  const n = 4000;
  for (const [k, sigma] of [[0.5, 2], [0.2, 1], [-0.3, 0.5], [0.9, 3]]) {
    // Expected order statistics of GPD(0, sigma, k): sigma·((1 − p)^(−k) − 1)/k.
    const x = Float64Array.from(
      { length: n },
      (_, i) => (sigma * Math.expm1(-k * Math.log1p(-(i + 0.5) / n))) / k,
    );
    const raw = gpdFit(x, false);
    assertClose(raw.k, k, 0.02, `k, true ${k}`);
    assertClose(raw.sigma / sigma, 1, 0.03, `sigma, true ${sigma}`);
    const adjusted = gpdFit(x);
    assertClose(adjusted.k, (n * raw.k + 10 * 0.5) / (n + 10), 1e-12, "prior-adjusted k");
    assert.equal(adjusted.sigma, raw.sigma); // sigma keeps the unadjusted k, as in loo
  }
  assert.throws(() => gpdFit(new Float64Array(0)), RangeError);
});

Deno.test("weightedUpperQuantile: equal weights and p > 1 − 1/S give the maximum", () => {
  let seed = 12345;
  const uniform = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (const s of [1, 2, 3, 7, 10, 100, 999, 1000, 4000, 10007]) {
    const values = Float64Array.from({ length: s }, () => uniform() * 100 - 50);
    let max = -Infinity;
    for (const v of values) max = Math.max(max, v);
    const p = 0.5 ** (1 / s);
    assert.ok(p > 1 - 1 / s);
    for (const fill of [0, -Math.log(s), -1234.5]) {
      const logWeights = new Float64Array(s).fill(fill);
      assert.equal(weightedUpperQuantile(values, logWeights, p), max, `S = ${s}, fill ${fill}`);
      assert.equal(weightedUpperQuantile(values, logWeights, 1), max);
      // The smallest p above 1 − 1/S (for S ≥ 2 the next double after it).
      if (s >= 2) {
        const justAbove = nextUp(1 - 1 / s);
        if (justAbove > 1 - 1 / s) {
          assert.equal(weightedUpperQuantile(values, logWeights, justAbove), max);
        }
      }
    }
  }
});

/** The next double above x (x > 0). */
function nextUp(x: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  return view.getFloat64(0);
}

Deno.test("weightedUpperQuantile: hand-computed weighted cases", () => {
  // Values 1, 2, 3, 4 (shuffled) with weights 1/8, 1/8, 1/4, 1/2: CDF 0.125, 0.25, 0.5, 1.
  const values = Float64Array.of(3, 1, 4, 2);
  const logWeights = Float64Array.of(Math.log(2), 0, Math.log(4), 0);
  const q = (p: number) => weightedUpperQuantile(values, logWeights, p);
  assert.equal(q(0), 1);
  assert.equal(q(0.1), 1);
  assert.equal(q(0.125), 1);
  assert.equal(q(0.2), 2);
  assert.equal(q(0.25), 2); // the CDF reaches p exactly: ≥ p holds
  assert.equal(q(0.26), 3);
  assert.equal(q(0.5), 3);
  assert.equal(q(0.5000001), 4);
  assert.equal(q(1), 4);
  // Ties: {5, 5, 1} equal weights; P(≤ 1) = 1/3.
  assert.equal(weightedUpperQuantile(Float64Array.of(5, 1, 5), new Float64Array(3), 0.3), 1);
  assert.equal(weightedUpperQuantile(Float64Array.of(5, 1, 5), new Float64Array(3), 0.34), 5);
  // A zero weight (log weight −∞) at the top is never the answer: P(≤ 2) is already 1.
  const zeroTop = Float64Array.of(10, 1, 2);
  const lwZero = Float64Array.of(-Infinity, 0, 0);
  assert.equal(weightedUpperQuantile(zeroTop, lwZero, 0.99), 2);
  assert.equal(weightedUpperQuantile(zeroTop, lwZero, 1), 2);
});

Deno.test("weightedUpperQuantile: agrees with the cumulative-sum definition on PSIS weights", () => {
  const set = expected.sets["heavy_s4000"];
  const values = Float64Array.from(set.log_ratios, (r, i) => r + Math.sin(i)); // any values
  const { logWeights } = psis(Float64Array.from(set.log_ratios));
  const order = Array.from(values.keys()).sort((a, b) => values[a] - values[b]);
  for (const p of [0.01, 0.1, 0.37, 0.5, 0.9, 0.99, 0.5 ** (1 / 4000)]) {
    let cumulative = 0;
    let want = NaN;
    for (const i of order) {
      cumulative += Math.exp(logWeights[i]);
      if (cumulative >= p) {
        want = values[i];
        break;
      }
    }
    if (Number.isNaN(want)) want = values[order[order.length - 1]];
    assert.equal(weightedUpperQuantile(values, logWeights, p), want, `p = ${p}`);
  }
});

Deno.test("weightedUpperQuantile: rejects bad input", () => {
  const v = Float64Array.of(1, 2, 3);
  const w = new Float64Array(3);
  assert.throws(() => weightedUpperQuantile(new Float64Array(0), new Float64Array(0), 0.5), {
    name: "RangeError",
    message: /values must hold at least one value/,
  });
  assert.throws(() => weightedUpperQuantile(v, new Float64Array(2), 0.5), /logWeights must be/);
  assert.throws(() => weightedUpperQuantile(v, w, 1.5), /p must be in \[0, 1\]/);
  assert.throws(() => weightedUpperQuantile(v, w, NaN), /p must be in \[0, 1\]/);
  assert.throws(() => weightedUpperQuantile(Float64Array.of(1, NaN, 3), w, 0.5), /values\[1\]/);
  assert.throws(() => weightedUpperQuantile(v, Float64Array.of(0, NaN, 0), 0.5), /logWeights\[1\]/);
  assert.throws(() => weightedUpperQuantile(v, Float64Array.of(0, Infinity, 0), 0.5), RangeError);
  assert.throws(
    () => weightedUpperQuantile(v, new Float64Array(3).fill(-Infinity), 0.5),
    /at least one finite/,
  );
});
