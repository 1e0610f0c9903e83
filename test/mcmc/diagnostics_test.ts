import assert from "node:assert/strict";
import {
  autocovariance,
  essBulk,
  essMean,
  essTail,
  mcseMean,
  rankNormalize,
  splitChains,
  splitRhat,
} from "../../src/mcmc/diagnostics.ts";
import { quantile } from "../../src/stats/quantile.ts";

// Reference values: Rscript test/reference/diagnostics_reference.R (R package posterior 1.4.0).
const REFERENCE = new URL("../reference/", import.meta.url);

interface Expected {
  rhat: number;
  ess_bulk: number;
  ess_tail: number;
  ess_mean: number;
  mcse_mean: number;
  q05: number;
  q95: number;
  median: number;
}

interface ExpectedFile {
  sets: Record<string, Expected>;
  helpers: { ties: number[]; ties_z_scale: number[]; acov: number[] };
}

const expected: ExpectedFile = JSON.parse(
  await Deno.readTextFile(new URL("diagnostics_expected.json", REFERENCE)),
);

/** The chain sets of diagnostics_draws.csv (set,chain,iteration,value; chains in order). */
async function readDraws(): Promise<Map<string, Float64Array[]>> {
  const text = await Deno.readTextFile(new URL("diagnostics_draws.csv", REFERENCE));
  const values = new Map<string, number[][]>();
  for (const line of text.trim().split("\n").slice(1)) {
    const [set, chain, , value] = line.split(",");
    if (!values.has(set)) values.set(set, []);
    const chains = values.get(set)!;
    const c = Number(chain) - 1;
    chains[c] ??= [];
    chains[c].push(Number(value));
  }
  return new Map([...values].map(([set, chains]) => [set, chains.map((c) => new Float64Array(c))]));
}

const draws = await readDraws();

function assertRelative(actual: number, wanted: number, tolerance: number, what: string) {
  const error = actual === wanted ? 0 : Math.abs(actual - wanted) / Math.abs(wanted);
  assert.ok(error <= tolerance, `${what}: got ${actual}, R gives ${wanted} (rel. error ${error})`);
}

Deno.test("the recorded draws hold every reference set", () => {
  assert.deepEqual([...draws.keys()].sort(), Object.keys(expected.sets).sort());
  for (const chains of draws.values()) assert.equal(chains.length, 4);
});

/** Each diagnostic, its name, and the key of posterior's value for it in the expected file. */
const POSTERIOR_DIAGNOSTICS = [
  ["splitRhat", splitRhat, "rhat"],
  ["essBulk", essBulk, "ess_bulk"],
  ["essTail", essTail, "ess_tail"],
  ["essMean", essMean, "ess_mean"],
  ["mcseMean", mcseMean, "mcse_mean"],
] as const;

for (const [name, diagnostic, key] of POSTERIOR_DIAGNOSTICS) {
  Deno.test(`\`${name}()\` matches posterior::${key} to 1e-6`, () => {
    for (const [set, chains] of draws) {
      assertRelative(diagnostic(chains), expected.sets[set][key], 1e-6, `${set} ${key}`);
    }
  });
}

Deno.test("`quantile()` matches R's type-7 quantile and median", () => {
  for (const [set, chains] of draws) {
    const all = new Float64Array(chains.flatMap((c) => [...c]));
    const want = expected.sets[set];
    assertRelative(quantile(all, 0.05), want.q05, 1e-14, `${set} q05`);
    assertRelative(quantile(all, 0.95), want.q95, 1e-14, `${set} q95`);
    assertRelative(quantile(all, 0.5), want.median, 1e-14, `${set} median`);
  }
});

Deno.test("`quantile()` interpolates order statistics at h = 1 + (S − 1)p", () => {
  const x = new Float64Array([4, 1, 3, 2]);
  assert.equal(quantile(x, 0.25), 1.75);
  assert.equal(quantile(x, 0), 1);
  assert.equal(quantile(x, 1), 4);
  assert.equal(quantile(x, 0.5), 2.5);
  assert.deepEqual([...x], [4, 1, 3, 2], "the input is not reordered");
  assert.throws(() => quantile(x, 1.5), RangeError);
  assert.throws(() => quantile(new Float64Array(0), 0.5), RangeError);
  assert.throws(() => quantile(new Float64Array([1, NaN]), 0.5), RangeError);
});

Deno.test("`rankNormalize()` gives tied values their average rank, as posterior::z_scale", () => {
  const z = rankNormalize(new Float64Array(expected.helpers.ties));
  expected.helpers.ties_z_scale.forEach((want, i) => {
    assert.ok(Math.abs(z[i] - want) <= 1e-14, `z[${i}] = ${z[i]}, R gives ${want}`);
  });
});

Deno.test("`autocovariance()` matches posterior's FFT autocovariance at every lag", () => {
  const x = draws.get("odd_length")![0].subarray(0, 167);
  const acov = autocovariance(x);
  const want = expected.helpers.acov;
  assert.equal(acov.length, want.length);
  want.forEach((w, k) => {
    assert.ok(Math.abs(acov[k] - w) <= 1e-13 * want[0], `lag ${k}: ${acov[k]} vs ${w}`);
  });
});

Deno.test("`autocovariance()` equals the direct sum (1/N)·Σ (x_t − x̄)(x_{t+k} − x̄)", () => {
  const x = new Float64Array([0.3, -1.2, 2.5, 0.7, 0.1, -0.4, 1.9]);
  const N = x.length;
  const m = x.reduce((a, b) => a + b) / N;
  const acov = autocovariance(x);
  for (let k = 0; k < N; k++) {
    let s = 0;
    for (let t = 0; t + k < N; t++) s += (x[t] - m) * (x[t + k] - m);
    assert.ok(Math.abs(acov[k] - s / N) < 1e-14, `lag ${k}`);
  }
  assert.deepEqual([...autocovariance(new Float64Array([2, 2, 2]))], [0, 0, 0]);
});

Deno.test("`splitChains()` halves each chain and drops the middle draw of an odd length", () => {
  const chains = [new Float64Array([1, 2, 3, 4, 5]), new Float64Array([6, 7, 8, 9, 10])];
  assert.deepEqual(splitChains(chains).map((c) => [...c]), [[1, 2], [6, 7], [4, 5], [9, 10]]);
  assert.throws(() => splitChains([]), RangeError);
  assert.throws(() => splitChains([new Float64Array(3), new Float64Array(4)]), RangeError);
});

Deno.test("`essBulk()` of antithetic chains is capped at S·log10(S)", () => {
  // AR(1) with ρ = −0.8 has τ = (1 + ρ)/(1 − ρ) ≈ 0.11 < 1/log10(2000).
  const S = 2000;
  assertRelative(essBulk(draws.get("ar1_antithetic")!), S * Math.log10(S), 1e-12, "cap");
});

Deno.test("diagnostics return NaN for constant or non-finite draws", () => {
  const constant = [new Float64Array(10).fill(3), new Float64Array(10).fill(3)];
  const broken = [Float64Array.from({ length: 10 }, (_, i) => i), new Float64Array(10)];
  broken[1][4] = Infinity;
  for (const chains of [constant, broken]) {
    for (const f of [splitRhat, essBulk, essTail, essMean, mcseMean]) {
      assert.ok(Number.isNaN(f(chains)), `${f.name}`);
    }
  }
  const short = [new Float64Array([1, 2, 3, 4]), new Float64Array([2, 1, 4, 3])];
  assert.ok(Number.isNaN(essBulk(short)), "split chains of 2 draws have no ESS");
});
