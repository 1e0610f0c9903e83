/**
 * The request and response schemas shared by the functions (zod, also the source of
 * `/openapi.json`).
 *
 * @module
 */
import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { parseDecimal } from "../data/decimal.ts";
import { ReleaseManifestSchema } from "../synthesis/report.ts";

/** `{error: {code, message, field?}}`. */
export const ErrorSchema = z.object({
  error: z.object({
    code: z.string().openapi({ example: "invalid_request" }),
    message: z.string(),
    field: z.string().optional(),
  }),
}).openapi("Error");

/** A JSON response of every error status a route can give. */
export function errorResponses(...statuses: number[]) {
  const messages: Record<number, string> = {
    400: "Invalid request (the field is named)",
    401: "Missing or invalid API key",
    403: "The API key lacks the scope",
    404: "Not found",
    409: "Conflict: privacy budget exceeded, or the job has no such result",
    413: "Body too large",
    415: "Unsupported media type",
    422: "Idempotency-Key reused for a different request, or an unbounded result",
  };
  return Object.fromEntries(
    statuses.map((status) => [status, {
      description: messages[status],
      content: { "application/json": { schema: ErrorSchema } },
    }]),
  );
}

/** A data cell: a number or a string. */
const Cell = z.union([z.number(), z.string().max(10_000)]);

/** JSON records: objects with the same fields. */
export const Records = z.array(z.record(z.string().min(1).max(200), Cell)).min(1).max(
  10_000_000,
).openapi({
  description: "Records with the same fields; values are numbers or strings",
  example: [{ y: 3, z: 0.5 }, { y: 7, z: 1.2 }],
});

/** CSV text with a header row. */
export const CsvText = z.string().min(1).openapi({
  description: "CSV text with a header row",
  example: "y,z\n3,0.5\n7,1.2\n",
});

/** A registered dataset's id, as a request's data source. */
export const DatasetId = z.string().min(1).max(100);

/**
 * Adds an issue unless exactly one of the named data sources is in the body (`datasetId`, inline
 * `csv`, or `records`): the one rule of every request that carries data.
 *
 * @param body The request body.
 * @param context Where the issue goes.
 * @param sources The fields that may carry the data, the first named in the issue.
 */
export function exactlyOneSource(
  body: Readonly<Record<string, unknown>>,
  context: z.RefinementCtx,
  sources: readonly string[] = ["datasetId", "csv", "records"],
): void {
  if (sources.filter((name) => body[name] !== undefined).length !== 1) {
    context.addIssue({
      code: "custom",
      path: [sources[0]],
      message: `give exactly one of ${sources.slice(0, -1).join(", ")} and ${sources.at(-1)}`,
    });
  }
}

/** The data source of a request: a registered dataset, or inline CSV text or records. */
export const DATA_SOURCE = {
  datasetId: DatasetId.optional(),
  csv: CsvText.optional(),
  records: Records.optional(),
};

/**
 * The refinement of a request that carries data: its own cross-field rules (told whether a
 * registered dataset's policy supplies what the request may not set) and exactly one source.
 *
 * @param rules The request's cross-field rules.
 * @returns A `superRefine` callback.
 */
export function sourcedRules<T>(
  rules: (body: T, context: z.RefinementCtx, fromPolicy: boolean) => void,
): (body: T & { datasetId?: string }, context: z.RefinementCtx) => void {
  return (body, context) => {
    rules(body, context, body.datasetId !== undefined);
    exactlyOneSource(body as Readonly<Record<string, unknown>>, context);
  };
}

/** The public release manifest (`report.json`): the synthesis's own schema, documented. */
export const ReportSchema = ReleaseManifestSchema.openapi("Report");

/** The OpenAPI security requirement of every keyed route: the `bearer` API-key scheme. */
export const BEARER_SECURITY = [{ bearer: [] }];

/**
 * A number written in a query string or a path: the text must be a plain decimal
 * (`parseDecimal`), so that `0x10`, `0b1` or a blank are refused (400, naming the parameter)
 * rather than read as 16, 1 or 0, as `z.coerce.number()` would; `number` then checks the value.
 *
 * @param number The schema of the value (`z.number().int().min(1)`…).
 * @returns A string schema that outputs the checked number.
 */
