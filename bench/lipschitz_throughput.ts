/**
 * Lipschitz matrix throughput (issue 4): draw × record evaluations of |α_i·ℓ_i(θ_s)| per second
 * for the negative binomial model (K = 3: intercept, a normal and a binary covariate) at
 * S = 4000 draws and n ∈ {10³, 10⁴, 10⁵}, on the CPU (the f64 TypeScript loop `lipschitz()`, in
 * this thread and split over every core by `parallelLipschitz()`)
 * and on the GPU (`createGpuLipschitz`: packing, f32 kernel and f64 confirmation; and the kernel
 * alone), side by side in one run. It also measures the adapter's f32 FMA throughput and copy
 * bandwidth with two micro-kernels, for a roofline estimate, and prints markdown tables.
 *
 *     deno run -A bench/lipschitz_throughput.ts [--sizes 1000,10000,100000] [--draws 4000] [--seed 1]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { acquireGpu, type GpuContext } from "../src/gpu/device.ts";
import { createGpuLipschitz, planTiles, runLipschitzKernel } from "../src/gpu/lipschitz_gpu.ts";
import { packLipschitz } from "../src/gpu/lipschitz_pack.ts";
import { lipschitz } from "../src/mechanisms/lipschitz.ts";
import { parallelLipschitz } from "../src/mechanisms/parallel_lipschitz.ts";
import { NegBinModel } from "../src/models/negbin.ts";
import { sampleNegBinomial } from "../src/random/distributions.ts";
import { Rng } from "../src/random/rng.ts";

/**
 * Operations per NB evaluation, counted in shaders/lipschitz_negbin.wgsl on the path this data
 * takes (φ ≥ 8, d ≤ 0, K = 3) and lipschitz_common.wgsl: the value of ℓ (linear predictor 4,
 * log1p series 22 twice, Stirling remainder 5, …), its error bound (about 5 per EV add and 9 per
 * EV product), and the draw loop's |α·ℓ|, bound, finiteness bits and max/arg-max.
 */
const OPS = {
  /** f32 add, sub, mul, abs, min/max, compare and select; an fma counts 2. */
  arithmetic: { value: 77, bound: 140, loop: 18 },
  /** exp (in log1p_exp) and log (of φ + y). */
  transcendental: 2,
  /** y/φ, one per log1p series (2), Stirling's 1/x; four more in the error bound. */
  division: 8,
};
/** An exp or log in llvmpipe's LLVM code: about 25 vector instructions. */
const TRANSCENDENTAL_FLOPS = 25;
/** FLOP-equivalents per evaluation. */
const FLOPS_PER_EVAL = OPS.arithmetic.value + OPS.arithmetic.bound + OPS.arithmetic.loop +
  OPS.transcendental * TRANSCENDENTAL_FLOPS + OPS.division;

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
    sizes: { type: "string", default: "1000,10000,100000" },
    draws: { type: "string", default: "4000" },
    seed: { type: "string", default: "1" },
  },
});
const sizes = values.sizes.split(",").map(Number);
const S = Number(values.draws);
const seed = Number(values.seed);

const gpu = await acquireGpu();
if (gpu === null) throw new Error("no WebGPU adapter");
const backend = createGpuLipschitz(gpu);
{
  // Compile the pipeline outside the timings.
  const { model, theta } = nbProblem(100, 10, seed);
  await backend.compute(model, theta);
}

console.log(`Adapter: ${gpu.description}; S = ${S}; NB model, K = 3; seed ${seed}`);
console.log("");
console.log(
  "|       n | CPU f64 (s) | CPU evals/s | CPU, every core (s) | every core evals/s | GPU end-to-end (s) | GPU evals/s | kernel only (s) | kernel evals/s | f64 re-checked | near ties | Δ and Δ_i equal |",
);
console.log(
  "| ------: | ----------: | ----------: | ------------------: | -----------------: | -----------------: | ----------: | --------------: | -------------: | -------------: | --------: | :--------------: |",
);
const rows: { n: number; kernelRate: number; bytesPerEval: number }[] = [];
for (const n of sizes) {
  const { model, theta } = nbProblem(n, S, seed);
  const evals = n * S;
  const cpu = await time(() => lipschitz(model, theta));
  const cores = await time(() => parallelLipschitz(model, theta));
  const gpuRun = await time(() => backend.compute(model, theta));
  const packed = packLipschitz(model, theta, null);
  const kernel = await time(() => runLipschitzKernel(gpu, packed, false, gpu.limits));
  const plan = planTiles(n, S, packed.recStride, packed.drawStride, false, gpu.limits);
  // Unique bytes per evaluation: each thread reads its record and writes its partial maximum
  // once per group of draws; each tile reads every draw once (cached across its threads).
  const bytesPerEval = (packed.recStride * 4 + 20) / plan.drawsPerGroup +
    (packed.drawStride * 4) / plan.recordsPerTile;
  rows.push({ n, kernelRate: evals / kernel.seconds, bytesPerEval });
  const fmt = (v: number) => v.toExponential(2);
  console.log(
    `| ${String(n).padStart(7)} | ${cpu.seconds.toFixed(2).padStart(11)} | ${
      fmt(evals / cpu.seconds).padStart(11)
    } | ${cores.seconds.toFixed(2).padStart(19)} | ${fmt(evals / cores.seconds).padStart(18)} | ${
      gpuRun.seconds.toFixed(2).padStart(18)
    } | ${fmt(evals / gpuRun.seconds).padStart(11)} | ${kernel.seconds.toFixed(2).padStart(15)} | ${
      fmt(evals / kernel.seconds).padStart(14)
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

const flops = await peakFlops(gpu);
const bandwidth = await peakBandwidth(gpu);
const memcpy = await copyBandwidth(gpu);
console.log("");
console.log(
  `Measured on this adapter: f32 FMA ${(flops / 1e9).toFixed(1)} GFLOP/s; shader copy ${
    (bandwidth / 1e9).toFixed(1)
  } GB/s (the memory bound below); buffer-to-buffer copy ${(memcpy / 1e9).toFixed(1)} GB/s.`,
);
console.log(
  `Kernel cost: ${OPS.arithmetic.value} + ${OPS.arithmetic.bound} + ${OPS.arithmetic.loop} ` +
    `arithmetic ops (value, error bound, loop), ${OPS.transcendental} exp/log (≈ ${TRANSCENDENTAL_FLOPS} each), ` +
    `${OPS.division} divisions: ≈ ${FLOPS_PER_EVAL} FLOP per evaluation.`,
);
console.log("");
console.log(
  "|       n | bytes/eval | FLOP/byte | compute bound (evals/s) | memory bound (evals/s) | achieved (kernel) | of bound |",
);
console.log(
  "| ------: | ---------: | --------: | ----------------------: | ---------------------: | ----------------: | -------: |",
);
for (const { n, kernelRate, bytesPerEval } of rows) {
  const computeBound = flops / FLOPS_PER_EVAL;
  const memoryBound = bandwidth / bytesPerEval;
  const bound = Math.min(computeBound, memoryBound);
  console.log(
    `| ${String(n).padStart(7)} | ${bytesPerEval.toFixed(3).padStart(10)} | ${
      (FLOPS_PER_EVAL / bytesPerEval).toFixed(0).padStart(9)
    } | ${computeBound.toExponential(2).padStart(23)} | ${
      memoryBound.toExponential(2).padStart(22)
    } | ${kernelRate.toExponential(2).padStart(17)} | ${
      ((100 * kernelRate) / bound).toFixed(0).padStart(7)
    }% |`,
  );
}
