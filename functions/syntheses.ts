/**
 * Synthesis jobs.
 *
 * - `POST /v1/syntheses` (scope submit): the `synth` command's options as JSON plus `datasetId`
 *   (a registered dataset of the key's tenant) or inline `csv` / `records`; the job is persisted,
 *   then 202 with its id. An `Idempotency-Key` header returns the same job for a retry (never a
 *   second job, never a second charge). On a registered dataset the request must keep to its
 *   release policy (422 otherwise: `x` and `strata` public, no `seed`, `epsilon` given) and its
 *   `epsilon` is charged when the job is accepted, whatever the job's outcome (409 when it
 *   exceeds the remaining budget); a job that fails on the data shows only `data_rejected`.
 *   A request of more sampler iterations (chains·warmup + draws) than `PPSYNTH_MAX_ITERATIONS`
 *   is refused (422 `too_much_work`); a job running past `PPSYNTH_JOB_TIME_LIMIT_MS` is stopped
 *   and fails with `time_limit`.
 * - `GET /v1/syntheses/{id}` (scope read): status, progress (on a registered dataset, to
 *   diagnostics keys only while it runs: the fits' stages depend on the data) and, once
 *   succeeded, the public report (the fields of report.json). On a registered dataset a key
 *   without the diagnostics scope sees the job running until its release time, fixed by the
 *   request at acceptance (`PPSYNTH_RELEASE_DELAY_MS`, `visibleJob`), and its datasets from then.
 * - `GET /v1/syntheses/{id}/datasets/{k}` (scope read): the k-th synthetic CSV.
 * - `GET /v1/syntheses/{id}/diagnostics` (scope diagnostics): the confidential diagnostics
 *   (of a failed job on a registered dataset: the reason it failed).
 * - `GET /v1/syntheses/{id}/report.html` (scope diagnostics): the release report as one
 *   self-contained page, for a job with several outcomes, utility models or `report: true`: first
 *   the release (mechanism, settings, ε as the public report states it and the achieved ε and Δ
 *   from the owner's diagnostics, guarantee, neighbours, m, n, the final fit's health), then the
 *   utility report and the identification risk.
 *
 * Another tenant's job is answered 404, as one that does not exist.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { isFileSpec } from "../src/jobs/file_job.ts";
import { bodyMiddleware, commitRequest, functionApp, requestSignal } from "../src/api/app.ts";
import { requireScope, sha256Hex } from "../src/api/auth.ts";
import type { ApiContext } from "../src/jobs/context.ts";
import { readDataInputAsync } from "../src/api/data_input.ts";
import { ApiError } from "../src/api/errors.ts";
import {
  BEARER_SECURITY,
  DATA_SOURCE,
  decimalParam,
  DiagnosticsSchema,
  errorResponses,
  exactlyOneSource,
  getById,
  IdParam,
  ReportSchema,
  sourcedRules,
  submitRoute,
} from "../src/api/schemas.ts";
import { standalone } from "../src/api/standalone.ts";
import { health } from "./health.ts";
import {
  type DataSource,
  submitFileSynthesis,
  submitSynthesis,
  type Submitter,
} from "../src/jobs/submit.ts";
import { jobAccepted, JobFields, jobFields, reportJson, visibleJob } from "../src/api/job_view.ts";
import type { JobStore, JobView, OwnerDiagnostics } from "../src/jobs/store.ts";
import { SynthesisFields, synthesisRules } from "../src/synthesis/spec.ts";
import { type PageSource, releasePage } from "../src/synthesis/release_bundle.ts";

/** The documented example of a synthesis request. */
const SYNTHESIS_EXAMPLE = {
  datasetId: "3f0c…",
  y: "y",
  model: "negbin",
  mechanism: "lw-final",
  epsilon: 8,
  m: 3,
};

const SynthesisRequest = SynthesisFields.safeExtend(DATA_SOURCE).superRefine(
  sourcedRules(synthesisRules),
).superRefine((request, context) => {
  if (request.autoReason !== undefined) {
    context.addIssue({
      code: "custom",
      path: ["autoReason"],
      message: 'set by mechanism "auto", not by a request',
    });
  }
}).openapi("SynthesisRequest", {
  example: SYNTHESIS_EXAMPLE,
});

/**
 * A whole-file request (issue 35): `y: "all"` with the `synth --schema` command's options
 * (`FileSynthesisSpec`, checked by `fileRequest` so that what a whole file cannot take is a 422)
 * and a data source; inline data also carry their `fileSchema`.
 */
const FileSynthesisRequest = z.object({
  y: z.literal("all"),
  ...DATA_SOURCE,
  fileSchema: z.unknown().optional(),
}).catchall(z.unknown()).superRefine((body, context) => exactlyOneSource(body, context));

/**
 * The body of `POST /v1/syntheses`: a whole-file request when `y` is "all", a synthesis
 * otherwise; each validated by its own schema, so that each keeps its own errors.
 */
