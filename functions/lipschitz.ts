/**
 * `POST /v1/lipschitz` (scope diagnostics; synchronous, bounded size): the per-record bounds
 * Δ_{α,x_i} = max_s |α_i·ℓ_i(θ_s)| and the overall Δ_{α,x} = max_i Δ_{α,x_i} (SPEC §1) of a
 * model on given data, weights α and posterior draws θ_s (constrained scale, one array per
 * parameter name). The response holds per-record Δ, which is confidential: it goes only to keys
 * with the diagnostics scope and is never logged.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { bodyMiddleware, functionApp, requestSignal } from "../src/api/app.ts";
import type { ApiContext } from "../src/jobs/context.ts";
import { readDataInputAsync } from "../src/api/data_input.ts";
import { ApiError } from "../src/api/errors.ts";
import {
  bodyRoute,
  CsvText,
  errorResponses,
  exactlyOneSource,
  Records,
} from "../src/api/schemas.ts";
import { standalone } from "../src/api/standalone.ts";
import { health } from "./health.ts";
import { buildDesign } from "../src/data/design.ts";
import type { LipschitzBackend } from "../src/mechanisms/lipschitz_backend.ts";
import { selectLipschitz } from "../src/gpu/select_lipschitz.ts";
import { createModel, type Model, MODEL_NAMES, outcomeKind } from "../src/models/mod.ts";

/** The backend that computes the bound: the GPU when an adapter exists, else the CPU loop. */
export function lipschitzBackend(): Promise<LipschitzBackend> {
  return selectLipschitz("gpu");
}

const LipschitzRequest = z.object({
  model: z.enum(MODEL_NAMES),
  y: z.string().min(1),
  x: z.array(z.string().min(1)).default([]),
  weight: z.string().min(1).optional().openapi({ description: "Survey weight column (fbs, fbp)" }),
  csv: CsvText.optional(),
  records: Records.optional(),
  alpha: z.array(z.number().finite().nonnegative()).optional().openapi({
    description: "Record weights α_i ≥ 0 (default all 1), one per record",
  }),
  draws: z.record(z.string().min(1).max(200), z.array(z.number().finite()).min(1)).openapi({
    description: "Posterior draws on the constrained scale: parameter name → S values",
    example: { intercept: [1.1, 1.2], sigma_beta_intercept: [0.9, 1.3], phi: [4.2, 5.0] },
  }),
}).strict().superRefine((body, context) => exactlyOneSource(body, context, ["csv", "records"]))
  .openapi("LipschitzRequest");

const LipschitzResponse = z.object({
  model: z.string(),
  n: z.number().int(),
  draws: z.number().int(),
  parameters: z.array(z.string()),
  overall: z.number().openapi({ description: "Δ_{α,x}" }),
  perRecord: z.array(z.number()).openapi({ description: "Δ_{α,x_i} (confidential)" }),
  argmax: z.object({ record: z.number().int(), draw: z.number().int() }),
  backend: z.string(),
}).openapi("Lipschitz");

const route = bodyRoute(
  "/v1/lipschitz",
  "Per-record and overall Lipschitz bounds for a model, data, α and draws",
  { body: { required: true, content: { "application/json": { schema: LipschitzRequest } } } },
  {
    200: {
      description: "The bounds",
      content: { "application/json": { schema: LipschitzResponse } },
    },
    ...errorResponses(400, 401, 403, 413, 415, 422),
  },
);

/** Packs the named draws into an S×dim row-major matrix, checking names, lengths and support. */
function drawMatrix(model: Model, draws: Record<string, number[]>, maxCells: number): Float64Array {
  for (const name of Object.keys(draws)) {
    if (!model.paramNames.includes(name)) {
      throw new ApiError(
        400,
        "invalid_request",
        `unknown parameter (the model's are ${model.paramNames.join(", ")})`,
        `draws.${name}`,
      );
    }
  }
  const columns = model.paramNames.map((name) => {
    const column = draws[name];
    if (column === undefined) {
      throw new ApiError(400, "invalid_request", "missing parameter", `draws.${name}`);
    }
    return column;
  });
  const S = columns[0].length;
  columns.forEach((column, j) => {
    if (column.length !== S) {
      throw new ApiError(
        400,
        "invalid_request",
        `every parameter needs the same number of draws (${S})`,
        `draws.${model.paramNames[j]}`,
      );
    }
  });
  if (S * model.design.n > maxCells) {
    throw new ApiError(
      400,
      "too_large",
      `draws × records exceeds ${maxCells}; submit a synthesis job for larger problems`,
      "draws",
    );
  }
  const dim = model.dim;
  const matrix = new Float64Array(S * dim);
  for (let s = 0; s < S; s++) {
    for (let j = 0; j < dim; j++) matrix[s * dim + j] = columns[j][s];
    model.unconstrain(matrix.subarray(s * dim, (s + 1) * dim));
  }
  return matrix;
}

/** The Lipschitz function. */
export function lipschitz(context: ApiContext) {
  return functionApp().openapi(
    {
      ...route,
      middleware: bodyMiddleware(context, "diagnostics", "request data"),
    },
    async (c) => {
      const body = c.req.valid("json");
      const { data } = await readDataInputAsync(body, "request data", requestSignal(c));
      const model = createModel(
        body.model,
        buildDesign(data, { y: body.y, x: body.x, weight: body.weight }, outcomeKind(body.model)),
      );
      const n = model.design.n;
      if (body.alpha !== undefined && body.alpha.length !== n) {
        throw new ApiError(
          400,
          "invalid_request",
          `alpha needs one weight per record (${n})`,
          "alpha",
        );
      }
      const draws = drawMatrix(model, body.draws, context.config.lipschitzMaxCells);
      const backend = await lipschitzBackend();
      const result = await backend.compute(model, draws, {
        alpha: body.alpha === undefined ? null : Float64Array.from(body.alpha),
      });
      if (!Number.isFinite(result.overall)) {
        throw new ApiError(
          422,
          "unbounded",
          "a record's log-likelihood is not finite at some draw, so the bound is infinite",
        );
      }
      return c.json({
        model: body.model,
        n,
        draws: draws.length / model.dim,
        parameters: [...model.paramNames],
        overall: result.overall,
        perRecord: Array.from(result.perRecord),
        argmax: result.argmax,
        backend: backend.name,
      }, 200);
    },
  );
}

/** `deno serve functions/lipschitz.ts`: this function alone (and /healthz). */
export default standalone(import.meta, [health, lipschitz], { jobs: false });
