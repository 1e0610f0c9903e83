import assert from "node:assert/strict";
import special from "../../shaders/special.wgsl" with { type: "text" };
import { cachedPipeline, type GpuContext, withErrorScopes } from "../../src/gpu/device.ts";
import { digamma, HALF_LOG_2PI, lgamma, log1pExp } from "../../src/stats/special.ts";
import { Rng } from "../../src/random/rng.ts";
import { announceGpu, encodePass, gpuTest } from "./_helpers.ts";

announceGpu("the special.wgsl tests");

/** The unit roundoff of f32. */
const U = 2 ** -24;

/**
 * Evaluates `value(x)` and `err(x, v)` (WGSL expressions in x and v) at every f32 input on the
 * GPU; returns [value, err] per input.
 */
async function evaluate(
  ctx: GpuContext,
  label: string,
  value: string,
  err: string,
  inputs: Float32Array<ArrayBuffer>,
): Promise<{ value: Float32Array; err: Float32Array }> {
  const { device } = ctx;
  const code = `${special}
@group(0) @binding(0) var<storage, read> xs: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= arrayLength(&xs)) { return; }
  let x = xs[i];
  let v = ${value};
  out[2u * i] = v;
  out[2u * i + 1u] = ${err};
}`;
  return await withErrorScopes(device, `special ${label}`, async () => {
    const pipeline = cachedPipeline(device, `special_test_${label}`, code);
    const input = device.createBuffer({
      size: inputs.byteLength,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    const output = device.createBuffer({
      size: 2 * inputs.byteLength,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
    });
    const staging = device.createBuffer({
      size: 2 * inputs.byteLength,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(input, 0, inputs);
    const encoder = encodePass(device, pipeline, [input, output], inputs.length);
    encoder.copyBufferToBuffer(output, 0, staging, 0, 2 * inputs.byteLength);
    device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const both = new Float32Array(staging.getMappedRange().slice(0));
    staging.unmap();
    for (const b of [input, output, staging]) b.destroy();
    const n = inputs.length;
    return {
      value: Float32Array.from({ length: n }, (_, i) => both[2 * i]),
      err: Float32Array.from({ length: n }, (_, i) => both[2 * i + 1]),
    };
  });
}

/** Geometric grid from lo to hi (both positive) with `count` points, plus `extra`, as f32. */
function points(
  lo: number,
  hi: number,
  count: number,
  extra: number[],
): Float32Array<ArrayBuffer> {
  const grid = Array.from({ length: count }, (_, i) => lo * (hi / lo) ** (i / (count - 1)));
  return Float32Array.from([...grid, ...extra]);
}

/** `count` uniform f32 points on (lo, hi) from a seeded stream. */
function uniformPoints(seed: number, lo: number, hi: number, count: number): number[] {
  const rng = new Rng(seed);
  return Array.from({ length: count }, () => lo + (hi - lo) * rng.uniform());
}

/**
 * Checks |gpu − reference| ≤ bound·u at every point; returns the largest ratio of the error to
 * the bound, for the message.
 */
function checkAll(
  label: string,
  xs: Float32Array,
  got: Float32Array,
  bound: (x: number, v: number, i: number) => number,
  reference: (x: number) => number,
): number {
  let worst = 0;
  for (let i = 0; i < xs.length; i++) {
    const want = reference(xs[i]);
    const error = Math.abs(got[i] - want);
    const allowed = bound(xs[i], got[i], i) * U;
    assert.ok(
      error <= allowed,
      `${label}(${xs[i]}) = ${got[i]}, f64 ${want}: error ${error} > bound ${allowed}`,
    );
    if (error > 0) worst = Math.max(worst, error / allowed);
  }
  return worst;
}

gpuTest("`lgamma_f32()` matches `lgamma()` within its stated error bound", async (ctx) => {
  const xs = points(1e-30, 1e6, 600, [
    ...uniformPoints(11, 0, 20, 400),
    ...uniformPoints(12, 0.9, 1.1, 100),
    ...uniformPoints(13, 1.9, 2.1, 100),
    0.5,
    1,
    2,
    3,
    7.999999,
    8,
    8.000001,
    1e10,
    1e20,
  ]);
  const { value, err } = await evaluate(ctx, "lgamma", "lgamma_f32(x)", "lgamma_f32_err(x, v)", xs);
  const worst = checkAll("lgamma_f32", xs, value, (_x, _v, i) => err[i], lgamma);
  // The stated bound in closed form: 370 + 7|v| below 8, about 25 relative at and above 8.
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    const want = lgamma(x);
    const closed = x < 8 ? 370 + 7 * Math.abs(want) : 11 * want + 14 * x + 5;
    assert.ok(err[i] <= closed * (1 + 1e-5) + 1e-3, `lgamma_f32_err(${x}) = ${err[i]} > ${closed}`);
    if (x >= 8) assert.ok(closed <= 26 * want, `relative bound at x = ${x}`);
  }
  console.log(`lgamma_f32: largest error / bound = ${worst.toFixed(3)}`);
});

gpuTest("`digamma_f32()` matches `digamma()` within u·(70 + 17/x + 9|log x|)", async (ctx) => {
  const xs = points(1e-30, 1e6, 600, [
    ...uniformPoints(21, 0, 20, 400),
    ...uniformPoints(22, 1.4, 1.5, 100),
    1,
    2,
    7.999999,
    8,
  ]);
  const { value } = await evaluate(ctx, "digamma", "digamma_f32(x)", "0.0", xs);
  const worst = checkAll(
    "digamma_f32",
    xs,
    value,
    (x) => 70 + 17 / x + 9 * Math.abs(Math.log(x)),
    digamma,
  );
  console.log(`digamma_f32: largest error / bound = ${worst.toFixed(3)}`);
});

gpuTest("`log1p_f32()` matches `Math.log1p()` within its stated error bound", async (ctx) => {
  const tiny = points(1e-30, 0.5, 300, []);
  const xs = Float32Array.from([
    ...tiny,
    ...tiny.map((t) => -t),
    ...uniformPoints(31, -1, 3, 400),
    ...points(1, 1e30, 100, []),
    -0.999999,
    -0.5,
    1,
    1.0000001,
    0,
  ]);
  const { value, err } = await evaluate(ctx, "log1p", "log1p_f32(x)", "log1p_f32_err(x, v)", xs);
  const worst = checkAll("log1p_f32", xs, value, (_x, _v, i) => err[i], Math.log1p);
  for (let i = 0; i < xs.length; i++) {
    if (xs[i] >= -0.5 && xs[i] <= 1) {
      assert.ok(err[i] <= 10 * Math.abs(Math.log1p(xs[i])) * (1 + 1e-6), `relative at ${xs[i]}`);
    }
  }
  console.log(`log1p_f32: largest error / bound = ${worst.toFixed(3)}`);
});

gpuTest("`log1p_exp_f32()` matches `log1pExp()` within its stated error bound", async (ctx) => {
  const xs = Float32Array.from([
    ...uniformPoints(41, -85, 85, 800),
    ...uniformPoints(42, -1, 1, 200),
    0,
    1e-20,
    -1e-20,
    100,
    -87,
  ]);
  const { value, err } = await evaluate(
    ctx,
    "log1p_exp",
    "log1p_exp_f32(x)",
    "log1p_exp_f32_err(x, v)",
    xs,
  );
  const worst = checkAll("log1p_exp_f32", xs, value, (_x, _v, i) => err[i], log1pExp);
  console.log(`log1p_exp_f32: largest error / bound = ${worst.toFixed(3)}`);
});

gpuTest("`stirling_rem_f32()` is Stirling's remainder within u/4", async (ctx) => {
  const xs = points(8, 1e4, 300, [12.5, ...uniformPoints(51, 8, 30, 200)]);
  const { value } = await evaluate(ctx, "stirling", "stirling_rem_f32(x)", "0.0", xs);
  const worst = checkAll(
    "stirling_rem_f32",
    xs,
    value,
    () => 0.25,
    // The remainder through x⁻¹³ (src/stats/special.ts's series), accurate to 1e-17.
    (x) => {
      const r = 1 / (x * x);
      return (1 / 12 -
        r * (1 / 360 -
            r * (1 / 1260 - r * (1 / 1680 - r * (1 / 1188 - r * (691 / 360360 - r / 156)))))) /
        x;
    },
  );
  console.log(`stirling_rem_f32: largest error / bound = ${worst.toFixed(3)}`);
  // The remainder is the gap between log Γ and Stirling's leading terms (x = 12.5 is xs[300]).
  const gap = lgamma(12.5) - (12 * Math.log(12.5) - 12.5 + HALF_LOG_2PI);
  assert.ok(Math.abs(gap - value[300]) < 0.25 * U, `δ(12.5) = ${value[300]}, want ${gap}`);
});
