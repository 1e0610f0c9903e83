/**
 * The argument checks every layer shares. Each throws a RangeError that names the argument and
 * its value, `Invalid <name>: must be …: <name>=<value>`, so a bad option reads the same
 * everywhere.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkInteger, checkPositiveFinite } from "./arguments.ts";
 * checkPositiveFinite("epsilon", 1);
 * assert.throws(() => checkPositiveFinite("epsilon", 0), /Invalid epsilon: must be positive/);
 * assert.throws(() => checkInteger("m", 1.5, 1), /Invalid m: must be an integer ≥ 1: m=1.5/);
 * ```
 *
 * @module
 */

/** Throws unless `value` is finite. */
export function checkFinite(name: string, value: number): void {
  if (!Number.isFinite(value)) {
    throw new RangeError(`Invalid ${name}: must be finite: ${name}=${value}`);
  }
}

/** Throws unless `value` is positive and finite. */
export function checkPositiveFinite(name: string, value: number): void {
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`Invalid ${name}: must be positive and finite: ${name}=${value}`);
  }
}

/** Throws unless `value` is non-negative and finite. */
export function checkNonNegativeFinite(name: string, value: number): void {
  if (!(value >= 0) || !Number.isFinite(value)) {
    throw new RangeError(`Invalid ${name}: must be non-negative and finite: ${name}=${value}`);
  }
}

/** Throws unless `value` is a safe integer in [min, max] (max: the largest safe integer). */
export function checkInteger(
  name: string,
  value: number,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `in [${min}, ${max}]`;
    throw new RangeError(`Invalid ${name}: must be an integer ${range}: ${name}=${value}`);
  }
}