const SubmitRequest = z.custom<Record<string, unknown>>(
  // The body as parsed, own keys and all ("__proto__" included, which a record schema would drop
  // before the strict schemas below could refuse it).
  (body) => typeof body === "object" && body !== null && !Array.isArray(body),
  { message: "Invalid input: expected an object" },
).openapi({ type: "object" }).transform((body, context) => {
  const parsed = body.y === "all"
    ? FileSynthesisRequest.safeParse(body)
    : SynthesisRequest.safeParse(body);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) context.addIssue(issue as never);
    return z.NEVER;
  }
  return parsed.data;
}).openapi("SynthesisSubmission", {
  description: 'A synthesis (SynthesisRequest), or with y: "all" a whole file under the ' +
    'declared file schema: {datasetId | csv | records, y: "all", epsilon, m?, mechanism? ' +
    "(auto, sw, lw, lw-final, weighted-e, censored, censored-w, unweighted), model? (auto, " +
    "bayes-net, latent-class), dirichlet?, parents?, maxCells?, sampling? (bayes-net), classes?, " +
    "chains?, warmup?, draws?, thin?, splitMerge? (latent-class), seed? and " +
    "allowFlagged? (inline data only), fileSchema (inline data only)}",
  example: SYNTHESIS_EXAMPLE,
});

const Job = JobFields.extend({
  report: ReportSchema.optional(),
  datasets: z.array(z.string()).optional().openapi({ description: "URLs of the synthetic CSVs" }),
}).openapi("Job");

const submit = submitRoute(
  "/v1/syntheses",
  "Submit a synthesis job",
  "Retries with the same key return the same job",
  SubmitRequest,
  jobAccepted("Accepted (persisted)"),
);

const status = getById(
  "/v1/syntheses/{id}",
  "A job's status, progress and (on success) public report",
  { description: "The job", schema: Job },
);

