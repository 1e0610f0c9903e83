/**
 * Lipschitz matrix throughput (issues 4 and 27): draw × record evaluations of |α_i·ℓ_i(θ_s)| per
 * second for the negative binomial, Poisson, logistic, categorical (L = 4 levels), beta, normal,
 * lognormal (the last two share the `gaussian` kernel), hurdle lognormal and survey FBS and FBP
 * models (K = 3: intercept, a normal and a binary covariate; data generated from the model, draws
 * around the generating parameters), and for the joint-record pass of a
 * three-outcome joint model (logistic + categorical + normal, src/gpu/lipschitz_joint.ts), at
 * S = 4000 draws and n ∈ {10³, 10⁴, 10⁵}, on the
 * CPU (the f64 TypeScript loop `lipschitz()`, in this thread and split over every core by
 * `parallelLipschitz()`) and on the GPU (`createGpuLipschitz`: packing, f32 kernel and f64
 * confirmation; and the kernel alone), side by side in one run. It also measures the adapter's
 * f32 FMA throughput and copy bandwidth with two micro-kernels, for a roofline estimate of each
 * kernel, and prints markdown tables. Every row checks that the GPU's Δ and every Δ_i (and those
 * of every core) equal the f64 CPU loop's.
 *
 * The joint pass is end-to-end only: it runs one kernel per conditional, each writing its signed
 * S×n values, which are read back and summed per record in f64 on the CPU, so no one kernel's
 * time or roofline describes it.
 *
 *     deno run -A bench/lipschitz_throughput.ts
 *       [--models negbin,poisson,logistic,categorical,beta,normal,lognormal,hurdle,fbs,fbp,joint]
 *       [--sizes 1000,10000,100000] [--draws 4000] [--seed 1]
 *
 * `--models` defaults to `negbin` (the figures of docs/performance.md's first table).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { acquireGpu, type GpuContext } from "../src/gpu/device.ts";
import {
  createGpuLipschitz,
  LOOP_BUDGET,
  loopIterationsPerDraw,
  planTiles,
  runLipschitzKernel,
} from "../src/gpu/lipschitz_gpu.ts";
import { packLipschitz } from "../src/gpu/lipschitz_pack.ts";
import { lipschitz } from "../src/mechanisms/lipschitz.ts";
import { parallelLipschitz } from "../src/mechanisms/parallel_lipschitz.ts";
import { parseCsv } from "../src/data/csv.ts";
import { CategoricalModel } from "../src/models/categorical.ts";
import { FbpModel } from "../src/models/fbp.ts";
import { FbsModel } from "../src/models/fbs.ts";
import { HurdleModel } from "../src/models/hurdle.ts";
import { isJointModel, type JointModel } from "../src/models/joint.ts";
import { LogisticModel } from "../src/models/logistic.ts";
import { NegBinModel } from "../src/models/negbin.ts";
import { BetaModel } from "../src/models/beta.ts";
import type { Design, Model } from "../src/models/model.ts";
import { LognormalModel } from "../src/models/lognormal.ts";
import { NormalModel } from "../src/models/normal.ts";
import { PoissonModel } from "../src/models/poisson.ts";
import { sampleBeta, sampleNegBinomial, samplePoisson } from "../src/random/distributions.ts";
import { Rng } from "../src/random/rng.ts";
import { SynthesisSpec } from "../src/synthesis/spec.ts";
import { synthesisModel } from "../src/synthesis/synthesis_model.ts";

/** What one kernel costs per evaluation, counted in its shader on the benchmark data's path. */
interface KernelCost {
  /** f32 add, sub, mul, abs, min/max, compare and select (an fma counts 2): the value of ℓ, its
   * error bound, and the draw loop's |α·ℓ|, bound, finiteness bits and max/arg-max. */
  readonly arithmetic: { readonly value: number; readonly bound: number; readonly loop: number };
  /** exp and log. */
  readonly transcendental: number;
  /** Divisions, in the value and in the error bound. */
  readonly division: number;
  /** Where the counts come from. */
  readonly note: string;
}

/** The draw loop of lipschitz_common.wgsl: |α·ℓ|, bound, finiteness bits, max/arg-max. */
const LOOP_OPS = 18;

/**
 * A kernel's cost from its counts: arithmetic for ℓ's value and its error bound (the draw loop's
 * LOOP_OPS added), exp/log, divisions, and where the counts come from.
 */
function kernelCost(
  value: number,
  bound: number,
  transcendental: number,
  division: number,
  note: string,
): KernelCost {
  return { arithmetic: { value, bound, loop: LOOP_OPS }, transcendental, division, note };
}

