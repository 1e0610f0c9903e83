/**
 * A job's public failure: the code and message of the one error table (`domain_errors.ts`).
 * Jobs on a registered dataset go further: the store keeps this failure for the owner's
 * diagnostics and shows every other key the fixed `data_rejected` failure.
 *
 * @module
 */
import { classifyError } from "./domain_errors.ts";
import type { JobFailure } from "./store.ts";

/**
 * Classifies an error thrown by a job into a public failure (bad data "invalid_data", an
 * unreachable target ε "epsilon_unreachable", settings "invalid_request", anything else
 * "internal" with no detail).
 *
 * @param error What was thrown.
 * @returns A failure whose message holds no confidential value.
 */
export function failureOf(error: unknown): JobFailure {
  const { code, message } = classifyError(error);
  return { code, message };
}
