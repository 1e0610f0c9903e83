/**
 * The one error shape of the API, `{error: {code, message, field?}}`, produced by one handler:
 * 4xx for the caller's mistakes with a message that names the problem (never a confidential
 * value), 500 "internal" with no detail for anything else. Stack traces are never sent or
 * logged.
 *
 * @module
 */
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";
import { classifyError } from "../jobs/domain_errors.ts";
import type { Logger } from "./log.ts";

/** The body of every error response. */
export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly field?: string };
}

/** An error with an HTTP status, a stable code, and the request field it concerns. */
export class ApiError extends HTTPException {
  override name = "ApiError";
  readonly code: string;
  readonly field?: string;

  /**
   * @param status HTTP status.
   * @param code A stable machine-readable code ("invalid_request", "budget_exceeded"…).
   * @param message What is wrong, free of confidential values.
   * @param field The request field concerned (dotted path).
   */
  constructor(status: ContentfulStatusCode, code: string, message: string, field?: string) {
    super(status, { message });
    this.code = code;
    this.field = field;
  }
}

/** Codes of the HTTPExceptions Hono and its middleware throw (malformed JSON, media type). */
const HTTP_CODES: Record<number, string> = {
  400: "bad_request",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

/**
 * The 400 error of a failed zod validation: its first issue, with the field's dotted path.
 *
 * @param error The zod error.
 * @returns An {@linkcode ApiError} with code "invalid_request".
 */
export function validationError(error: ZodError): ApiError {
  const issue = error.issues[0];
  const path = issue.path.map(String).join(".");
  const keys = issue.code === "unrecognized_keys" ? issue.keys.join(", ") : "";
  const field = path !== "" ? path : keys !== "" ? keys : undefined;
  return new ApiError(400, "invalid_request", issue.message, field);
}

/**
 * The shared validation hook of every route: a failed validation becomes a 400.
 *
 * @param result The validator's result.
 */
export function validationHook(result: { success: boolean; error?: unknown }): void {
  if (!result.success) throw validationError(result.error as ZodError);
}

/**
 * Writes an error response.
 *
 * @param c The request context.
 * @param status HTTP status.
 * @param code Stable code.
 * @param message Message.
 * @param field Field concerned.
 */
export function errorResponse(
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  message: string,
  field?: string,
): Response {
  const body: ErrorBody = {
    error: field === undefined ? { code, message } : { code, message, field },
  };
  return c.json(body, status);
}

/**
 * The app's `onError`: ApiError and Hono's HTTPException keep their status (4xx with their
 * message); domain errors take their status, code and message from the one table
 * (`classifyError`); anything else is logged by its class name only and answered 500
 * "internal".
 *
 * @param log Where unexpected errors are noted.
 * @returns The error handler.
 */
export function errorHandler(log: Logger): ErrorHandler {
  return (error, c) => {
    if (error instanceof ApiError) {
      if (error.status === 401) c.header("WWW-Authenticate", 'Bearer realm="ppsynth"');
      return errorResponse(
        c,
        error.status as ContentfulStatusCode,
        error.code,
        error.message,
        error.field,
      );
    }
    if (error instanceof HTTPException && error.status < 500) {
      const status = error.status as ContentfulStatusCode;
      const message = error.message !== "" ? error.message : `HTTP ${status}`;
      return errorResponse(c, status, HTTP_CODES[status] ?? `http_${status}`, message);
    }
    const classified = classifyError(error);
    if (classified.status === 500) {
      log("internal_error", { error: error instanceof Error ? error.name : typeof error });
    }
    return errorResponse(
      c,
      classified.status,
      classified.code,
      classified.message,
      classified.field,
    );
  };
}

/** The app's `notFound`: 404 "not_found". */
export const notFound: NotFoundHandler = (c) =>
  errorResponse(c, 404, "not_found", "no such endpoint");
