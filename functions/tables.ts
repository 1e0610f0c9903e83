/**
 * Survey tables (SPEC §8): the `tabulate` command as a function.
 *
 * - `POST /v1/tables`: the command's options as JSON (`by` an array of two columns, `method`
 *   required) plus `datasetId` (a registered dataset of the key's tenant) or inline `csv` /
 *   `records`. On a registered dataset the request keeps to its release policy (422 otherwise:
 *   `by` and `strata` public, no `seed`, `epsilon` given; a laplace table needs the declared
 *   bounds of `y` and `weight`, `bounds_required`), the cells are the cross product of the `by`
 *   columns' public levels, and the requested ε is charged whatever the outcome. A table of more
 *   than `PPSYNTH_MAX_TABLE_CELLS` cells (margins included) is refused (422 `too_much_work`).
 *   - `sample` (scope diagnostics: it releases the confidential estimates themselves, so only the
 *     data owner may ask; nothing is charged or kept): 200 with the rows.
 *   - `laplace` (scope submit): computed in a worker, never on the event loop. Up to
 *     `PPSYNTH_SYNC_TABLE_CELLS` cells: 200 with the rows, after ε is charged to the dataset's
 *     budget in the transaction that stores the table under an id (`GET /v1/tables/{id}`); 409
 *     when ε exceeds the remaining budget; 422 `data_rejected` (still charged) when it fails on
 *     a registered dataset's data. An `Idempotency-Key` retry returns the stored table, never a
 *     fresh draw of noise or a second charge. More cells: a job, as fbs and fbp. On a registered
 *     dataset it is the bounded mode (ε-DP, noise scaled to the declared bounds, no standard
 *     errors); inline data may carry `bounds` for it, else the local-DP baseline.
 *   - `fbs`, `fbp` (scope submit): a job, 202 with its id; on a registered dataset its ε is
 *     charged when it is accepted (409 when it does not fit). fbp needs the public stratum sizes
 *     (inline: `stratumSizes`; registered: the policy's), and so do fbs counts and totals: an fbs
 *     request without them is refused (422 `stratum_sizes_required`, nothing charged) unless it
 *     asks for `estimates: "means"`, the means alone, which the weights' scale cancels from.
 *   - `estimates: "means"` (any method): the rows carry no count columns.
 * - `GET /v1/tables/{id}` (scope read): a stored table or table job: status, progress (on a
 *   registered dataset, to diagnostics keys only while it runs) and, once succeeded, the table
 *   and its privacy (and the report of the synthesis behind fbs and fbp). A table job on a
 *   registered dataset is shown to a key without the diagnostics scope as running until its
 *   release time (`visibleJob`, as a synthesis).
 * - `GET /v1/tables/{id}/diagnostics` (scope diagnostics): the owner's diagnostics of a finished
 *   table on a registered dataset (values clamped to the bounds; a failure's reason).
 *
 * Another tenant's dataset or table is answered 404, as one that does not exist.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { bodyMiddleware, commitRequest, functionApp, requestSignal } from "../src/api/app.ts";
import { requireScope, sha256Hex } from "../src/api/auth.ts";
import type { ApiContext } from "../src/jobs/context.ts";
import { readDataInputAsync } from "../src/api/data_input.ts";
import { ApiError } from "../src/api/errors.ts";
import {
  DATA_SOURCE,
  DiagnosticsSchema,
  getById,
  ReportSchema,
  sourcedRules,
  submitRoute,
} from "../src/api/schemas.ts";
import { standalone } from "../src/api/standalone.ts";
import { jobAccepted, JobFields, jobFields, reportJson, visibleJob } from "../src/api/job_view.ts";
import type { JobView } from "../src/jobs/store.ts";
import { submitTable } from "../src/jobs/submit.ts";
import { type TableResult, tableRules, TableSpec } from "../src/jobs/table_request.ts";
import { TABLE_METHOD_NAMES } from "../src/survey/table_methods.ts";
import { health } from "./health.ts";

const TablesRequest = TableSpec.safeExtend(DATA_SOURCE).superRefine(sourcedRules(tableRules))
  .openapi("TablesRequest", {
    example: {
      datasetId: "3f0c…",
      y: "salary",
      weight: "w",
      strata: "field",
      by: ["field", "gender"],
      method: "laplace",
      epsilon: 8,
    },
  });

const Privacy = z.object({
  epsilon: z.number().openapi({ description: "Total ε of the table (charged once)" }),
  guarantee: z.string().openapi({
    description: '"DP", "aDP" or "local DP" (laplace without declared bounds: inline data only)',
  }),
  seedPolicy: z.string(),
  epsilonPoint: z.number().optional(),
  epsilonReplicate: z.number().optional(),
  replicates: z.number().int().optional().openapi({
    description: "laplace: random-group replicates (0 with declared bounds: no standard errors)",
  }),
  bounds: z.object({
    y: z.tuple([z.number(), z.number()]),
    weight: z.tuple([z.number(), z.number()]),
  }).optional().openapi({ description: "laplace: the declared bounds its noise is scaled to" }),
  m: z.number().int().optional(),
  lipschitz: z.number().nullable().optional(),
}).openapi("TablePrivacy");

const Table = z.object({
  method: z.enum(TABLE_METHOD_NAMES),
  by: z.tuple([z.string(), z.string()]),
  rows: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))).openapi({
    description: 'One row per cell, grand total first: the two grouping labels ("all" for a ' +
      "margin), count, countSE, mean, meanSE (fbs, fbp: also countDf, countLower, countUpper, " +
      'meanDf, meanLower, meanUpper; with estimates "means" no count column); null where ' +
      "undefined",
  }),
  privacy: Privacy.nullable().openapi({ description: "null for sample (not private)" }),
}).openapi("Table");

const TableAnswer = Table.extend({
  id: z.string().optional().openapi({ description: "laplace: the stored table's id" }),
  location: z.string().optional(),
}).openapi("TableAnswer");

const TableJob = JobFields.extend({
  table: Table.optional(),
  report: ReportSchema.optional().openapi({
    description: "fbs, fbp: the public report of the synthesis behind the table",
  }),
}).openapi("TableJob");

const create = submitRoute(
  "/v1/tables",
  "Survey tables: sample and small laplace at once; fbs, fbp and large laplace as a job",
  "Retries with the same key return the same table or job",
  TablesRequest,
  {
    200: {
      description: "sample (scope diagnostics) and laplace (scope submit): the table",
      content: { "application/json": { schema: TableAnswer } },
    },
    ...jobAccepted("fbs, fbp and laplace of many cells (scope submit): the job, persisted"),
  },
);

const status = getById(
  "/v1/tables/{id}",
  "A stored table or table job: status, progress and (on success) the table",
  { description: "The table job", schema: TableJob },
);

const diagnostics = getById(
  "/v1/tables/{id}/diagnostics",
  "The confidential diagnostics of a finished table (scope diagnostics)",
  {
    description: "Values clamped to the policy's bounds; of a table on a registered dataset " +
      "that failed, the reason",
    schema: DiagnosticsSchema,
  },
  [400, 401, 403, 404, 409],
);

/** A table as JSON (mutable copies, as the response types want). */
function tableJson(result: TableResult) {
  return {
    method: result.method,
    by: [result.by[0], result.by[1]] as [string, string],
    rows: [...result.rows],
    privacy: result.privacy === null ? null : { ...result.privacy },
  };
}