/**
 * The Gaussian kernel's cost (lipschitz_gaussian.wgsl, the normal and lognormal models: z = y or
 * log y): ev_gaussian as in the hurdle's positive amount, x·β (4 + 11), the range tests (4), z − η
 * (1 + 5), ·1/σ (1 + 9), t² (1 + 9), ·½ (1 + 9), c − log σ and the difference (2 + 10). No exp,
 * log or division.
 */
const GAUSSIAN_COST: KernelCost = kernelCost(14, 53, 0, 0, "one residual, squared");

/**
 * Operations per evaluation, counted in shaders/lipschitz_<kernel>.wgsl and
 * lipschitz_common.wgsl on the path this data takes, K = 3 (linear predictor 4 for the value, 7
 * for its bound; about 5 per bounded sum and 9 per bounded product).
 */
const COSTS: Readonly<Record<KernelModel, KernelCost>> = {
  // φ ≥ 8, d ≤ 0: log1p series 22 twice, Stirling remainder 5, …; exp (in log1p_exp) and log (of
  // φ + y); y/φ, one per log1p series (2), Stirling's 1/x, four more in the bound.
  negbin: kernelCost(77, 140, 2, 8, "φ ≥ 8, d ≤ 0"),
  // x·β (4 + 11), the range tests (3), y·η (1 + 9), e^η (one exp; 5 for its bound) and the two
  // differences (2 + 10). No division.
  poisson: kernelCost(10, 35, 1, 0, "one exp"),
  // Value: η (4), t = ±η and the branch tests (6), the log1p series (22), the difference (2).
  // Bound: η (11), exp (5), log1p (7), the difference (5). One exp; the series' z = x/(2 + x)
  // and the bound's δ/(1 + x).
  logistic: kernelCost(34, 28, 1, 2, "one exp, the log1p series"),
  // L = 4, K = 3. Pass 1: 3 linear predictors (4 + 11 each) and the running max and y's η (3 +
  // 1 each). Pass 2: the 2 non-reference levels other than the top recomputed (4 + 11 each), 3
  // differences from the max (1 + 5), range tests (2 each), 3 exponentials (1 + 5) summed
  // (1 + 5); log1p of the sum by its direct branch (a log; 3 + 9 for its bound) and the final
  // two differences (2 + 10).
  categorical: kernelCost(46, 121, 4, 1, "L = 4: 3 exp and one log"),
  // The Stirling form (both shares P, Q ≥ 8; 99.5 % of this data's records·draws): x·β (4 + 11),
  // the range tests (3), l_P, l_Q chosen by η's sign (3), ±|η| (2), e = e^{−|η|} (one exp; 5),
  // 1 + e (1 + 5), 1/(1 + e) (a division each; 6), P and Q (3 + 27), log1p(e) by its series
  // (22 + 7, a division each), (P − 1)(l_P + L) (3 + 19), the Q ≥ 8 test (1), −½ log 2π + ½ log φ
  // (2 + 14), (Q − 1)(l_Q + |η| + L) (4 + 24), L + ½|η| (2 + 14), δ(φ) − δ(P) − δ(Q) (Stirling's
  // remainder 5 + 3 twice, a division each, and 2 + 10), the four final sums (4 + 20).
  beta: kernelCost(66, 168, 1, 8, "P, Q ≥ 8: one exp, log1p series, two Stirling remainders"),
  normal: GAUSSIAN_COST,
  lognormal: GAUSSIAN_COST,
  // A positive amount (70 % of the records): the logistic kernel's log-sigmoid of x·γ (34 + 28,
  // one exp), the range and zero-mark tests (2), x·β (4 + 11), ev_gaussian's range tests (4), z − η
  // (1 + 5), ·1/σ (1 + 9), t² (1 + 9), ·½ (1 + 9), c − log σ and the difference (2 + 10), and the
  // sum with the log-sigmoid (1 + 5). A zero is the log-sigmoid alone.
  hurdle: kernelCost(51, 86, 1, 2, "y > 0: log-sigmoid (one exp) + Gaussian term"),
  // Two linear predictors (4 + 11 each), two residuals with their range tests (3 + 5 each), two
  // standardisations with theirs (4 + 9 each), the range checks (2), d = z₁ − ρz₂ (2 + 14),
  // d²/(1 − ρ²) + z₂² (4 + 32), c − ½q (2 + 14). No exp, log or division.
  fbs: kernelCost(32, 110, 0, 0, "two residuals, a 2×2 quadratic form"),
  // As FBS's residuals, plus log π − κ_y·log y (2 + 14), ½(z₁² + z₂²) (4 + 32), r_π + κ_y·r_y
  // (2 + 14) and the two final sums (2 + 10). No exp, log or division.
  fbp: kernelCost(34, 120, 0, 0, "two residuals, two squares, a linear term"),
};
/** An exp or log in llvmpipe's LLVM code: about 25 vector instructions. */
const TRANSCENDENTAL_FLOPS = 25;

