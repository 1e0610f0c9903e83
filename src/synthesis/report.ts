/**
 * The public release manifest (`report.json`, the API's `report`): one zod schema, the type
 * inferred from it. Only what may be released with the data.
 *
 * @module
 */
import { z } from "zod";
import { COEFFICIENT_PRIORS } from "../data/design.ts";

/** The manifest's schema (the API documents it in `/openapi.json`). */
export const ReleaseManifestSchema = z.object({
  mechanism: z.string(),
  /** The model, or "joint" for several outcomes (then `outcomes` names each one's model). */
  model: z.string(),
  /** Several outcomes (SPEC §10): each outcome and its model, in visit order. */
  outcomes: z.array(z.object({ y: z.string(), model: z.string() })).optional(),
  n: z.number().int(),
  m: z.number().int(),
  /** Δ_{α,x} (censoring: the level C; histogram: null). */
  lipschitz: z.number().nullable(),
  /** Lipschitz bound over draws: "max" (the maximum over all S draws, no relaxation). */
  lipschitzOverDraws: z.literal("max"),
  epsilonPerDataset: z.number(),
  epsilon: z.number(),
  guarantee: z.enum(["DP", "aDP"]),
  /** The neighbour relation of the guarantee: one record added or removed. */
  neighbours: z.literal("add-remove"),
  /** Which backend computed the final fit's bound ("cpu" or "gpu"; the value is the same). */
  backend: z.string(),
  /** Columns of each synthetic file: the synthetic outcome and the public covariates. */
  columns: z.array(z.string()),
  /**
   * A whole file's given columns (`x`): released as they are (public by the owner's
   * declaration), each record's with the record's other columns synthesised given them.
   */
  given: z.array(z.string()).optional(),
  /**
   * How a whole file's network drew its records from the released draw: "balanced" (systematic
   * counts within each parent configuration, `BayesNetModel.simulate`) or "iid".
   */
  sampling: z.enum(["balanced", "iid"]).optional(),
  software: z.object({ name: z.literal("ppsynth"), version: z.string() }),
  seedPolicy: z.string(),
  /**
   * The coefficient prior of the regression models (`student-t` or `paper`, see
   * `src/models/glm_prior.ts`); absent for the survey models, which have their own.
   */
  coefficientPrior: z.enum(COEFFICIENT_PRIORS).optional(),
  /**
   * Present (true) only when the final fit failed its diagnostics and the request allowed it
   * (`allowFlagged`, research): Δ and ε rest on a fit that may not have explored the tails.
   */
  fitFlagged: z.literal(true).optional(),
  /**
   * Present when the request asked for `"mechanism": "auto"`: the mechanism was chosen from
   * public facts only (`src/mechanisms/auto.ts`), and why.
   */
  mechanismChoice: z.object({ requested: z.literal("auto"), reason: z.string() }).optional(),
});

/** The public release manifest. */
export type ReleaseManifest = z.infer<typeof ReleaseManifestSchema>;