function tableView(job: JobView, diagnostics: boolean) {
  // A laplace table job keeps only its charge in the report's place: its privacy is the report.
  const laplace = job.result?.method === "laplace" || !Array.isArray(job.report?.columns);
  return {
    ...jobFields(job, diagnostics),
    ...(job.result === null ? {} : { table: tableJson(job.result) }),
    ...(laplace ? {} : reportJson(job)),
  };
}

/** The tables function. */
export function tables(context: ApiContext) {
  const { store } = context;
  return functionApp()
    .openapi(
      {
        ...create,
        middleware: bodyMiddleware(context, null, "inline data"),
      },
      async (c) => {
        const body = c.req.valid("json");
        const { datasetId, csv, records, ...request } = body;
        const scope = request.method === "sample" ? "diagnostics" : "submit";
        if (!c.var.apiKey.scopes.includes(scope)) {
          throw new ApiError(
            403,
            "forbidden",
            `the API key lacks the "${scope}" scope` +
              (scope === "diagnostics" ? " (sample releases the confidential estimates)" : ""),
          );
        }
        const submitted = await submitTable(
          context,
          {
            keyId: c.var.apiKey.id,
            tenant: c.var.apiKey.tenant,
            idempotencyKey: c.req.valid("header")["idempotency-key"] ?? null,
            requestHash: await sha256Hex(JSON.stringify({ kind: "table", ...body })),
            commit: () => commitRequest(c),
          },
          request,
          datasetId !== undefined ? { datasetId } : {
            read: () => readDataInputAsync({ csv, records }, "inline data", requestSignal(c)),
          },
          requestSignal(c),
        );
        if (submitted.table === undefined) {
          const { job } = submitted;
          const location = `/v1/tables/${job.id}`;
          c.header("Location", location);
          const diagnostics = c.var.apiKey.scopes.includes("diagnostics");
          const { status } = visibleJob(job, diagnostics, context.config);
          return c.json({ id: job.id, status, location }, 202);
        }
        const { job } = submitted;
        if (job === undefined) return c.json(tableJson(submitted.table), 200);
        const location = `/v1/tables/${job.id}`;
        c.header("Location", location);
        return c.json({ ...tableJson(submitted.table), id: job.id, location }, 200);
      },
    )
    .openapi(
      { ...status, middleware: [requireScope(store, "read")] as const },
      async (c) => {
        const job = await store.job(c.req.valid("param").id, c.var.apiKey.tenant);
        if (job === null || job.kind !== "table") {
          throw new ApiError(404, "not_found", "no such table");
        }
        const diagnostics = c.var.apiKey.scopes.includes("diagnostics");
        return c.json(tableView(visibleJob(job, diagnostics, context.config), diagnostics), 200);
      },
    )
    .openapi(
      { ...diagnostics, middleware: [requireScope(store, "diagnostics")] as const },
      async (c) => {
        const { id } = c.req.valid("param");
        const { tenant } = c.var.apiKey;
        const job = await store.job(id, tenant);
        if (job === null || job.kind !== "table") {
          throw new ApiError(404, "not_found", "no such table");
        }
        if (job.status !== "succeeded" && job.status !== "failed") {
          throw new ApiError(409, "not_ready", `the table job is ${job.status}`);
        }
        const found = await store.jobDiagnostics(id, tenant);
        if (found === null) throw new ApiError(404, "not_found", "no diagnostics are kept for it");
        return c.json({ ...found } as Record<string, unknown>, 200);
      },
    );
}

/** `deno serve functions/tables.ts`: this function alone (and /healthz), with the worker pool. */
export default standalone(import.meta, [health, tables], { jobs: true });
