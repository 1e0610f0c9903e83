/**
 * The memory of the WebAssembly record loops (`negbin_simd.ts`, `logit_simd.ts`): one dataset's
 * arrays laid out at 16-byte boundaries in a memory the caller owns, per-record arrays with an
 * even number of entries greater than n (a final odd record's second lane reads a finite value),
 * and the design's columns 1..K−1 copied column-major.
 *
 * @module
 */

const PAGE = 65536;

/** The next multiple of 16 bytes. */
function align16(bytes: number): number {
  return Math.ceil(bytes / 16) * 16;
}

/**
 * Entries of each per-record array: n + 1 or n + 2, even.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordStride } from "./wasm_memory.ts";
 * assert.deepEqual([recordStride(3), recordStride(4)], [4, 6]);
 * ```
 */
export function recordStride(n: number): number {
  return n + 2 - (n % 2);
}

/**
 * Byte offsets of arrays of the given sizes, each at a 16-byte boundary, in order; grows `memory`
 * (one page to start with) to hold them all.
 *
 * @param memory The instance's memory.
 * @param sizes The arrays' sizes in bytes.
 * @returns Their byte offsets.
 * @throws {RangeError} When they need more than WebAssembly's 4 GiB.
 */
export function reserve(memory: WebAssembly.Memory, sizes: readonly number[]): number[] {
  let end = 0;
  const offsets = sizes.map((bytes) => {
    const at = end;
    end += align16(bytes);
    return at;
  });
  const pages = Math.ceil(end / PAGE);
  if (pages > 65536) throw new RangeError(`Design too large for WebAssembly memory: ${end} bytes`);
  const have = memory.buffer.byteLength / PAGE;
  if (pages > have) memory.grow(pages - have);
  return offsets;
}

/**
 * Copies columns 1..K−1 of x (n×K row-major) into `f64` column-major from float64 index `at`,
 * `stride` entries apart.
 */
export function copyColumns(
  f64: Float64Array,
  at: number,
  stride: number,
  x: Float64Array,
  n: number,
  k: number,
): void {
  for (let j = 1; j < k; j++) {
    const col = at + (j - 1) * stride;
    for (let i = 0; i < n; i++) f64[col + i] = x[i * k + j];
  }
}

/**
 * A fresh instance of one of the record-loop modules on a memory of its own (one page; `reserve`
 * grows it), with the records per pass its `BLOCK` global declares.
 *
 * @param module The compiled module (its import is `env.memory`).
 * @returns Its exports, its memory and its block size.
 */
export function instantiate<E extends { readonly BLOCK: WebAssembly.Global }>(
  module: WebAssembly.Module,
): { readonly exports: E; readonly memory: WebAssembly.Memory; readonly block: number } {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const exports = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as E;
  return { exports, memory, block: exports.BLOCK.value as number };
}