/** FLOP-equivalents per evaluation of a kernel. */
function flopsPerEval(cost: KernelCost): number {
  return cost.arithmetic.value + cost.arithmetic.bound + cost.arithmetic.loop +
    cost.transcendental * TRANSCENDENTAL_FLOPS + cost.division;
}

/** The models with one kernel each (kernel-only timing and a roofline). */
type KernelModel =
  | "negbin"
  | "poisson"
  | "logistic"
  | "categorical"
  | "beta"
  | "normal"
  | "lognormal"
  | "hurdle"
  | "fbs"
  | "fbp";
/** The models this benchmark runs: the kernels', and the joint pass over several outcomes. */
type BenchModel = KernelModel | "joint";
const MODELS: readonly BenchModel[] = [
  "negbin",
  "poisson",
  "logistic",
  "categorical",
  "beta",
  "normal",
  "lognormal",
  "hurdle",
  "fbs",
  "fbp",
  "joint",
];

/** The covariates of record i: intercept, a standard normal, a fair binary. */
function covariates(rng: Rng, x: Float64Array, i: number): void {
  x[i * 3] = 1;
  x[i * 3 + 1] = rng.normal();
  x[i * 3 + 2] = rng.uniform() < 0.5 ? 1 : 0;
}

/**
 * S draws around a regression's coefficients β (m = β.length of them, first in θ): each β_j plus
 * N(0, 0.05²), each of the m coefficient scales that follow 1, and the parameter after them, where
 * `extra` gives it (φ or σ), extra·e^{N(0, 0.1²)}.
 */
function drawsAround(
  rng: Rng,
  draws: number,
  dim: number,
  beta: readonly number[],
  extra?: number,
) {
  const m = beta.length;
  const theta = new Float64Array(draws * dim);
  for (let s = 0; s < draws; s++) {
    const at = s * dim;
    for (let j = 0; j < m; j++) theta[at + j] = beta[j] + 0.05 * rng.normal();
    for (let j = m; j < 2 * m; j++) theta[at + j] = 1;
    if (extra !== undefined) theta[at + 2 * m] = extra * Math.exp(0.1 * rng.normal());
  }
  return theta;
}

/**
 * A one-outcome regression of the benchmark, K = 3: its coefficients β of (1, z, b), its parameter
 * after the coefficient scales (φ or σ) where it has one, how an outcome is drawn given the linear
 * predictor η and that parameter, and the model of a design.
 */
interface GlmProblem {
  readonly beta: readonly number[];
  readonly extra?: number;
  readonly outcome: (rng: Rng, eta: number, extra: number) => number;
  readonly create: (design: Design) => Model;
}

/** The models whose problems are a {@link GlmProblem}. */
type GlmModelName = "negbin" | "poisson" | "logistic" | "beta" | "normal" | "lognormal";

/**
 * The one-outcome regressions: NB(e^η, φ = 11) with η = 2 + 0.5z − 0.3b; Poisson(e^η) with η =
 * 1.5 + 0.4z − 0.3b; Bernoulli(logit⁻¹(−0.3 + 1.2z − 0.8b)); Beta(μφ, (1 − μ)φ), μ =
 * logit⁻¹(0.4 + 0.5z − 0.4b), φ = 50 (both shares ≥ 8, the kernel's Stirling form, on nearly every
 * record·draw); N(10 + 2z − b, 1.5²); log y ~ N(8 + 0.6z − 0.4b, 0.7²).
 */
const GLMS: Readonly<Record<GlmModelName, GlmProblem>> = {
  negbin: {
    beta: [2, 0.5, -0.3],
    extra: 11,
    outcome: (rng, eta, phi) => sampleNegBinomial(rng, Math.exp(eta), phi),
    create: (design) => new NegBinModel(design),
  },
  poisson: {
    beta: [1.5, 0.4, -0.3],
    outcome: (rng, eta) => samplePoisson(rng, Math.exp(eta)),
    create: (design) => new PoissonModel(design),
  },
  logistic: {
    beta: [-0.3, 1.2, -0.8],
    outcome: (rng, eta) => rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0,
    create: (design) => new LogisticModel({ ...design, outcomeLevels: ["0", "1"] }),
  },
  beta: {
    beta: [0.4, 0.5, -0.4],
    extra: 50,
    outcome: (rng, eta, phi) =>
      sampleBeta(rng, phi / (1 + Math.exp(-eta)), phi / (1 + Math.exp(eta))),
    create: (design) => new BetaModel(design),
  },
  normal: {
    beta: [10, 2, -1],
    extra: 1.5,
    outcome: (rng, eta, sigma) => eta + sigma * rng.normal(),
    create: (design) => new NormalModel(design),
  },
  lognormal: {
    beta: [8, 0.6, -0.4],
    extra: 0.7,
    outcome: (rng, eta, sigma) => Math.exp(eta + sigma * rng.normal()),
    create: (design) => new LognormalModel(design),
  },
};

