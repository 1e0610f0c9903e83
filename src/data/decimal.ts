/**
 * Strict decimal numbers for every numeric field that arrives as text (command-line flags,
 * query strings): an optional sign, digits with an optional fraction, an optional exponent.
 * `Number()` alone also reads `"0x10"` as 16, `"0b1"` as 1 and `" "` as 0, so a request could be
 * charged an ε it did not write; these are refused.
 *
 * @module
 */

/** A plain decimal: `-1`, `2.5`, `.5`, `1e-3`, `+4E2`; no hex, binary, octal, spaces or `Infinity`. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The number a decimal string writes, or NaN when it is not a plain decimal.
 *
 * @param text The text.
 * @returns Its value (possibly ±Infinity for an overflowing exponent), or NaN.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseDecimal } from "./decimal.ts";
 * assert.equal(parseDecimal("1e-2"), 0.01);
 * assert.ok(Number.isNaN(parseDecimal("0x10")));
 * assert.ok(Number.isNaN(parseDecimal(" 16")));
 * ```
 */
export function parseDecimal(text: string): number {
  return DECIMAL.test(text) ? Number(text) : NaN;
}
