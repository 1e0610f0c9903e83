/**
 * The one table from domain errors to what each caller sees: an HTTP status and code (the API's
 * error handler), a job failure code (the worker pool and the Redis workers) and a command's
 * exit code (the CLI). Handlers throw; none of them catches to translate.
 *
 * Messages: data errors never hold a cell's value (`DataError`); other messages follow the
 * codebase's `name=value` convention and every such value is redacted, since it may come from
 * the confidential data (a posterior draw, the smallest reachable ε). A job on a registered
 * dataset never shows even these: its public failure is {@linkcode DATA_REJECTED}.
 *
 * @module
 */
import { ZodError } from "zod";
import { DataError } from "../data/data_error.ts";
import { CalibrationError } from "../mechanisms/calibrate.ts";
import { FitFlaggedError } from "../mcmc/fit.ts";
import { BudgetExceededError } from "./ledger.ts";

/** A request that the release policy refuses (data-independent: it reads only the policy). */
export class PolicyError extends Error {
  override name = "PolicyError";
  readonly status: 400 | 404 | 422;
  readonly code: string;
  readonly field?: string;

  /**
   * @param status 422 for a request the policy refuses; 400 for a policy the owner declared
   * wrong at registration.
   * @param code A stable code ("confidential_column", "seed_not_allowed"…).
   * @param message What is wrong (never a confidential value).
   * @param field The request field concerned.
   */
  constructor(status: 400 | 404 | 422, code: string, message: string, field?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

/** An idempotency key reused by the same API key for a different request. */
export class IdempotencyConflictError extends Error {
  override name = "IdempotencyConflictError";

  constructor() {
    super("Cannot reuse an Idempotency-Key for a different request");
  }
}

/**
 * The one public failure of work on a registered dataset that failed for a reason that may
 * depend on the data: a fixed code and message, whatever the reason (which goes to the owner's
 * diagnostics only).
 */
export const DATA_REJECTED = {
  code: "data_rejected",
  message: "the request could not be completed on the registered data; its epsilon was " +
    "charged; the data owner's diagnostics hold the reason",
} as const;

/** Work on a registered dataset failed on the data: answered with {@linkcode DATA_REJECTED}. */
export class DataRejectedError extends Error {
  override name = "DataRejectedError";

  constructor() {
    super(DATA_REJECTED.message);
  }
}

/** What one caller sees of an error. */
export interface ErrorClass {
  /** HTTP status. */
  readonly status: 400 | 404 | 409 | 422 | 500;
  /** Stable code (HTTP error code and job failure code). */
  readonly code: string;
  /** Command exit code: 2 bad input, 3 unreachable ε or a flagged final fit, 1 anything else. */
  readonly exit: 1 | 2 | 3;
  /** A message free of confidential values. */
  readonly message: string;
  readonly field?: string;
}

const ASSIGNED_VALUE = /=\s*[^\s,;:)\]]+/g;

/**
 * Replaces every `name=value` value in a message with "…".
 *
 * @param message An error message.
 * @returns The message without its values.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactValues } from "./domain_errors.ts";
 * assert.equal(redactValues("Invalid phi: must be positive: phi=-0.5"), "Invalid phi: must be positive: phi=…");
 * ```
 */
export function redactValues(message: string): string {
  return message.replace(ASSIGNED_VALUE, "=…");
}

/**
 * Classifies an error (the table of the module).
 *
 * | error | status | code | exit |
 * |---|---|---|---|
 * | PolicyError | its own | its own | 2 |
 * | DataError | 400 | invalid_data | 2 |
 * | ZodError | 400 | invalid_request | 2 |
 * | RangeError, TypeError | 400 | invalid_request | 2 |
 * | CalibrationError | 422 | epsilon_unreachable | 3 |
 * | FitFlaggedError | 422 | fit_flagged | 3 |
 * | BudgetExceededError | 409 | budget_exceeded | 1 |
 * | IdempotencyConflictError | 422 | idempotency_conflict | 1 |
 * | DataRejectedError | 422 | data_rejected | 1 |
 * | anything else | 500 | internal | 1 |
 *
 * @param error What was thrown.
 * @returns Status, code, exit code and a public message.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { classifyError } from "./domain_errors.ts";
 * assert.equal(classifyError(new RangeError("Invalid m: m=0")).message, "Invalid m: m=…");
 * ```
 */
export function classifyError(error: unknown): ErrorClass {
  if (error instanceof PolicyError) {
    const { status, code, message, field } = error;
    return { status, code, exit: 2, message, ...(field === undefined ? {} : { field }) };
  }
  if (error instanceof DataError) {
    return { status: 400, code: "invalid_data", exit: 2, message: error.message };
  }
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    const field = issue.path.map(String).join(".");
    return {
      status: 400,
      code: "invalid_request",
      exit: 2,
      message: redactValues(issue.message),
      ...(field === "" ? {} : { field }),
    };
  }
  if (error instanceof CalibrationError) {
    return {
      status: 422,
      code: "epsilon_unreachable",
      exit: 3,
      message: redactValues(error.message),
    };
  }
  if (error instanceof FitFlaggedError) {
    return { status: 422, code: "fit_flagged", exit: 3, message: error.message };
  }
  if (error instanceof BudgetExceededError) {
    return {
      status: 409,
      code: "budget_exceeded",
      exit: 1,
      message: "epsilon exceeds the dataset's remaining privacy budget",
      field: "epsilon",
    };
  }
  if (error instanceof IdempotencyConflictError) {
    return { status: 422, code: "idempotency_conflict", exit: 1, message: error.message };
  }
  if (error instanceof DataRejectedError) {
    return { status: 422, ...DATA_REJECTED, exit: 1 };
  }
  if (error instanceof RangeError || error instanceof TypeError) {
    return { status: 400, code: "invalid_request", exit: 2, message: redactValues(error.message) };
  }
  return { status: 500, code: "internal", exit: 1, message: "internal error" };
}