/** Whether a model's problem is one of {@link GLMS}. */
function isGlm(name: BenchModel): name is GlmModelName {
  return Object.hasOwn(GLMS, name);
}

/**
 * A one-outcome regression with n records, covariates (1, z, b) and outcomes drawn from the
 * generating parameters, and S draws around them.
 */
function glmProblem(glm: GlmProblem, n: number, draws: number, seed: number) {
  const rng = new Rng(seed);
  const k = 3;
  const { beta, extra } = glm;
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    covariates(rng, x, i);
    const eta = beta[0] + beta[1] * x[i * k + 1] + beta[2] * x[i * k + 2];
    y[i] = glm.outcome(rng, eta, extra ?? NaN);
  }
  const model = glm.create({ n, k, y, x, coefficientNames: ["intercept", "z", "b"] });
  return { model, theta: drawsAround(rng, draws, model.dim, beta, extra) };
}

/**
 * The categorical model with L = 4 levels and n records from a multinomial logit (level 0 the
 * reference), and S draws around its coefficients.
 */
function categoricalProblem(n: number, draws: number, seed: number) {
  const rng = new Rng(seed);
  const k = 3;
  const levels = 4;
  const beta = [0.4, 0.9, -0.5, -0.2, -0.7, 0.6, 0.1, 0.3, 0.8];
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  const p = new Float64Array(levels);
  for (let i = 0; i < n; i++) {
    covariates(rng, x, i);
    p[0] = 1;
    for (let l = 1; l < levels; l++) {
      const at = (l - 1) * k;
      p[l] = Math.exp(beta[at] + beta[at + 1] * x[i * k + 1] + beta[at + 2] * x[i * k + 2]);
    }
    let u = rng.uniform() * p.reduce((a, b) => a + b, 0);
    let level = 0;
    while (level < levels - 1 && u >= p[level]) u -= p[level++];
    y[i] = level;
  }
  const model = new CategoricalModel({
    n,
    k,
    y,
    x,
    coefficientNames: ["intercept", "z", "b"],
    outcomeLevels: ["a", "b", "c", "d"],
  });
  return { model, theta: drawsAround(rng, draws, model.dim, beta) };
}

/**
 * The hurdle lognormal model with n records: y = 0 with probability 1 − logit⁻¹(0.85 + 0.5z −
 * 0.3b) (about 30 % zeros), else log y ~ N(8 + 0.6z − 0.4b, 0.7²); S draws around the generating
 * parameters θ = (γ, β, σ_γ, σ_β, σ).
 */
function hurdleProblem(n: number, draws: number, seed: number) {
  const rng = new Rng(seed);
  const k = 3;
  const gamma = [0.85, 0.5, -0.3];
  const beta = [8, 0.6, -0.4];
  const sigma = 0.7;
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  const dot = (c: number[], i: number) => c[0] + c[1] * x[i * k + 1] + c[2] * x[i * k + 2];
  for (let i = 0; i < n; i++) {
    covariates(rng, x, i);
    const positive = rng.uniform() < 1 / (1 + Math.exp(-dot(gamma, i)));
    y[i] = positive ? Math.exp(dot(beta, i) + sigma * rng.normal()) : 0;
  }
  const model = new HurdleModel({ n, k, y, x, coefficientNames: ["intercept", "z", "b"] });
  const theta = new Float64Array(draws * model.dim);
  for (let s = 0; s < draws; s++) {
    const at = s * model.dim;
    for (let j = 0; j < k; j++) {
      theta[at + j] = gamma[j] + 0.05 * rng.normal();
      theta[at + k + j] = beta[j] + 0.05 * rng.normal();
    }
    for (let j = 2 * k; j < 4 * k; j++) theta[at + j] = 1;
    theta[at + 4 * k] = sigma * Math.exp(0.1 * rng.normal());
  }
  return { model, theta };
}

/** N(c_j, 0.05²) around each of `centre`'s values, into `theta` from `at`. */
function around(rng: Rng, theta: Float64Array, at: number, centre: readonly number[]): void {
  for (let j = 0; j < centre.length; j++) theta[at + j] = centre[j] + 0.05 * rng.normal();
}

