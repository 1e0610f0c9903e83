/**
 * Lipschitz matrix throughput (issues 4 and 27): draw × record evaluations of |α_i·ℓ_i(θ_s)| per
 * second for the negative binomial, logistic and categorical (L = 4 levels) models (K = 3:
 * intercept, a normal and a binary covariate) at S = 4000 draws and n ∈ {10³, 10⁴, 10⁵}, on the
 * CPU (the f64 TypeScript loop `lipschitz()`, in this thread and split over every core by
 * `parallelLipschitz()`) and on the GPU (`createGpuLipschitz`: packing, f32 kernel and f64
 * confirmation; and the kernel alone), side by side in one run. It also measures the adapter's
 * f32 FMA throughput and copy bandwidth with two micro-kernels, for a roofline estimate of each
 * kernel, and prints markdown tables.
 *
 *     deno run -A bench/lipschitz_throughput.ts [--models negbin,logistic,categorical]
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
import { CategoricalModel } from "../src/models/categorical.ts";
import { LogisticModel } from "../src/models/logistic.ts";
import { NegBinModel } from "../src/models/negbin.ts";
import { sampleNegBinomial } from "../src/random/distributions.ts";
import { Rng } from "../src/random/rng.ts";

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
 * Operations per evaluation, counted in shaders/lipschitz_<kernel>.wgsl and
 * lipschitz_common.wgsl on the path this data takes, K = 3 (linear predictor 4 for the value, 7
 * for its bound; about 5 per bounded sum and 9 per bounded product).
 */
const COSTS: Readonly<Record<BenchModel, KernelCost>> = {
  // φ ≥ 8, d ≤ 0: log1p series 22 twice, Stirling remainder 5, …; exp (in log1p_exp) and log (of
  // φ + y); y/φ, one per log1p series (2), Stirling's 1/x, four more in the bound.
  negbin: {
    arithmetic: { value: 77, bound: 140, loop: LOOP_OPS },
    transcendental: 2,
    division: 8,
    note: "φ ≥ 8, d ≤ 0",
  },
  // Value: η (4), t = ±η and the branch tests (6), the log1p series (22), the difference (2).
  // Bound: η (11), exp (5), log1p (7), the difference (5). One exp; the series' z = x/(2 + x)
  // and the bound's δ/(1 + x).
  logistic: {
    arithmetic: { value: 34, bound: 28, loop: LOOP_OPS },
    transcendental: 1,
    division: 2,
    note: "one exp, the log1p series",
  },
  // L = 4, K = 3. Pass 1: 3 linear predictors (4 + 11 each) and the running max and y's η (3 +
  // 1 each). Pass 2: the 2 non-reference levels other than the top recomputed (4 + 11 each), 3
  // differences from the max (1 + 5), range tests (2 each), 3 exponentials (1 + 5) summed
  // (1 + 5); log1p of the sum by its direct branch (a log; 3 + 9 for its bound) and the final
  // two differences (2 + 10).
  categorical: {
    arithmetic: { value: 46, bound: 121, loop: LOOP_OPS },
    transcendental: 4,
    division: 1,
    note: "L = 4: 3 exp and one log",
  },
};
/** An exp or log in llvmpipe's LLVM code: about 25 vector instructions. */
const TRANSCENDENTAL_FLOPS = 25;

/** FLOP-equivalents per evaluation of a kernel. */
function flopsPerEval(cost: KernelCost): number {
  return cost.arithmetic.value + cost.arithmetic.bound + cost.arithmetic.loop +
    cost.transcendental * TRANSCENDENTAL_FLOPS + cost.division;
}

/** The models this benchmark runs. */
type BenchModel = "negbin" | "logistic" | "categorical";

/** The NB model with n records, and S draws around the generating parameters. */
function nbProblem(n: number, draws: number, seed: number) {
  const rng = new Rng(seed);
  const k = 3;
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  const beta = [2, 0.5, -0.3];
  const phi = 11;
  for (let i = 0; i < n; i++) {
    x[i * k] = 1;
    x[i * k + 1] = rng.normal();
    x[i * k + 2] = rng.uniform() < 0.5 ? 1 : 0;
    const eta = beta[0] + beta[1] * x[i * k + 1] + beta[2] * x[i * k + 2];
    y[i] = sampleNegBinomial(rng, Math.exp(eta), phi);
  }
  const model = new NegBinModel({ n, k, y, x, coefficientNames: ["intercept", "z", "b"] });
  const theta = new Float64Array(draws * model.dim);
  for (let s = 0; s < draws; s++) {
    const at = s * model.dim;
    for (let j = 0; j < k; j++) theta[at + j] = beta[j] + 0.05 * rng.normal();
    for (let j = k; j < 2 * k; j++) theta[at + j] = 1;
    theta[at + 2 * k] = phi * Math.exp(0.1 * rng.normal());
  }
  return { model, theta };
}

