/**
 * Registered datasets, their release policies and their privacy budgets.
 *
 * - `POST /v1/datasets` (scope admin: the data owner) registers a confidential dataset with a
 *   total budget ε_total and its release policy (what is public: `publicColumns`, `bounds`,
 *   `stratumSizes`, `levels`; the smallest ε of a request, `minEpsilon`, and the weakest
 *   guarantee allowed, `guarantee`; the survey design columns, `surveyDesign`, confidential unless
 *   `discloseDesign`; see `release_policy.ts`), as CSV text (`Content-Type: text/csv`,
 *   `?epsilonTotal=…&name=…&publicColumns=a,b`) or JSON (`{epsilonTotal, name?, csv | records,
 *   publicColumns?, bounds?, stratumSizes?, levels?, minEpsilon?, guarantee?, surveyDesign?,
 *   discloseDesign?, allowUnweighted?, fileSchema?}`: the whole file's declared schema, which
 *   a synthesis with `y: "all"` releases under); 201 with its id and policy. The policy cannot be changed afterwards. The
 *   dataset belongs to the key's tenant.
 * - `GET /v1/datasets/{id}` (scope read): name, n, columns, ε_total and the policy.
 * - `GET /v1/datasets/{id}/budget` (scope read): ε_total, spent (rounded up), remaining (rounded
 *   down) and every charge (a job's requested ε, charged when it was accepted).
 *
 * Another tenant's dataset is answered 404, as one that does not exist.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { bodyMiddleware, commitRequest, functionApp, requestSignal } from "../src/api/app.ts";
import { requireScope } from "../src/api/auth.ts";
import type { ApiContext } from "../src/jobs/context.ts";
import { readDataInputAsync } from "../src/api/data_input.ts";
import { ApiError } from "../src/api/errors.ts";
import {
  createPolicy,
  DEFAULT_MIN_EPSILON,
  PolicyDeclaration,
  surveyDesignOf,
} from "../src/jobs/release_policy.ts";
import {
  bodyRoute,
  CsvText,
  decimalParam,
  errorResponses,
  exactlyOneSource,
  getById,
  Records,
} from "../src/api/schemas.ts";
import { standalone } from "../src/api/standalone.ts";
import type { DatasetInfo as StoredDataset } from "../src/jobs/store.ts";
import { health } from "./health.ts";

const EpsilonTotal = z.number().finite().positive().openapi({
  description: "Total privacy budget ε_total of the dataset",
  example: 10,
});
const Name = z.string().min(1).max(200).openapi({ example: "skewed counts" });

const DatasetJson = PolicyDeclaration.partial().extend({
  epsilonTotal: EpsilonTotal,
  name: Name.optional(),
  csv: CsvText.optional(),
  records: Records.optional(),
}).strict().superRefine((body, context) => exactlyOneSource(body, context, ["csv", "records"]))
  .openapi("DatasetUpload");

const CsvQuery = z.object({
  epsilonTotal: decimalParam(z.number().finite().positive()).optional().openapi({
    // The document shows the number it stands for (a plain decimal: no 0x10, no blank).
    type: "number",
    minimum: 0,
    exclusiveMinimum: true,
    description: "ε_total, with a text/csv body",
  }),
  name: Name.optional(),
  publicColumns: z.string().max(100_000).optional().openapi({
    description: "Comma-separated public columns, with a text/csv body (default: none)",
  }),
  allowUnweighted: z.enum(["true", "false"]).optional().openapi({
    description: "Whether analysts may run the unweighted mechanism (default: false)",
  }),
});

const Policy = z.object({
  publicColumns: z.array(z.string()),
  bounds: z.record(z.string(), z.tuple([z.number(), z.number()])),
  stratumSizes: z.record(z.string(), z.record(z.string(), z.number())),
  levels: z.record(z.string(), z.array(z.string())),
  minEpsilon: z.number().openapi({ description: "The smallest ε of one request" }),
  guarantee: z.enum(["DP", "aDP"]).openapi({
    description: '"DP": only mechanisms with a formal DP guarantee; "aDP": also the pseudo ' +
      "posterior ones",
  }),
  surveyDesign: z.object({
    weight: z.string().optional(),
    strata: z.string().optional(),
    psu: z.string().optional(),
  }).openapi({
    description: "The file's survey design columns (weight, strata, PSU), as declared; " +
      "confidential unless declared public with discloseDesign",
  }),
  designDisclosed: z.boolean().openapi({
    description: "Whether a design column is public (declared with discloseDesign: true: " +
      "weights, strata and PSUs can predict confidential variables)",
  }),
  allowUnweighted: z.boolean().openapi({
    description: "Whether analysts may run the unweighted mechanism, whose success depends on " +
      "whether the data's Δ fits the cap (default false)",
  }),
  fileSchema: z.record(z.string(), z.unknown()).nullable().openapi({
    description: "The declared schema of the whole file (columns, levels, bounds, N/A markers, " +
      'rules), under which a synthesis with y: "all" releases every column; null: none declared',
  }),
  sizePublic: z.literal(true),
  neighbours: z.literal("add-remove"),
}).openapi("DatasetPolicy", {
  description: "What the data owner declared public at registration; every other column is " +
    "confidential. Fixed for the dataset's life.",
});

const DatasetInfo = z.object({
  id: z.string(),
  name: z.string(),
  n: z.number().int(),
  columns: z.array(z.string()),
  epsilonTotal: z.number(),
  createdAt: z.string(),
  policy: Policy,
}).openapi("Dataset");

const Budget = z.object({
  datasetId: z.string(),
  epsilonTotal: z.number(),
  spent: z.number().openapi({ description: "Σ ε of the releases, rounded up" }),
  remaining: z.number().openapi({ description: "ε_total − spent, rounded down" }),
  releases: z.array(z.object({ jobId: z.string(), epsilon: z.number(), chargedAt: z.string() }))
    .openapi({ description: "Every charge: a job's requested ε, charged when it was accepted" }),
}).openapi("Budget");

const register = bodyRoute(
  "/v1/datasets",
  "Register a confidential dataset with a total privacy budget and its release policy",
  {
    query: CsvQuery,
    body: {
      required: false,
      content: {
        "application/json": { schema: DatasetJson },
        "text/csv": { schema: CsvText },
      },
    },
  },
  {
    201: { description: "Registered", content: { "application/json": { schema: DatasetInfo } } },
    ...errorResponses(400, 401, 403, 413, 415),
  },
);

const describe = getById(
  "/v1/datasets/{id}",
  "A registered dataset: size, columns, budget total and release policy",
  { description: "The dataset", schema: DatasetInfo },
);

const budget = getById(
  "/v1/datasets/{id}/budget",
  "Spent and remaining ε of a dataset, with its charges",
  { description: "The budget", schema: Budget },
);

function isCsv(contentType: string | undefined): boolean {
  return contentType?.split(";")[0].trim().toLowerCase() === "text/csv";
}

/** A dataset's description as JSON (mutable copies, as the response types want). */
function datasetJson(info: StoredDataset) {
  const { policy } = info;
  return {
    ...info,
    columns: [...info.columns],
    policy: {
      publicColumns: [...policy.publicColumns],
      bounds: Object.fromEntries(
        Object.entries(policy.bounds).map((
          [name, [lo, hi]],
        ) => [name, [lo, hi] as [number, number]]),
      ),
      stratumSizes: Object.fromEntries(
        Object.entries(policy.stratumSizes).map(([name, sizes]) => [name, { ...sizes }]),
      ),
      levels: Object.fromEntries(
        Object.entries(policy.levels).map(([name, levels]) => [name, [...levels]]),
      ),
      minEpsilon: policy.minEpsilon ?? DEFAULT_MIN_EPSILON,
      guarantee: policy.guarantee ?? "aDP",
      ...surveyDesignOf(policy),
      allowUnweighted: policy.allowUnweighted ?? false,
      fileSchema: policy.fileSchema === undefined
        ? null
        : structuredClone(policy.fileSchema) as unknown as Record<string, unknown>,
      sizePublic: policy.sizePublic,
      neighbours: policy.neighbours,
    },
  };
}