const dataset = createRoute({
  method: "get",
  path: "/v1/syntheses/{id}/datasets/{k}",
  summary: "The k-th synthetic dataset (CSV) of a succeeded job",
  security: BEARER_SECURITY,
  request: {
    params: IdParam.extend({
      k: decimalParam(z.number().int().min(1).max(1000)).openapi({
        // The document shows the integer it stands for (a plain decimal: no 0x1, no blank).
        type: "integer",
        minimum: 1,
        maximum: 1000,
        param: { name: "k", in: "path" },
      }),
    }),
  },
  responses: {
    200: { description: "CSV", content: { "text/csv": { schema: z.string() } } },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

const diagnostics = getById(
  "/v1/syntheses/{id}/diagnostics",
  "The confidential diagnostics of a finished job (scope diagnostics)",
  {
    description: "Per-record α and Δ, refits, fit summary, utility, risk, seed, values " +
      "clamped to the policy's bounds; of a failed job on a registered dataset, the reason",
    schema: DiagnosticsSchema,
  },
  [400, 401, 403, 404, 409],
);

const utilityPage = createRoute({
  method: "get",
  path: "/v1/syntheses/{id}/report.html",
  summary: "The owner's release report of a succeeded job as a self-contained page (scope " +
    "diagnostics): the release first (mechanism, ε, guarantee, Δ, m, n, fit health), then " +
    "utility and risk; for several outcomes, utility models or `report: true`",
  security: BEARER_SECURITY,
  request: { params: IdParam },
  responses: {
    200: { description: "HTML", content: { "text/html": { schema: z.string() } } },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

/** 409 unless the job finished (its diagnostics: a success's, or a failure's reason). */
function requireFinished(job: JobView): void {
  if (job.status !== "succeeded" && job.status !== "failed") {
    throw new ApiError(409, "not_ready", `the job is ${job.status}`);
  }
}

/** 409 unless the job succeeded: its failure code, or "not_ready". */
function requireSucceeded(job: JobView): void {
  if (job.status === "succeeded") return;
  if (job.status === "failed") {
    throw new ApiError(409, job.error?.code ?? "failed", "the job failed: nothing was released");
  }
  throw new ApiError(409, "not_ready", `the job is ${job.status}`);
}

function publicJob(job: JobView, diagnostics: boolean) {
  return {
    ...jobFields(job, diagnostics),
    ...reportJson(job),
    ...(job.report === null ? {} : {
      datasets: Array.from(
        { length: job.datasetCount },
        (_, j) => `/v1/syntheses/${job.id}/datasets/${j + 1}`,
      ),
    }),
  };
}

/** The syntheses function. */
export function syntheses(context: ApiContext) {
  const { store } = context;
  const app = functionApp();
  // A synthesis request's fields stay a named component of the document (the web page reads
  // its models and mechanisms there), though the body is validated through SubmitRequest.
  app.openAPIRegistry.register("SynthesisRequest", SynthesisRequest);
  return app
    .openapi(
      {
        ...submit,
        middleware: bodyMiddleware(context, "submit", "inline data"),
      },
      async (c) => {
        const valid = c.req.valid("json");
        const { datasetId, csv, records, ...fields } = valid as z.infer<typeof SynthesisRequest>;
        const submitter: Submitter = {
          keyId: c.var.apiKey.id,
          tenant: c.var.apiKey.tenant,
          idempotencyKey: c.req.header("idempotency-key") ?? null,
          requestHash: await sha256Hex(JSON.stringify(valid)),
          commit: () => commitRequest(c),
        };
        const source: DataSource = datasetId !== undefined ? { datasetId } : {
          read: () => readDataInputAsync({ csv, records }, "inline data", requestSignal(c)),
        };
        const job = isFileSpec(valid)
          ? await submitFileSynthesis(
            context,
            submitter,
            withoutFileSchema(fields),
            (valid as z.infer<typeof FileSynthesisRequest>).fileSchema,
            source,
          )
          : await submitSynthesis(context, submitter, fields, source);
        const location = `/v1/syntheses/${job.id}`;
        c.header("Location", location);
        const { status } = visibleJob(
          job,
          c.var.apiKey.scopes.includes("diagnostics"),
          context.config,
        );
        return c.json({ id: job.id, status, location }, 202);
      },
    )
    .openapi(
      { ...status, middleware: [requireScope(store, "read")] as const },
      async (c) => {
        const diagnostics = c.var.apiKey.scopes.includes("diagnostics");
        const job = visibleJob(
          synthesisJob(await store.job(c.req.valid("param").id, c.var.apiKey.tenant)),
          diagnostics,
          context.config,
        );
        return c.json(publicJob(job, diagnostics), 200);
      },
    )
    .openapi(
      { ...dataset, middleware: [requireScope(store, "read")] as const },
      async (c) => {
        const { id, k } = c.req.valid("param");
        const { tenant } = c.var.apiKey;
        const job = visibleJob(
          synthesisJob(await store.job(id, tenant)),
          c.var.apiKey.scopes.includes("diagnostics"),
          context.config,
        );
        requireSucceeded(job);
        const csv = await store.jobDataset(id, k, tenant);
        if (csv === null) {
          throw new ApiError(
            404,
            "not_found",
            `the job released ${job.datasetCount} datasets`,
            "k",
          );
        }
        c.header("Content-Disposition", `attachment; filename="synthetic-${k}.csv"`);
        return c.body(csv, 200, { "Content-Type": "text/csv; charset=utf-8" });
      },
    )
    .openapi(
      { ...diagnostics, middleware: [requireScope(store, "diagnostics")] as const },
      async (c) => {
        const { id } = c.req.valid("param");
        const { job, found } = await withDiagnostics(
          store,
          id,
          c.var.apiKey.tenant,
          requireFinished,
        );
        if (found === null) requireSucceeded(job);
        return c.json({ ...found } as Record<string, unknown>, 200);
      },
    )
    .openapi(
      { ...utilityPage, middleware: [requireScope(store, "diagnostics")] as const },
      async (c) => {
        const { id } = c.req.valid("param");
        const { job, found: diagnostics } = await withDiagnostics(
          store,
          id,
          c.var.apiKey.tenant,
          requireSucceeded,
        );
        // The owner's page (scope diagnostics): the public report as analysts read it (on
        // registered data the cap, no Δ) and, from the owner's diagnostics, the achieved values
        // and the fit's health.
        const html = job.report === null
          ? undefined
          : releasePage(job.report, (diagnostics ?? {}) as PageSource);
        if (html === undefined) {
          throw new ApiError(404, "not_found", "this job has no utility report");
        }
        return c.html(html, 200, {
          "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
        });
      },
    );
}

/** A whole-file request's fields without its `fileSchema` (which `submitFileSynthesis` takes apart). */
function withoutFileSchema(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { fileSchema: _, ...rest } = fields;
  return rest;
}

/** The job if it is a synthesis; a table job (see /v1/tables) or none is a 404 here. */
function synthesisJob<J extends { kind: string }>(job: J | null): J {
  if (job === null || job.kind !== "synthesis") {
    throw new ApiError(404, "not_found", "no such synthesis job");
  }
  return job;
}

/**
 * The tenant's synthesis job (404 if none), once `require` accepts its status (409 if not), and
 * the owner's diagnostics stored for it (null where none are kept).
 */
async function withDiagnostics(
  store: JobStore,
  id: string,
  tenant: string,
  require: (job: JobView) => void,
): Promise<{ job: JobView; found: OwnerDiagnostics | null }> {
  const job = synthesisJob(await store.job(id, tenant));
  require(job);
  return { job, found: await store.jobDiagnostics(id, tenant) };
}

/** `deno serve functions/syntheses.ts`: this function alone, with the worker pool. */
export default standalone(import.meta, [health, syntheses], { jobs: true });