/**
 * A survey model's problem: n records of the covariates `covariates` draws, each record's (y, w)
 * from `record` (given the record's x·c for a coefficient vector c), and S draws from `draw`.
 */
function surveyProblem(
  n: number,
  draws: number,
  seed: number,
  record: (rng: Rng, dot: (c: readonly number[]) => number) => readonly [number, number],
  create: (design: Design) => Model,
  draw: (rng: Rng, theta: Float64Array, at: number) => void,
) {
  const rng = new Rng(seed);
  const k = 3;
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  const weight = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    covariates(rng, x, i);
    [y[i], weight[i]] = record(rng, (c) => c[0] + c[1] * x[i * k + 1] + c[2] * x[i * k + 2]);
  }
  const model = create({ n, k, y, x, weight, coefficientNames: ["intercept", "z", "b"] });
  const theta = new Float64Array(draws * model.dim);
  for (let s = 0; s < draws; s++) draw(rng, theta, s * model.dim);
  return { model, theta };
}

/**
 * The FBS model with n records: (log y, log w) bivariate normal with means 8 + 0.6z − 0.4b and
 * 4 − 0.3z + 0.2b, σ_y = 0.7, σ_w = 0.5, ρ = −0.4; S draws around the generating parameters θ =
 * (β_y, β_w, σ_y, σ_w, ρ) (coefficients ±0.05, scales within about 10 %, atanh ρ ± 0.05).
 */
function fbsProblem(n: number, draws: number, seed: number) {
  const k = 3;
  const [betaY, betaW] = [[8, 0.6, -0.4], [4, -0.3, 0.2]];
  const [sy, sw, rho] = [0.7, 0.5, -0.4];
  return surveyProblem(
    n,
    draws,
    seed,
    (rng, dot) => {
      const [e1, e2] = [rng.normal(), rng.normal()];
      return [
        Math.exp(dot(betaY) + sy * e1),
        Math.exp(dot(betaW) + sw * (rho * e1 + Math.sqrt(1 - rho * rho) * e2)),
      ];
    },
    (design) => new FbsModel(design),
    (rng, theta, at) => {
      around(rng, theta, at, betaY);
      around(rng, theta, at + k, betaW);
      theta[at + 2 * k] = sy * Math.exp(0.1 * rng.normal());
      theta[at + 2 * k + 1] = sw * Math.exp(0.1 * rng.normal());
      theta[at + 2 * k + 2] = Math.tanh(Math.atanh(rho) + 0.05 * rng.normal());
    },
  );
}

/**
 * The FBP model with n records: log y ~ N(8 + 0.6z − 0.4b, 0.7²) and log π ~ N(0.3·log y − 7 +
 * 0.1z − 0.2b, 0.4²), w = 1/π; S draws around the generating parameters θ = (β, κ_y, κ_x, σ_y,
 * σ_π) (coefficients ±0.05, κ_y ± 0.01, scales within about 10 %).
 */
function fbpProblem(n: number, draws: number, seed: number) {
  const k = 3;
  const beta = [8, 0.6, -0.4];
  const kappaX = [-7, 0.1, -0.2];
  const [kappaY, sy, sp] = [0.3, 0.7, 0.4];
  return surveyProblem(
    n,
    draws,
    seed,
    (rng, dot) => {
      const ly = dot(beta) + sy * rng.normal();
      return [Math.exp(ly), Math.exp(-(kappaY * ly + dot(kappaX) + sp * rng.normal()))];
    },
    (design) => new FbpModel(design),
    (rng, theta, at) => {
      around(rng, theta, at, beta);
      theta[at + k] = kappaY + 0.01 * rng.normal();
      around(rng, theta, at + k + 1, kappaX);
      theta[at + 2 * k + 1] = sy * Math.exp(0.1 * rng.normal());
      theta[at + 2 * k + 2] = sp * Math.exp(0.1 * rng.normal());
    },
  );
}

/**
 * The joint model of test/gpu/lipschitz_joint_test.ts: a binary b (logistic), a 3-level c
 * (categorical) and a normal a, in that order, given a normal z and a 3-level g (K = 4, 5 and 7
 * with the earlier outcomes' codings), n independent records; S draws of the joint θ around one
 * fixed point (coefficients ±0.05, prior scales 1, the normal's σ within about 10 % of 1).
 */
