import assert from "node:assert/strict";
import philoxSource from "../../shaders/philox.wgsl" with { type: "text" };
import { cachedPipeline, withErrorScopes } from "../../src/gpu/device.ts";
import { philox4x32, Rng } from "../../src/random/rng.ts";
import { announceGpu, encodePass, gpu, GPU_TEST } from "./_helpers.ts";

announceGpu("the WGSL Philox tests", true);

/** Per input: counter (4 words) and key (2); per output: the block (4) and three floats. */
const KERNEL = `${philoxSource}
@group(0) @binding(0) var<storage, read> inputs: array<u32>;
@group(0) @binding(1) var<storage, read_write> words: array<u32>;
@group(0) @binding(2) var<storage, read_write> floats: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= arrayLength(&inputs) / 6u) {
    return;
  }
  let o = 6u * i;
  let block = philox4x32(
    vec4<u32>(inputs[o], inputs[o + 1u], inputs[o + 2u], inputs[o + 3u]),
    vec2<u32>(inputs[o + 4u], inputs[o + 5u]),
  );
  words[4u * i] = block.x;
  words[4u * i + 1u] = block.y;
  words[4u * i + 2u] = block.z;
  words[4u * i + 3u] = block.w;
  let z = philox_normal2(block.x, block.y);
  floats[3u * i] = philox_uniform(block.z);
  floats[3u * i + 1u] = z.x;
  floats[3u * i + 2u] = z.y;
}
`;

/** Runs the kernel on `count` (counter, key) inputs; returns the blocks and floats. */
async function runKernel(
  inputs: Uint32Array<ArrayBuffer>,
): Promise<{ words: Uint32Array; floats: Float32Array }> {
  const device = gpu!.device;
  const count = inputs.length / 6;
  return await withErrorScopes(device, "philox test", async () => {
    const pipeline = cachedPipeline(device, "philox-test", KERNEL);
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const input = device.createBuffer({ size: inputs.byteLength, usage: storage });
    const words = device.createBuffer({ size: 16 * count, usage: storage });
    const floats = device.createBuffer({ size: 12 * count, usage: storage });
    const staging = device.createBuffer({
      size: 28 * count,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(input, 0, inputs);
    const encoder = encodePass(device, pipeline, [input, words, floats], count);
    encoder.copyBufferToBuffer(words, 0, staging, 0, 16 * count);
    encoder.copyBufferToBuffer(floats, 0, staging, 16 * count, 12 * count);
    device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const bytes = staging.getMappedRange().slice(0);
    staging.unmap();
    for (const buffer of [input, words, floats, staging]) buffer.destroy();
    return {
      words: new Uint32Array(bytes, 0, 4 * count),
      floats: new Float32Array(bytes, 16 * count, 3 * count),
    };
  });
}

/** Fresh random (counter, key) inputs from the CPU generator, plus edge words. */
function randomInputs(seed: number, count: number): Uint32Array<ArrayBuffer> {
  const rng = new Rng(seed);
  const inputs = new Uint32Array(6 * count);
  for (let i = 0; i < inputs.length; i++) inputs[i] = rng.nextUint32();
  inputs.set([0, 0, 0, 0, 0, 0], 0);
  inputs.set([0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff], 6);
  inputs.set([1, 0, 0, 0, 0xffff, 0x10000], 12);
  return inputs;
}

Deno.test({
  name:
    "WGSL `philox4x32()` is bit-identical to the CPU `philox4x32()` on random counters and keys",
  ...GPU_TEST,
  fn: async () => {
    const inputs = randomInputs(20261121, 4096);
    const { words } = await runKernel(inputs);
    for (let i = 0; i < inputs.length / 6; i++) {
      const want = philox4x32(
        inputs.subarray(6 * i, 6 * i + 4),
        inputs.subarray(6 * i + 4, 6 * i + 6),
      );
      for (let w = 0; w < 4; w++) {
        assert.equal(words[4 * i + w], want[w], `input ${i}, word ${w}`);
      }
    }
  },
});

Deno.test({
  name: "WGSL `philox_uniform()` and `philox_normal2()` map words as their formulas say",
  ...GPU_TEST,
  fn: async () => {
    const inputs = randomInputs(7, 1024);
    const { words, floats } = await runKernel(inputs);
    for (let i = 0; i < inputs.length / 6; i++) {
      // (⌊w/2⁹⌋ + ½)·2⁻²³ is exact in f32.
      const u = ((words[4 * i + 2] >>> 9) + 0.5) / 8388608;
      assert.equal(floats[3 * i], u);
      assert.ok(u > 0 && u < 1);
      const u1 = ((words[4 * i] >>> 9) + 0.5) / 8388608;
      const u2 = ((words[4 * i + 1] >>> 9) + 0.5) / 8388608;
      const r = Math.sqrt(-2 * Math.log(u1));
      const theta = 2 * Math.PI * (u2 - 0.5);
      // WGSL's accuracy table: log within 3 ULP (or 2⁻²¹ absolute near 1), so r within about
      // 2⁻¹⁹·(1 + 1/r); cos and sin within 2⁻¹¹ absolute on [−π, π].
      const tol = 2 ** -11 * r + 2 ** -19 * (1 + 1 / r);
      assert.ok(Math.abs(floats[3 * i + 1] - r * Math.cos(theta)) <= tol, `cos at input ${i}`);
      assert.ok(Math.abs(floats[3 * i + 2] - r * Math.sin(theta)) <= tol, `sin at input ${i}`);
    }
  },
});