/** The datasets function. */
export function datasets(context: ApiContext) {
  const { store } = context;
  return functionApp()
    .openapi(
      {
        ...register,
        middleware: bodyMiddleware(context, "admin", "dataset upload"),
      },
      async (c) => {
        const contentType = c.req.header("content-type");
        let upload: z.infer<typeof DatasetJson>;
        if (isCsv(contentType)) {
          const query = c.req.valid("query");
          if (query.epsilonTotal === undefined) {
            throw new ApiError(400, "invalid_request", "epsilonTotal is required", "epsilonTotal");
          }
          upload = {
            epsilonTotal: query.epsilonTotal,
            name: query.name,
            csv: await c.req.text(),
            publicColumns: query.publicColumns?.split(",").map((name) => name.trim())
              .filter((name) => name !== ""),
            allowUnweighted: query.allowUnweighted === "true",
          };
        } else if (contentType === undefined) {
          throw new ApiError(400, "invalid_request", "a body is required (JSON or text/csv)");
        } else {
          // JSON bodies were validated against DatasetJson (the text/csv schema is for the docs).
          upload = c.req.valid("json") as z.infer<typeof DatasetJson>;
        }
        const read = await readDataInputAsync(upload, "dataset upload", requestSignal(c));
        const policy = createPolicy(upload, read.data);
        commitRequest(c);
        const info = await store.createDataset({
          id: crypto.randomUUID(),
          name: upload.name ?? "dataset",
          csv: read.csv,
          n: read.data.n,
          columns: read.data.names,
          epsilonTotal: upload.epsilonTotal,
          ownerKeyId: c.var.apiKey.id,
          tenant: c.var.apiKey.tenant,
          policy,
        });
        c.header("Location", `/v1/datasets/${info.id}`);
        return c.json(datasetJson(info), 201);
      },
    )
    .openapi(
      { ...describe, middleware: [requireScope(store, "read")] as const },
      async (c) => {
        const found = await existing(store.dataset(c.req.valid("param").id, c.var.apiKey.tenant));
        return c.json(datasetJson(found), 200);
      },
    )
    .openapi(
      { ...budget, middleware: [requireScope(store, "read")] as const },
      async (c) => {
        const found = await existing(store.budget(c.req.valid("param").id, c.var.apiKey.tenant));
        return c.json({ ...found, releases: [...found.releases] }, 200);
      },
    );
}

/** What the store found of the tenant's dataset by the route's id; a 404 where there is none. */
async function existing<T>(found: Promise<T | null>): Promise<T> {
  const value = await found;
  if (value === null) throw new ApiError(404, "not_found", "no such dataset");
  return value;
}

/** `deno serve functions/datasets.ts`: this function alone (and /healthz). */
export default standalone(import.meta, [health, datasets], { jobs: false });