function jointProblem(n: number, draws: number, seed: number) {
  const rng = new Rng(seed);
  const rows = ["z,g,b,c,a"];
  for (let i = 0; i < n; i++) {
    const g = "pqr"[Math.floor(3 * rng.uniform())];
    const b = rng.uniform() < 0.5 ? "yes" : "no";
    const c = "uvw"[Math.floor(3 * rng.uniform())];
    rows.push(`${rng.normal()},${g},${b},${c},${rng.normal()}`);
  }
  const data = parseCsv(rows.join("\n") + "\n", "joint.csv");
  const spec = SynthesisSpec.parse({
    y: ["b", "c", "a"],
    model: ["logistic", "categorical", "normal"],
    x: ["z", "g"],
    mechanism: "lw",
    epsilon: 8,
  });
  const model = synthesisModel(data, spec);
  if (!isJointModel(model)) throw new Error("expected a joint model");
  const joint: JointModel = model;
  const dim = joint.dim;
  const centre = new Float64Array(dim);
  const coefficientsOf = joint.components.map((c) =>
    c.model.dim % 2 === 1 ? (c.model.dim - 1) / 2 : c.model.dim / 2
  );
  joint.components.forEach((_, j) => {
    for (let l = 0; l < coefficientsOf[j]; l++) centre[joint.offsets[j] + l] = 0.5 * rng.normal();
  });
  const theta = new Float64Array(draws * dim);
  for (let s = 0; s < draws; s++) {
    const block = theta.subarray(s * dim, (s + 1) * dim);
    joint.components.forEach((c, j) => {
      const lo = joint.offsets[j];
      const m = coefficientsOf[j];
      for (let l = 0; l < m; l++) block[lo + l] = centre[lo + l] + 0.05 * rng.normal();
      block.fill(1, lo + m, lo + c.model.dim);
      if (c.model.dim % 2 === 1) block[lo + c.model.dim - 1] = Math.exp(0.1 * rng.normal());
    });
  }
  return { model: joint, theta };
}

/** The benchmark problem of a model. */
function problem(name: BenchModel, n: number, draws: number, seed: number) {
  if (isGlm(name)) return glmProblem(GLMS[name], n, draws, seed);
  switch (name) {
    case "categorical":
      return categoricalProblem(n, draws, seed);
    case "hurdle":
      return hurdleProblem(n, draws, seed);
    case "fbs":
      return fbsProblem(n, draws, seed);
    case "fbp":
      return fbpProblem(n, draws, seed);
    case "joint":
      return jointProblem(n, draws, seed);
  }
}

/** The problems' descriptions in the tables' headings. */
const DESCRIPTION: Readonly<Record<BenchModel, string>> = {
  negbin: "NB model, K = 3",
  poisson: "Poisson model, K = 3",
  logistic: "logistic model, K = 3",
  categorical: "categorical model, L = 4, K = 3 (9 coefficients)",
  beta: "beta model, K = 3, φ = 50",
  normal: "normal model (gaussian kernel), K = 3",
  lognormal: "lognormal model (gaussian kernel), K = 3",
  hurdle: "hurdle lognormal model, K = 3 per part, about 30 % zeros",
  fbs: "FBS survey model, (log y, log w) bivariate normal, K = 3 per outcome",
  fbp: "FBP survey model, (log y, log π), K = 3 for β and for κ_x",
  joint:
    "joint model: logistic + categorical (L = 3) + normal given z and g (K = 4, 5, 7); end-to-end only",
};

/** Seconds taken by `work` (one run). */
async function time<T>(work: () => Promise<T> | T): Promise<{ seconds: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { seconds: (performance.now() - started) / 1000, value };
}

/** Seconds for one dispatch of `workgroups` workgroups of a kernel (after a warm-up run). */
async function microKernel(
  gpu: GpuContext,
  code: string,
  buffers: GPUBuffer[],
  workgroups: number,
): Promise<number> {
  const { device } = gpu;
  const module = device.createShaderModule({ code });
  const pipeline = device.createComputePipeline({
    layout: "auto",
    compute: { module, entryPoint: "main" },
  });
  const group = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
  const once = async () => {
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(workgroups);
    pass.end();
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
  };
  await once();
  return (await time(once)).seconds;
}

/** f32 FMA throughput (FLOP/s): 4 independent vec4 FMA chains of 2048 steps per thread. */
async function peakFlops(gpu: GpuContext): Promise<number> {
  const workgroups = 512;
  const steps = 2048;
  const out = gpu.device.createBuffer({
    size: workgroups * 64 * 16,
    usage: GPUBufferUsage.STORAGE,
  });
  const code = `
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let seed = f32(id.x) * 1e-7;
  var a = vec4<f32>(seed, 1.0, 2.0, 3.0);
  var b = a + 0.5;
  var c = a + 0.25;
  var d = a + 0.125;
  let m = vec4<f32>(0.9999);
  let k = vec4<f32>(1e-4);
  for (var i = 0; i < ${steps}; i++) {
    a = fma(a, m, k);
    b = fma(b, m, k);
    c = fma(c, m, k);
    d = fma(d, m, k);
  }
  out[id.x] = a + b + c + d;
}`;
  const seconds = await microKernel(gpu, code, [out], workgroups);
  out.destroy();
  return (workgroups * 64 * steps * 4 * 4 * 2) / seconds;
}

