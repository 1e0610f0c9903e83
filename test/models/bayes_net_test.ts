import assert from "node:assert/strict";
import { requestStop, stopFlag } from "../../src/data/worker_stop.ts";
import { logMarginal, sampleBayesNet } from "../../src/mcmc/bayes_net_exact.ts";
import { BayesNetModel } from "../../src/models/bayes_net.ts";
import { Rng } from "../../src/random/rng.ts";

// Two binary columns and a one-level (determined) column: b depends on a.
const A = Int32Array.of(0, 0, 0, 0, 1, 1, 1, 1, 1, 0);
const B = Int32Array.of(0, 0, 0, 1, 1, 1, 1, 1, 0, 0);
const FILE = {
  n: 10,
  columns: [
    { name: "a", levels: 2, codes: A },
    { name: "fixed", levels: 1, codes: new Int32Array(10) },
    { name: "b", levels: 2, codes: B },
  ],
};
const ALPHA = Float64Array.from({ length: 10 }, (_, i) => 0.3 + 0.07 * i);
const PRIOR = { dirichlet: 0.5, maxParents: 2, maxCells: 100 };

/**
 * ∫ θ^{w1} (1 − θ)^{w0} Beta(θ; a, a) dθ = ∫ θ^{w1+a−1}(1 − θ)^{w0+a−1} dθ / ∫ θ^{a−1}(1 − θ)^{a−1} dθ,
 * each integral by the midpoint rule on the logit scale z (dθ = θ(1 − θ) dz): an independent
 * reference for the closed form.
 */
function betaBinomialByQuadrature(w1: number, w0: number, a: number): number {
  const integral = (p: number, q: number) => {
    const steps = 400_000;
    const h = 80 / steps;
    let sum = 0;
    for (let k = 0; k < steps; k++) {
      const theta = 1 / (1 + Math.exp(-(-40 + (k + 0.5) * h)));
      sum += theta ** p * (1 - theta) ** q * h;
    }
    return sum;
  };
  return integral(w1 + a, w0 + a) / integral(a, a);
}

Deno.test("the candidates: every earlier subset within the caps, the empty set first; one-level columns unmodelled", () => {
  const model = new BayesNetModel(FILE, PRIOR);
  assert.deepEqual(model.order, [0, 2]);
  assert.deepEqual(model.candidates[0].map((set) => set.parents), [[]]);
  assert.deepEqual(model.candidates[1].map((set) => set.parents), [[], [0]]);
  assert.deepEqual(model.candidates[1].map((set) => set.cells), [2, 4]);
  const capped = new BayesNetModel(FILE, { ...PRIOR, maxCells: 3 });
  assert.deepEqual(capped.candidates[1].map((set) => set.parents), [[]]);
  const none = new BayesNetModel(FILE, { ...PRIOR, maxParents: 0 });
  assert.deepEqual(none.candidates[1].map((set) => set.parents), [[]]);
});

Deno.test("logMarginal equals the Dirichlet–multinomial marginal by quadrature, fractional counts included", () => {
  const a = 0.5;
  // Two parent configurations with fractional counts.
  const counts = Float64Array.of(1.3, 0.7, 0.4, 2.25);
  const want = Math.log(betaBinomialByQuadrature(0.7, 1.3, a)) +
    Math.log(betaBinomialByQuadrature(2.25, 0.4, a));
  const got = logMarginal(counts, 2, a);
  assert.ok(Math.abs(got - want) < 1e-6, `${got} vs ${want}`);
});