export function decimalParam<T extends z.ZodType<number, number>>(number: T) {
  return z.string()
    .refine((text) => !Number.isNaN(parseDecimal(text)), { message: "expected a decimal number" })
    .transform(Number)
    .pipe(number);
}

/** The `{id}` path parameter of a stored dataset, job or table. */
export const IdParam = z.object({
  id: z.string().min(1).max(100).openapi({ param: { name: "id", in: "path" } }),
});

/** One running fit of a job: one per conditional, several outcomes being fitted at once. */
export const JobFitProgress = z.object({
  stage: z.string().openapi({ example: "lw" }),
  conditional: z.string().nullable().openapi({
    description: "the outcome whose conditional the fit is; null with one outcome",
    example: "awards",
  }),
  iteration: z.number().int().openapi({ description: "sampler iterations done, every chain's" }),
  total: z.number().int(),
  elapsedSeconds: z.number(),
  remainingSeconds: z.number().nullable().openapi({
    description: "at the fit's rate so far; null before its first iteration and once it is done",
  }),
}).openapi("JobFitProgress");

/**
 * A job's progress: the stage of the fit that last reported and the fraction of the running fits
 * done, and a synthesis's running fits; null before it starts.
 */
export const JobProgress = z.object({
  stage: z.string(),
  fraction: z.number(),
  fits: z.array(JobFitProgress).optional().openapi({
    description: "a synthesis's running fits, one per conditional (issue 37)",
  }),
}).nullable();

/**
 * The optional `Idempotency-Key` request header (1–255 printable ASCII characters): a retry
 * with the same key returns the same result.
 *
 * @param description what a retry returns, for the OpenAPI document.
 * @returns the headers schema of a route.
 */
export function idempotencyKeyHeader(description: string) {
  return z.object({
    "idempotency-key": z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/).optional().openapi({
      description,
    }),
  });
}

/**
 * A keyed `POST` submitting a required JSON body, with the optional `Idempotency-Key` header.
 *
 * @param path The route.
 * @param summary The OpenAPI summary.
 * @param retry What a retry with the same key returns (the header's description).
 * @param schema The body's schema.
 * @param responses The answers.
 * @returns The route.
 */
export function submitRoute<B extends z.ZodType, R extends RouteConfig["responses"]>(
  path: string,
  summary: string,
  retry: string,
  schema: B,
  responses: R,
) {
  return createRoute({
    method: "post",
    path,
    summary,
    security: BEARER_SECURITY,
    request: {
      headers: idempotencyKeyHeader(retry),
      body: { required: true, content: { "application/json": { schema } } },
    },
    responses,
  });
}

/**
 * A keyed `POST` with the request (body, query) and answers given (`submitRoute` is the one
 * with an Idempotency-Key and a JSON body).
 *
 * @param path The route.
 * @param summary The OpenAPI summary.
 * @param request The request's body and parameters.
 * @param responses The answers.
 * @returns The route.
 */
export function bodyRoute<
  Q extends NonNullable<RouteConfig["request"]>,
  R extends RouteConfig["responses"],
>(path: string, summary: string, request: Q, responses: R) {
  return createRoute({
    method: "post",
    path,
    summary,
    security: BEARER_SECURITY,
    request,
    responses,
  });
}

/** The owner's diagnostics: a free-form JSON object (scope diagnostics). */
export const DiagnosticsSchema = z.record(z.string(), z.unknown());

/**
 * A keyed `GET` of one stored thing by `{id}` answering JSON (200) or the errors named.
 *
 * @param path The route, with `{id}`.
 * @param summary The OpenAPI summary.
 * @param answer The 200 answer's description and schema.
 * @param errors The error statuses (default 400, 401, 403, 404).
 * @returns The route.
 */
export function getById<S extends z.ZodType>(
  path: string,
  summary: string,
  answer: { readonly description: string; readonly schema: S },
  errors: readonly number[] = [400, 401, 403, 404],
) {
  return createRoute({
    method: "get",
    path,
    summary,
    security: BEARER_SECURITY,
    request: { params: IdParam },
    responses: {
      200: {
        description: answer.description,
        content: { "application/json": { schema: answer.schema } },
      },
      ...errorResponses(...errors),
    },
  });
}