/** Copy bandwidth (bytes/s read + written) over a 64 MiB buffer, 2¹⁴ threads striding over it. */
async function peakBandwidth(gpu: GpuContext): Promise<number> {
  const bytes = 64 * 2 ** 20;
  const usage = GPUBufferUsage.STORAGE;
  const src = gpu.device.createBuffer({ size: bytes, usage });
  const dst = gpu.device.createBuffer({ size: bytes, usage });
  const workgroups = 256;
  const code = `
@group(0) @binding(0) var<storage, read_write> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  for (var i = id.x; i < arrayLength(&src); i += ${workgroups * 64}u) { dst[i] = src[i] * 2.0; }
}`;
  const seconds = await microKernel(gpu, code, [src, dst], workgroups);
  src.destroy();
  dst.destroy();
  return (2 * bytes) / seconds;
}

/** Buffer-to-buffer copy bandwidth (bytes/s read + written) over 64 MiB: the driver's memcpy. */
async function copyBandwidth(gpu: GpuContext): Promise<number> {
  const { device } = gpu;
  const bytes = 64 * 2 ** 20;
  const src = device.createBuffer({ size: bytes, usage: GPUBufferUsage.COPY_SRC });
  const dst = device.createBuffer({ size: bytes, usage: GPUBufferUsage.COPY_DST });
  const once = async () => {
    const encoder = device.createCommandEncoder();
    encoder.copyBufferToBuffer(src, 0, dst, 0, bytes);
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
  };
  await once();
  const { seconds } = await time(once);
  src.destroy();
  dst.destroy();
  return (2 * bytes) / seconds;
}

const { values } = parseArgs({
  options: {
    models: { type: "string", default: "negbin" },
    sizes: { type: "string", default: "1000,10000,100000" },
    draws: { type: "string", default: "4000" },
    seed: { type: "string", default: "1" },
  },
});
const models = values.models.split(",") as BenchModel[];
for (const name of models) {
  if (!MODELS.includes(name)) throw new Error(`Unknown model: ${name} (${MODELS.join(", ")})`);
}
const kernelModels = models.filter((name): name is KernelModel => name !== "joint");
const sizes = values.sizes.split(",").map(Number);
const S = Number(values.draws);
const seed = Number(values.seed);

const gpu = await acquireGpu();
if (gpu === null) throw new Error("no WebGPU adapter");
const backend = createGpuLipschitz(gpu);
for (const name of models) {
  // Compile each pipeline outside the timings.
  const { model, theta } = problem(name, 100, 10, seed);
  await backend.compute(model, theta);
}