Deno.test("sampleBayesNet draws the exact pseudo posterior: P(G), E[θ | G] and the checks", () => {
  const model = new BayesNetModel(FILE, PRIOR);
  const a = PRIOR.dirichlet;
  const w = (g: number) => model.weightedCounts(1, g, ALPHA);
  // p(G_b = {a} | x) from the closed-form marginals of the two candidates.
  const l0 = logMarginal(w(0), 2, a);
  const l1 = logMarginal(w(1), 2, a);
  const pParent = 1 / (1 + Math.exp(l0 - l1));
  const fit = sampleBayesNet(model, ALPHA, { seed: 3, chains: 2, draws: 10_000 });
  assert.equal(fit.flagged, false);
  let withParent = 0;
  const thetaSum = [0, 0]; // E[θ_{b=1 | a=0}] and E[θ_{b=1 | a=1}] given G_b = {a}
  const marginalSum = [0]; // E[θ_{a=1}]
  for (let s = 0; s < fit.S; s++) {
    const theta = fit.draws.subarray(s * fit.dim, (s + 1) * fit.dim);
    marginalSum[0] += Math.exp(theta[2 + 1]);
    if (theta[1] === 1) {
      withParent++;
      const offsets = model.tableOffsets(theta);
      thetaSum[0] += Math.exp(theta[offsets[1] + 1]);
      thetaSum[1] += Math.exp(theta[offsets[1] + 3]);
    }
  }
  const p = withParent / fit.S;
  const se = Math.sqrt(pParent * (1 - pParent) / fit.S);
  assert.ok(Math.abs(p - pParent) < 4.5 * se, `${p} vs ${pParent}`);
  // Dirichlet means: (a + w_l) / (2a + W).
  const wa = model.weightedCounts(0, 0, ALPHA);
  const wantA = (a + wa[1]) / (2 * a + wa[0] + wa[1]);
  assert.ok(Math.abs(marginalSum[0] / fit.S - wantA) < 0.01, `${marginalSum[0] / fit.S} ${wantA}`);
  const wb = w(1);
  for (const c of [0, 1]) {
    const want = (a + wb[c * 2 + 1]) / (2 * a + wb[c * 2] + wb[c * 2 + 1]);
    const got = thetaSum[c] / withParent;
    assert.ok(Math.abs(got - want) < 0.015, `config ${c}: ${got} vs ${want}`);
  }
});

Deno.test("logLik, recordTerm and termMaxima agree with the tables by hand", () => {
  const model = new BayesNetModel(FILE, PRIOR);
  const fit = sampleBayesNet(model, null, { seed: 4, chains: 2, draws: 200 });
  const ell = new Float64Array(model.n);
  const theta = fit.draws.subarray(0, fit.dim);
  model.logLik(theta, ell);
  const offsets = model.tableOffsets(theta);
  const parents = model.candidates[1][theta[1]].parents;
  for (let i = 0; i < model.n; i++) {
    const config = parents.length === 0 ? 0 : A[i];
    const want = theta[offsets[0] + A[i]] + theta[offsets[1] + config * 2 + B[i]];
    assert.ok(Math.abs(ell[i] - want) < 1e-15);
    assert.ok(Math.abs(model.recordTerm(theta, i, ALPHA[i]) - ALPHA[i] * want) < 1e-15);
  }
  const extremes = model.termMaxima(fit.draws, fit.dim, ALPHA);
  for (let i = 0; i < model.n; i++) {
    let hi = 0;
    let lo = Infinity;
    for (let s = 0; s < fit.S; s++) {
      const u = Math.abs(
        model.recordTerm(fit.draws.subarray(s * fit.dim, (s + 1) * fit.dim), i, ALPHA[i]),
      );
      hi = Math.max(hi, u);
      lo = Math.min(lo, u);
    }
    assert.equal(extremes.perRecord[i], hi);
    assert.equal(extremes.minimum[i], lo);
  }
});

Deno.test("simulate draws i.i.d. records from the network's tables", () => {
  const model = new BayesNetModel(FILE, PRIOR);
  const fit = sampleBayesNet(model, null, { seed: 6, chains: 2, draws: 200 });
  const theta = fit.draws.subarray(0, fit.dim);
  const n = 40_000;
  const file = model.simulate(theta, n, new Rng(9), undefined, "iid");
  assert.deepEqual(file.columns.map((c) => [c.name, c.levels]), [["a", 2], ["fixed", 1], ["b", 2]]);
  assert.ok(file.columns[1].codes.every((code) => code === 0));
  const offsets = model.tableOffsets(theta);
  const pA = Math.exp(theta[offsets[0] + 1]);
  const got = file.columns[0].codes.reduce((sum, code) => sum + code, 0) / n;
  assert.ok(Math.abs(got - pA) < 4.5 * Math.sqrt(pA * (1 - pA) / n), `${got} vs ${pA}`);
  const parents = model.candidates[1][theta[1]].parents;
  for (const c of [0, 1]) {
    const rows = [...file.columns[0].codes.keys()].filter((i) => file.columns[0].codes[i] === c);
    const pB = Math.exp(theta[offsets[1] + (parents.length === 0 ? 0 : c) * 2 + 1]);
    const share = rows.filter((i) => file.columns[2].codes[i] === 1).length / rows.length;
    assert.ok(
      Math.abs(share - pB) < 4.5 * Math.sqrt(pB * (1 - pB) / rows.length),
      `${share} vs ${pB}`,
    );
  }
});

