/**
 * Registered datasets and their privacy budgets.
 *
 * - `POST /v1/datasets` (scope admin: the data owner) registers a confidential dataset with a
 *   total budget ε_total, as CSV text (`Content-Type: text/csv`, `?epsilonTotal=…&name=…`) or
 *   JSON (`{epsilonTotal, name?, csv | records}`); 201 with its id.
 * - `GET /v1/datasets/{id}/budget` (scope read): ε_total, spent (rounded up), remaining (rounded
 *   down) and the releases charged.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { DataError } from "../src/data/data_error.ts";
import { functionApp } from "../src/api/app.ts";
import { requireScope } from "../src/api/auth.ts";
import type { ApiContext } from "../src/api/context.ts";
import { readDataInput } from "../src/api/data_input.ts";
import { ApiError } from "../src/api/errors.ts";
import { BEARER_SECURITY, CsvText, errorResponses, IdParam, Records } from "../src/api/schemas.ts";
import { standalone } from "../src/api/standalone.ts";
import { health } from "./health.ts";

const EpsilonTotal = z.number().finite().positive().openapi({
  description: "Total privacy budget ε_total of the dataset",
  example: 10,
});
const Name = z.string().min(1).max(200).openapi({ example: "skewed counts" });

const DatasetJson = z.object({
  epsilonTotal: EpsilonTotal,
  name: Name.optional(),
  csv: CsvText.optional(),
  records: Records.optional(),
}).strict().superRefine((body, context) => {
  if ((body.csv === undefined) === (body.records === undefined)) {
    context.addIssue({
      code: "custom",
      path: ["csv"],
      message: "give exactly one of csv and records",
    });
  }
}).openapi("DatasetUpload");

const CsvQuery = z.object({
  epsilonTotal: z.coerce.number().finite().positive().optional().openapi({
    description: "ε_total, with a text/csv body",
  }),
  name: Name.optional(),
});

const DatasetInfo = z.object({
  id: z.string(),
  name: z.string(),
  n: z.number().int(),
  columns: z.array(z.string()),
  epsilonTotal: z.number(),
  createdAt: z.string(),
}).openapi("Dataset");

const Budget = z.object({
  datasetId: z.string(),
  epsilonTotal: z.number(),
  spent: z.number().openapi({ description: "Σ ε of the releases, rounded up" }),
  remaining: z.number().openapi({ description: "ε_total − spent, rounded down" }),
  releases: z.array(z.object({ jobId: z.string(), epsilon: z.number(), releasedAt: z.string() })),
}).openapi("Budget");

const register = createRoute({
  method: "post",
  path: "/v1/datasets",
  summary: "Register a confidential dataset with a total privacy budget",
  security: BEARER_SECURITY,
  request: {
    query: CsvQuery,
    body: {
      required: false,
      content: {
        "application/json": { schema: DatasetJson },
        "text/csv": { schema: CsvText },
      },
    },
  },
  responses: {
    201: { description: "Registered", content: { "application/json": { schema: DatasetInfo } } },
    ...errorResponses(400, 401, 403, 413, 415),
  },
});

const budget = createRoute({
  method: "get",
  path: "/v1/datasets/{id}/budget",
  summary: "Spent and remaining ε of a dataset, with its releases",
  security: BEARER_SECURITY,
  request: { params: IdParam },
  responses: {
    200: { description: "The budget", content: { "application/json": { schema: Budget } } },
    ...errorResponses(400, 401, 403, 404),
  },
});

function isCsv(contentType: string | undefined): boolean {
  return contentType?.split(";")[0].trim().toLowerCase() === "text/csv";
}

/** The datasets function. */
export function datasets(context: ApiContext) {
  const { store } = context;
  return functionApp()
    .openapi(
      { ...register, middleware: [requireScope(store, "admin")] as const },
      async (c) => {
        const contentType = c.req.header("content-type");
        let upload: z.infer<typeof DatasetJson>;
        if (isCsv(contentType)) {
          const query = c.req.valid("query");
          if (query.epsilonTotal === undefined) {
            throw new ApiError(400, "invalid_request", "epsilonTotal is required", "epsilonTotal");
          }
          upload = { epsilonTotal: query.epsilonTotal, name: query.name, csv: await c.req.text() };
        } else if (contentType === undefined) {
          throw new ApiError(400, "invalid_request", "a body is required (JSON or text/csv)");
        } else {
          // JSON bodies were validated against DatasetJson (the text/csv schema is for the docs).
          upload = c.req.valid("json") as z.infer<typeof DatasetJson>;
        }
        let read: ReturnType<typeof readDataInput>;
        try {
          read = readDataInput(upload, "dataset upload");
        } catch (error) {
          if (error instanceof DataError) throw new ApiError(400, "invalid_data", error.message);
          throw error;
        }
        const info = await store.createDataset({
          id: crypto.randomUUID(),
          name: upload.name ?? "dataset",
          csv: read.csv,
          n: read.data.n,
          columns: read.data.names,
          epsilonTotal: upload.epsilonTotal,
          ownerKeyId: c.var.apiKey.id,
        });
        c.header("Location", `/v1/datasets/${info.id}/budget`);
        return c.json({ ...info, columns: [...info.columns] }, 201);
      },
    )
    .openapi(
      { ...budget, middleware: [requireScope(store, "read")] as const },
      async (c) => {
        const found = await store.budget(c.req.valid("param").id);
        if (found === null) throw new ApiError(404, "not_found", "no such dataset");
        return c.json({ ...found, releases: [...found.releases] }, 200);
      },
    );
}

/** `deno serve functions/datasets.ts`: this function alone (and /healthz). */
export default standalone(import.meta, [health, datasets], { jobs: false });