const fmt = (v: number) => v.toExponential(2);
const rows: { name: KernelModel; n: number; kernelRate: number; bytesPerEval: number }[] = [];
for (const name of models) {
  console.log(`Adapter: ${gpu.description}; S = ${S}; ${DESCRIPTION[name]}; seed ${seed}`);
  console.log("");
  console.log(
    "|       n | CPU f64 (s) | CPU evals/s | CPU, every core (s) | every core evals/s | GPU end-to-end (s) | GPU evals/s | kernel only (s) | kernel evals/s | ns/eval CPU · GPU · kernel | f64 re-checked | near ties | Δ and Δ_i equal |",
  );
  console.log(
    "| ------: | ----------: | ----------: | ------------------: | -----------------: | -----------------: | ----------: | --------------: | -------------: | -------------------------: | -------------: | --------: | :--------------: |",
  );
  for (const n of sizes) {
    const { model, theta } = problem(name, n, S, seed);
    const evals = n * S;
    const cpu = await time(() => lipschitz(model, theta));
    const cores = await time(() => parallelLipschitz(model, theta));
    const gpuRun = await time(() => backend.compute(model, theta));
    const stats = backend.lastStats;
    let kernel: { seconds: number } | null = null;
    if (name !== "joint") {
      const packed = packLipschitz(model, theta, null);
      kernel = await time(() => runLipschitzKernel(gpu, packed, false, gpu.limits));
      const plan = planTiles(
        n,
        S,
        packed.recStride,
        packed.drawStride,
        false,
        gpu.limits,
        Math.floor(LOOP_BUDGET / loopIterationsPerDraw(packed)),
      );
      // Unique bytes per evaluation: each thread reads its record and writes its partial maximum
      // once per group of draws; each tile reads every draw once (cached across its threads).
      const bytesPerEval = (packed.recStride * 4 + 20) / plan.drawsPerGroup +
        (packed.drawStride * 4) / plan.recordsPerTile;
      rows.push({ name, n, kernelRate: evals / kernel.seconds, bytesPerEval });
    }
    const ns = (seconds: number) => (1e9 * seconds / evals).toFixed(1);
    const kernelSeconds = kernel === null ? "—" : kernel.seconds.toFixed(2);
    const kernelRate = kernel === null ? "—" : fmt(evals / kernel.seconds);
    const kernelNs = kernel === null ? "—" : ns(kernel.seconds);
    console.log(
      `| ${String(n).padStart(7)} | ${cpu.seconds.toFixed(2).padStart(11)} | ${
        fmt(evals / cpu.seconds).padStart(11)
      } | ${cores.seconds.toFixed(2).padStart(19)} | ${fmt(evals / cores.seconds).padStart(18)} | ${
        gpuRun.seconds.toFixed(2).padStart(18)
      } | ${fmt(evals / gpuRun.seconds).padStart(11)} | ${kernelSeconds.padStart(15)} | ${
        kernelRate.padStart(14)
      } | ${`${ns(cpu.seconds)} · ${ns(gpuRun.seconds)} · ${kernelNs}`.padStart(26)} | ${
        String(stats?.recomputed).padStart(14)
      } | ${String(stats?.nearTies).padStart(9)} | ${
        gpuRun.value.overall === cpu.value.overall &&
          gpuRun.value.perRecord.every((v, i) => v === cpu.value.perRecord[i]) &&
          cores.value.overall === cpu.value.overall &&
          cores.value.perRecord.every((v, i) => v === cpu.value.perRecord[i])
          ? "yes"
          : "NO"
      } |`,
    );
  }
  console.log("");
  if (name === "joint") {
    console.log(
      "Joint pass: end-to-end only. It runs one kernel per conditional, each writing its signed " +
        "S×n values (no per-record maximum on the device); they are read back and summed per " +
        "record in f64 on the CPU, chunk by chunk, before the f64 confirmation. No one kernel's " +
        "time or roofline describes it: the readback and the CPU sum are part of the cost.",
    );
    console.log("");
  }
}

const flops = await peakFlops(gpu);
const bandwidth = await peakBandwidth(gpu);
const memcpy = await copyBandwidth(gpu);
console.log(
  `Measured on this adapter: f32 FMA ${(flops / 1e9).toFixed(1)} GFLOP/s; shader copy ${
    (bandwidth / 1e9).toFixed(1)
  } GB/s (the memory bound below); buffer-to-buffer copy ${(memcpy / 1e9).toFixed(1)} GB/s.`,
);
for (const name of kernelModels) {
  const cost = COSTS[name];
  console.log(
    `Kernel cost, ${name} (${cost.note}): ${cost.arithmetic.value} + ${cost.arithmetic.bound} + ` +
      `${cost.arithmetic.loop} arithmetic ops (value, error bound, loop), ${cost.transcendental} ` +
      `exp/log (≈ ${TRANSCENDENTAL_FLOPS} each), ${cost.division} divisions: ≈ ${
        flopsPerEval(cost)
      } FLOP per evaluation.`,
  );
}
console.log("");
console.log(
  "| model       |       n | bytes/eval | FLOP/byte | compute bound (evals/s) | memory bound (evals/s) | achieved (kernel) | of bound |",
);
console.log(
  "| ----------- | ------: | ---------: | --------: | ----------------------: | ---------------------: | ----------------: | -------: |",
);
for (const { name, n, kernelRate, bytesPerEval } of rows) {
  const perEval = flopsPerEval(COSTS[name]);
  const computeBound = flops / perEval;
  const memoryBound = bandwidth / bytesPerEval;
  const bound = Math.min(computeBound, memoryBound);
  console.log(
    `| ${name.padEnd(11)} | ${String(n).padStart(7)} | ${bytesPerEval.toFixed(3).padStart(10)} | ${
      (perEval / bytesPerEval).toFixed(0).padStart(9)
    } | ${computeBound.toExponential(2).padStart(23)} | ${
      memoryBound.toExponential(2).padStart(22)
    } | ${kernelRate.toExponential(2).padStart(17)} | ${
      ((100 * kernelRate) / bound).toFixed(0).padStart(7)
    }% |`,
  );
}