Deno.test("a draw with a parent-set index outside the candidates is refused, naming the column", () => {
  const model = new BayesNetModel(FILE, PRIOR);
  assert.throws(
    () => model.logLik(Float64Array.of(0, 7, 0, 0, 0, 0), new Float64Array(10)),
    /column b/,
  );
});

Deno.test("balanced simulate: each configuration's counts within 1 of m_c θ, each record still drawn from θ, in a random order", () => {
  const model = new BayesNetModel(FILE, PRIOR);
  const fit = sampleBayesNet(model, null, { seed: 6, chains: 2, draws: 200 });
  // A draw where b has a as its parent.
  const s = [...Array(fit.S).keys()].find((k) => fit.draws[k * fit.dim + 1] === 1)!;
  const theta = fit.draws.subarray(s * fit.dim, (s + 1) * fit.dim);
  const offsets = model.tableOffsets(theta);
  const pA = Math.exp(theta[offsets[0] + 1]);
  const pB = [0, 1].map((c) => Math.exp(theta[offsets[1] + c * 2 + 1]));
  const rng = new Rng(10);
  for (const n of [1, 7, 1000, 4321]) {
    const file = model.simulate(theta, n, rng);
    const a = file.columns[0].codes;
    const b = file.columns[2].codes;
    const ones = a.reduce((sum, x) => sum + x, 0);
    assert.ok(Math.abs(ones - n * pA) < 1, `n=${n}: ${ones} records a=1 against ${n * pA}`);
    for (const c of [0, 1]) {
      const rows = [...a.keys()].filter((i) => a[i] === c);
      const bOnes = rows.filter((i) => b[i] === 1).length;
      assert.ok(Math.abs(bOnes - rows.length * pB[c]) < 1, `n=${n}, a=${c}: ${bOnes}`);
    }
  }
  // Unbiased for each record: over 20,000 files of 3 records, record 2 has a = 1 and b = 1 with
  // probability pA·pB[1], and the first half of a large file is like the second (random order).
  let both = 0;
  for (let k = 0; k < 20_000; k++) {
    const file = model.simulate(theta, 3, rng);
    if (file.columns[0].codes[2] === 1 && file.columns[2].codes[2] === 1) both++;
  }
  const p = pA * pB[1];
  assert.ok(Math.abs(both / 20_000 - p) < 4.5 * Math.sqrt(p * (1 - p) / 20_000), `${both} vs ${p}`);
  const big = model.simulate(theta, 20_000, rng).columns[0].codes;
  const half = (from: number) => big.subarray(from, from + 10_000).reduce((sum, x) => sum + x, 0);
  assert.ok(
    Math.abs(half(0) - half(10_000)) < 4.5 * Math.sqrt(2 * 10_000 * pA * (1 - pA)),
    `halves ${half(0)} and ${half(10_000)}`,
  );
});

Deno.test("sampleBayesNet stops at the next draw once its stop flag is set", () => {
  const model = new BayesNetModel(FILE, PRIOR);
  const stop = stopFlag();
  const reports: number[] = [];
  // The first report (draw 20 of 2,000) asks for the stop; the next draw throws, before the next
  // report (draw 40).
  assert.throws(
    () =>
      sampleBayesNet(model, null, {
        seed: 4,
        chains: 2,
        draws: 1000,
        stop,
        onDraw: (done) => {
          reports.push(done);
          requestStop(stop);
        },
      }),
    { name: "StopRequested" },
  );
  assert.deepEqual(reports, [20]);
});
