/**
 * Issue 27: GPU HMC under the default coefficient prior `student-t`. The kernels sample the free
 * coordinates (coefficients and the extra parameter) with the marginal prior
 * β_j ~ Student-t(3, 0, s_j), and the host draws the scale coordinates v exactly, as the CPU
 * sampler does. Checked here: the GPU log target and gradient over the free coordinates equal
 * the f64 `logDensity` at fixed v less v's terms and the t constants (logistic, normal with its
 * intercept scale 1000, categorical with L = 3; weights α with zeros; censoring over two record
 * tiles); the exact coordinates are the CPU sampler's draws from the same streams; `sampleGpuHmc`
 * agrees with NUTS on every parameter's posterior mean within 4 combined MCSE (logistic,
 * lognormal); `synthesize` with `sampler: "gpu-hmc"` and the default prior runs on the GPU.
 */
import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { sampleGpuHmc } from "../../src/gpu/hmc.ts";
import { PRIOR_STUDENT_T } from "../../src/gpu/hmc_layout.ts";
import { evaluateGpuLogDensity } from "../../src/gpu/hmc_resources.ts";
import { gpuTarget } from "../../src/gpu/hmc_target.ts";
import { StudentTCoefficientPrior } from "../../src/models/glm_prior.ts";
import type { Model, Weighting } from "../../src/models/mod.ts";
import { Rng } from "../../src/random/rng.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";
import { synthesize } from "../../src/synthesis/synthesize.ts";
import { checkGpuHmcAgainstNuts } from "./_check_means.ts";
import { assertPointParity, magnitudes } from "./_density_parity.ts";
import { categoricalData, studentTRegression, weights } from "./_glm_data.ts";
import { announceGpu, gpu, GPU_TEST } from "./_helpers.ts";

announceGpu("the GPU HMC sampler's student-t prior tests", true);

/** A categorical regression with L = 3 levels and k covariates under the `student-t` prior. */
function categorical(n: number, k: number, seed: number): Model {
  return categoricalData(n, k, ["a", "b", "c"], seed, (m) => {
    const theta = new Float64Array(2 * m).fill(1);
    for (let j = 0; j < m; j++) theta[j] = j % k === 0 ? (j === 0 ? 0.8 : -0.8) : 0.9;
    return theta;
  }, { coefficientPrior: "student-t" });
}

/**
 * Free-coordinate points (the kernels' D each): four around the model's starting point, one in
 * the t prior's tails (every coefficient ±20 times its spread), and for a model with an extra
 * parameter one where it is small and one where it is large.
 */
function freePoints(model: Model, free: readonly number[], seed: number): Float64Array {
  const rng = new Rng(seed);
  const init = model.initialPoint();
  const out: number[] = [];
  for (let s = 0; s < 4; s++) for (const j of free) out.push(init[j] + 0.4 * rng.normal());
  const m = model.dim === 2 * free.length ? free.length : free.length - 1;
  out.push(...free.map((j, q) => (q < m ? (q % 2 === 0 ? 0.6 : -0.6) * (1 + q) : init[j])));
  if (free.length > m) {
    for (const extra of [-2, 0.8]) out.push(...free.map((j, q) => (q < m ? init[j] : extra)));
  }
  return Float64Array.from(out);
}

/** The model's full u at free point z, every scale coordinate v at 0. */
function fullPoint(model: Model, free: readonly number[], z: Float64Array): Float64Array {
  const u = new Float64Array(model.dim);
  free.forEach((j, q) => (u[j] = z[q]));
  return u;
}

/**
 * What the GPU leaves out at v = 0: the t prior's normalisers and v's log densities,
 * Σ_j [log t_ν(0; 0, s_j) + log p(v_j = 0)].
 */
function leftOut(model: Model): number {
  const prior = model.coefficientPrior;
  assert.ok(prior instanceof StudentTCoefficientPrior);
  const m = prior.scales.length;
  return prior.logDensity(new Float64Array(2 * m), m, null);
}

/**
 * Asserts the GPU's value and gradient at free points equal the f64 model's at v = 0 less the
 * constant `leftOut`, within the f32 tolerances; returns the largest relative errors.
 */
async function checkFreeDensity(model: Model, weighting: Weighting, label: string) {
  const target = gpuTarget(model, weighting);
  assert.equal(target.prior.kind, PRIOR_STUDENT_T);
  const { free, d } = target;
  const z = freePoints(model, free, 12);
  const gpuEval = await evaluateGpuLogDensity(gpu!, model, weighting, z);
  const constant = leftOut(model);
  const grad = new Float64Array(model.dim);
  let worstValue = 0;
  let worstGradient = 0;
  for (let s = 0; s < z.length / d; s++) {
    const u = fullPoint(model, free, z.subarray(s * d, (s + 1) * d));
    const value = model.logDensity(u, grad, weighting) - constant;
    const scale = magnitudes(model, weighting, u, constant);
    const worst = assertPointParity(gpuEval, s, { value, grad, scale }, model, free, label);
    worstValue = Math.max(worstValue, worst.value);
    worstGradient = Math.max(worstGradient, worst.gradient);
  }
  console.log(
    `${label}: largest relative error value ${worstValue.toExponential(2)}, gradient ${
      worstGradient.toExponential(2)
    }`,
  );
}

