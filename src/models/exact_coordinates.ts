/**
 * Coordinates of a model's u that the sampler draws exactly instead of by NUTS.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";

/**
 * Coordinates of u that are independent of all the others under the target, whatever the
 * weighting, with a law known exactly (the `student-t` prior's v_k, `glm_prior.ts`: the
 * likelihood does not involve them). The sampler draws them exactly, one independent draw per
 * kept draw, and runs NUTS on the rest; the joint target is unchanged, only the dimension NUTS
 * explores shrinks (`src/mcmc/sample.ts`).
 */
export interface ExactCoordinates {
  /** Their indices in u, increasing. */
  readonly indices: readonly number[];
  /** Writes an exact, independent draw of coordinate `indices[j]` into `out[j]`. */
  draw(rng: Rng, out: Float64Array): void;
}