/** The covariates of record i: intercept, a standard normal, a fair binary. */
function covariates(rng: Rng, x: Float64Array, i: number): void {
  x[i * 3] = 1;
  x[i * 3 + 1] = rng.normal();
  x[i * 3 + 2] = rng.uniform() < 0.5 ? 1 : 0;
}

/** The logistic model with n records from logit⁻¹(−0.3 + 1.2z − 0.8b), and S draws around it. */
function logisticProblem(n: number, draws: number, seed: number) {
  const rng = new Rng(seed);
  const k = 3;
  const beta = [-0.3, 1.2, -0.8];
  const x = new Float64Array(n * k);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    covariates(rng, x, i);
    const eta = beta[0] + beta[1] * x[i * k + 1] + beta[2] * x[i * k + 2];
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  const model = new LogisticModel({
    n,
    k,
    y,
    x,
    coefficientNames: ["intercept", "z", "b"],
    outcomeLevels: ["0", "1"],
  });
  const theta = new Float64Array(draws * model.dim);
  for (let s = 0; s < draws; s++) {
    const at = s * model.dim;
    for (let j = 0; j < k; j++) theta[at + j] = beta[j] + 0.05 * rng.normal();
    for (let j = k; j < 2 * k; j++) theta[at + j] = 1;
  }
  return { model, theta };
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
  const m = (levels - 1) * k;
  const theta = new Float64Array(draws * model.dim);
  for (let s = 0; s < draws; s++) {
    const at = s * model.dim;
    for (let j = 0; j < m; j++) theta[at + j] = beta[j] + 0.05 * rng.normal();
    for (let j = m; j < 2 * m; j++) theta[at + j] = 1;
  }
  return { model, theta };
}

/** The benchmark problem of a model. */
function problem(name: BenchModel, n: number, draws: number, seed: number) {
  switch (name) {
    case "negbin":
      return nbProblem(n, draws, seed);
    case "logistic":
      return logisticProblem(n, draws, seed);
    case "categorical":
      return categoricalProblem(n, draws, seed);
  }
}

/** The problems' descriptions in the tables' headings. */
const DESCRIPTION: Readonly<Record<BenchModel, string>> = {
  negbin: "NB model, K = 3",
  logistic: "logistic model, K = 3",
  categorical: "categorical model, L = 4, K = 3 (9 coefficients)",
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
  if (!(name in COSTS)) throw new Error(`Unknown model: ${name} (negbin, logistic, categorical)`);
}
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
const rows: { name: BenchModel; n: number; kernelRate: number; bytesPerEval: number }[] = [];
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
    const packed = packLipschitz(model, theta, null);
    const kernel = await time(() => runLipschitzKernel(gpu, packed, false, gpu.limits));
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
    const ns = (seconds: number) => (1e9 * seconds / evals).toFixed(1);
    console.log(
      `| ${String(n).padStart(7)} | ${cpu.seconds.toFixed(2).padStart(11)} | ${
        fmt(evals / cpu.seconds).padStart(11)
      } | ${cores.seconds.toFixed(2).padStart(19)} | ${fmt(evals / cores.seconds).padStart(18)} | ${
        gpuRun.seconds.toFixed(2).padStart(18)
      } | ${fmt(evals / gpuRun.seconds).padStart(11)} | ${
        kernel.seconds.toFixed(2).padStart(15)
      } | ${fmt(evals / kernel.seconds).padStart(14)} | ${
        `${ns(cpu.seconds)} · ${ns(gpuRun.seconds)} · ${ns(kernel.seconds)}`.padStart(26)
      } | ${String(backend.lastStats?.recomputed).padStart(14)} | ${
        String(backend.lastStats?.nearTies).padStart(9)
      } | ${
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
}

const flops = await peakFlops(gpu);
const bandwidth = await peakBandwidth(gpu);
const memcpy = await copyBandwidth(gpu);
console.log(
  `Measured on this adapter: f32 FMA ${(flops / 1e9).toFixed(1)} GFLOP/s; shader copy ${
    (bandwidth / 1e9).toFixed(1)
  } GB/s (the memory bound below); buffer-to-buffer copy ${(memcpy / 1e9).toFixed(1)} GB/s.`,
);
for (const name of models) {
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
