/**
 * Public failure messages: what a caller may read about a failed job or request. Data errors
 * never carry a cell's value (see `DataError`); other messages follow the codebase's
 * `name=value` convention, and every such value is redacted, since it may come from the
 * confidential data (a posterior draw, the smallest reachable ε).
 *
 * @module
 */
import { DataError } from "../data/data_error.ts";
import { CalibrationError } from "../mechanisms/calibrate.ts";
import type { JobFailure } from "./store.ts";

const ASSIGNED_VALUE = /=\s*[^\s,;:)\]]+/g;

/**
 * Replaces every `name=value` value in a message with "…".
 *
 * @param message An error message.
 * @returns The message without its values.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactValues } from "./failure.ts";
 * assert.equal(redactValues("Invalid phi: must be positive: phi=-0.5"), "Invalid phi: must be positive: phi=…");
 * ```
 */
export function redactValues(message: string): string {
  return message.replace(ASSIGNED_VALUE, "=…");
}

/**
 * Classifies an error thrown by a synthesis into a public failure: bad data ("invalid_data"),
 * an unreachable target ε ("epsilon_unreachable"), settings that do not fit the mechanism
 * ("invalid_request", from RangeError and TypeError), anything else "internal" with no detail.
 *
 * @param error What was thrown.
 * @returns A failure whose message holds no confidential value.
 */
export function failureOf(error: unknown): JobFailure {
  if (error instanceof DataError) return { code: "invalid_data", message: error.message };
  if (error instanceof CalibrationError) {
    return { code: "epsilon_unreachable", message: redactValues(error.message) };
  }
  if (error instanceof RangeError || error instanceof TypeError) {
    return { code: "invalid_request", message: redactValues(error.message) };
  }
  return { code: "internal", message: "the synthesis failed" };
}