/** The density checks' models of n records: K = 3, and K = 2 per level for the categorical. */
const DENSITY_CASES: [string, (n: number) => Model][] = [
  ["logistic", (n) => studentTRegression("logistic", n, 3, 31)],
  ["normal", (n) => studentTRegression("normal", n, 3, 31)],
  ["categorical L = 3", (n) => categorical(n, 2, 31)],
];

Deno.test("`gpuTarget()` under student-t: the free coordinates, ν·s² of intercept and covariates", () => {
  const normal = gpuTarget(studentTRegression("normal", 20, 3, 1), { alpha: null });
  // u = (β₀, β₁, β₂, v₀, v₁, v₂, log σ): the kernels take β and log σ.
  assert.deepEqual(normal.free, [0, 1, 2, 6]);
  assert.equal(normal.d, 4);
  assert.deepEqual(normal.prior, {
    kind: PRIOR_STUDENT_T,
    nu: 3,
    interceptSpread: 3 * 1000 ** 2,
    coefSpread: 3 * 2.5 ** 2,
  });
  const logistic = gpuTarget(studentTRegression("logistic", 20, 2, 1), { alpha: null });
  assert.equal(logistic.prior.interceptSpread, 3 * 2.5 ** 2);
  assert.equal(
    gpuTarget(studentTRegression("lognormal", 20, 1, 1), { alpha: null }).prior.interceptSpread,
    300,
  );
  const levels = gpuTarget(categorical(20, 2, 1), { alpha: null });
  assert.deepEqual(levels.free, [0, 1, 2, 3]);
  assert.equal(levels.exact?.indices.join(), "4,5,6,7");
});

Deno.test("a gpu-hmc synthesis request takes the default student-t prior and the paper's", () => {
  const base = { y: "y", model: "logistic", mechanism: "lw", epsilon: 5, sampler: "gpu-hmc" };
  assert.equal(SynthesisSpec.parse(base).prior, "student-t");
  assert.equal(SynthesisSpec.parse({ ...base, prior: "paper" }).prior, "paper");
});

for (const [label, make] of DENSITY_CASES) {
  for (const censored of [false, true]) {
    Deno.test({
      name: `\`evaluateGpuLogDensity()\` under student-t matches the f64 density of ${label} ` +
        `on the free coordinates, weights α${censored ? ", censoring, two tiles" : ""}`,
      ...GPU_TEST,
      fn: async () => {
        const n = censored ? 1300 : 300;
        const model = make(n);
        const weighting = censored ? { alpha: weights(n, 6), censor: 3 } : { alpha: weights(n, 5) };
        await checkFreeDensity(model, weighting, `${label}${censored ? " censored" : ""}`);
      },
    });
  }
}

Deno.test({
  name: "`sampleGpuHmc()` under student-t draws the scale coordinates as the CPU sampler does",
  ...GPU_TEST,
  fn: async () => {
    const model = studentTRegression("lognormal", 100, 2, 5);
    const result = await sampleGpuHmc(gpu!, model, { alpha: null }, {
      seed: 9,
      chains: 3,
      warmup: 20,
      draws: 4,
    });
    assert.equal(result.dim, model.dim);
    const exact = model.exactCoordinates!;
    const drawn = new Float64Array(exact.indices.length);
    for (let c = 0; c < 3; c++) {
      const rng = new Rng(9).split(c).split(0);
      for (let s = 0; s < 4; s++) {
        exact.draw(rng, drawn);
        const row = (c * 4 + s) * model.dim;
        exact.indices.forEach((index, j) => assert.equal(result.draws[row + index], drawn[j]));
      }
    }
  },
});

for (const name of ["logistic", "lognormal"] as const) {
  Deno.test({
    name: `\`sampleGpuHmc()\` under student-t agrees with NUTS on a weighted ${name} regression ` +
      `within 4 MCSE`,
    ...GPU_TEST,
    fn: async () => {
      // n = 400 (K = 3 logistic, K = 2 lognormal), weights α; the NUTS fit recorded.
      const largest = await checkGpuHmcAgainstNuts(gpu!, `student-t ${name}`);
      console.log(`${name}: largest |GPU − NUTS| / combined MCSE ${largest.toFixed(2)}`);
    },
  });
}

Deno.test({
  name: "`synthesize()` with sampler gpu-hmc and the default student-t prior runs on the GPU",
  ...GPU_TEST,
  fn: async () => {
    const rng = new Rng(17);
    const rows = Array.from({ length: 200 }, () => {
      const z = rng.normal();
      return `${(Math.exp(1 + 0.5 * z + 0.4 * rng.normal())).toFixed(4)},${z.toFixed(3)}`;
    });
    const data = parseCsv("y,z\n" + rows.join("\n") + "\n", "student_t.csv");
    const notes: string[] = [];
    const result = await synthesize(
      data,
      SynthesisSpec.parse({
        y: "y",
        x: ["z"],
        model: "lognormal",
        mechanism: "lw",
        epsilon: 12,
        seed: 3,
        sampler: "gpu-hmc",
        allowFlagged: true,
        chains: 32,
        draws: 640,
        warmup: 100,
        m: 2,
      }),
      { onNote: (line) => notes.push(line) },
    );
    assert.deepEqual(notes, [], "the synthesis fell back to NUTS");
    assert.equal(result.report.coefficientPrior, "student-t");
    assert.ok(result.report.epsilon <= 12);
    assert.equal(result.datasets.length, 2);
  },
});
