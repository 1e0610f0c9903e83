/**
 * A large JSON request body read off the event loop (`json_worker.ts`): its nesting checked
 * before it is parsed, and its `records` (a large body's bulk) validated and read into the
 * canonical CSV text of `readDataInput` there, so that the event loop parses a body whose data
 * is one string. The request then goes on as if it had carried that `csv`.
 *
 * @module
 */
import type { RefinementCtx } from "zod";
import { readDataInput } from "./data_input.ts";
import { exactlyOneSource, Records } from "./schemas.ts";

/** JSON bodies longer than this (in UTF-16 units) are read in a worker. */
export const WORKER_JSON_LENGTH = 256 * 1024;

/**
 * Whether JSON text nests arrays and objects more than `maxDepth` deep (brackets inside strings
 * do not count). One pass over the text, no parse.
 *
 * @param text JSON text (valid or not).
 * @param maxDepth The deepest nesting allowed.
 * @returns True when some value lies deeper.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exceedsDepth } from "./json_body.ts";
 * assert.equal(exceedsDepth('{"a":[[1]]}', 3), false);
 * assert.equal(exceedsDepth('{"a":[[[1]]]}', 3), true);
 * assert.equal(exceedsDepth('{"a":"[[[[\\"]]"}', 1), false);
 * ```
 */
export function exceedsDepth(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** The refusal of a body that nests deeper than `maxDepth`. */
export function tooDeepMessage(maxDepth: number): string {
  return `the JSON body nests deeper than ${maxDepth} levels (PPSYNTH_MAX_JSON_DEPTH)`;
}

/**
 * A body read by {@linkcode prepareJsonBody}: the JSON text to go on with (null: the body as
 * sent), or why it is refused (400 with `code`, `message` and `field`).
 */
export type PreparedBody =
  | { readonly type: "body"; readonly text: string | null }
  | {
    readonly type: "refused";
    readonly code: string;
    readonly message: string;
    readonly field?: string;
  };

/**
 * Checks a JSON body's depth, parses it and, when it carries `records` (and no other data
 * source), validates them (`Records`) and replaces them by their canonical `csv`
 * (`readDataInput`). Meant for a worker: it parses and walks the whole body.
 *
 * @param text The body.
 * @param maxDepth The deepest nesting allowed.
 * @param source A name for the records' data errors ("inline data").
 * @returns The body to go on with, or the refusal; throws the records' `DataError`.
 */
export function prepareJsonBody(text: string, maxDepth: number, source: string): PreparedBody {
  if (exceedsDepth(text, maxDepth)) {
    return { type: "refused", code: "invalid_request", message: tooDeepMessage(maxDepth) };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { type: "refused", code: "bad_request", message: "Malformed JSON in request body" };
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { type: "body", text: null };
  }
  const fields = body as Record<string, unknown>;
  if (fields.records === undefined) return { type: "body", text: null };
  const issues: { message: string; path?: PropertyKey[] }[] = [];
  const parsed = Records.safeParse(fields.records);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    issues.push({ message: issue.message, path: ["records", ...issue.path] });
  }
  const context = {
    addIssue: (issue: { message?: string; path?: PropertyKey[] }) =>
      issues.push({ message: issue.message ?? "invalid", path: issue.path }),
  };
  exactlyOneSource(fields, context as unknown as RefinementCtx);
  if (!parsed.success || issues.length > 0) {
    const { message, path = [] } = issues[0];
    return { type: "refused", code: "invalid_request", message, field: path.join(".") };
  }
  const { csv } = readDataInput({ records: parsed.data }, source);
  const { records: _, ...rest } = fields;
  return { type: "body", text: JSON.stringify({ ...rest, csv }) };
}
