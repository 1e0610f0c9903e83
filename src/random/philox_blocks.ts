/**
 * Runs of consecutive Philox4x32-10 blocks in WebAssembly (`philox.wat`): one 64-bit multiplication
 * gives each round's high and low product halves, where `rng.ts`'s `philox4x32` (the reference,
 * and the WGSL port's) assembles the high half from 16-bit halves. Bit-identical to it.
 *
 * The module is compiled and instantiated synchronously from its embedded bytes on first use, once
 * per isolate (each worker has its own), on a memory of one page that holds the blocks of one call.
 *
 * @module
 */
import { PHILOX_WASM } from "./philox_wasm.ts";

/** Blocks one call can write: one 64 KiB page of 16-byte blocks. */
export const MAX_PHILOX_BLOCKS = 4096;

/** fill(count, c0, c1, c2, c3, k0, k1): `count` blocks into the memory's first words. */
type Fill = (...counterAndKey: number[]) => void;

const memory = new WebAssembly.Memory({ initial: 1, maximum: 1 });
const fill = new WebAssembly.Instance(
  new WebAssembly.Module(Uint8Array.from(atob(PHILOX_WASM), (c) => c.charCodeAt(0))),
  { env: { memory } },
).exports.fill as Fill;
/** The memory's words (one page that never grows, so this view stays valid). */
const words = new Uint32Array(memory.buffer);

/**
 * Writes `count` Philox4x32-10 blocks to out[0 … 4·count − 1]: block i is
 * philox4x32((c0 + i mod 2³², c1 + carry mod 2³², c2, c3), (k0, k1)), the 64-bit block number
 * c0 + 2³²·c1 counting up.
 *
 * @param out Receives the words, four per block.
 * @param count Blocks to write, 1 … MAX_PHILOX_BLOCKS and at most out.length / 4.
 * @param c0 Low word of the first block number.
 * @param c1 High word of the first block number.
 * @param c2 Third counter word (fixed).
 * @param c3 Fourth counter word (fixed).
 * @param k0 First key word.
 * @param k1 Second key word.
 * @throws {RangeError} When `count` is out of range.
 *
 * @example The first block of key 0, counter 0 is Random123's known answer
 * ```ts
 * import assert from "node:assert/strict";
 * import { philoxBlocks } from "./philox_blocks.ts";
 * const out = new Uint32Array(8);
 * philoxBlocks(out, 2, 0, 0, 0, 0, 0, 0);
 * assert.deepEqual([...out.subarray(0, 4)], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
 * ```
 */
export function philoxBlocks(
  out: Uint32Array,
  count: number,
  c0: number,
  c1: number,
  c2: number,
  c3: number,
  k0: number,
  k1: number,
): void {
  if (
    !(Number.isInteger(count) && count >= 1 && count <= Math.min(MAX_PHILOX_BLOCKS, out.length / 4))
  ) {
    throw new RangeError(
      `Cannot run Philox as count must be 1…${MAX_PHILOX_BLOCKS} blocks that fit out: count=${count}, out.length=${out.length}`,
    );
  }
  fill(count, c0, c1, c2, c3, k0, k1);
  out.set(words.subarray(0, 4 * count));
}
