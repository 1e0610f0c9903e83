/**
 * The Lipschitz bound of the pseudo posterior mechanism on the CPU (SPEC §1).
 *
 * L_{s,i} = |α_i·ℓ_i(θ_s)|; record bound Δ_{α,x_i} = max_s L_{s,i}; database bound
 * Δ_{α,x} = max_i Δ_{α,x_i}. This equals the Supplement 1 R script's
 * |Σ_j ℓ_sj − Σ_{j≠i} ℓ_sj| with thresh = 1 (the maximum over draws), in O(S·n) time.
 *
 * @module
 */
import { type StopFlag, throwIfStopRequested } from "../data/worker_stop.ts";
import type { Model } from "../models/model.ts";

/** Per-record and overall Lipschitz bounds, with where the overall maximum was attained. */
export interface LipschitzResult {
  /** Δ_{α,x_i} for every record (confidential). */
  readonly perRecord: Float64Array;
  /** Δ_{α,x} = max_i Δ_{α,x_i}. */
  readonly overall: number;
  /** Record (0-based) and draw (0-based) of the overall maximum. */
  readonly argmax: { readonly record: number; readonly draw: number };
  /** The S×n matrix L (row-major by draw), only when asked for. */
  readonly matrix?: Float64Array;
}

/** Options for {@linkcode lipschitz}. */
export interface LipschitzOptions {
  /** Record weights α (null: all 1). */
  readonly alpha?: Float64Array | null;
  /** Also return the full S×n matrix (S·n·8 bytes). */
  readonly matrix?: boolean;
}

/**
 * Computes the Lipschitz bounds from S posterior draws, streaming over draws with O(n) memory
 * unless the matrix is requested. A record with α_i = 0 contributes 0, whatever its ℓ_i; a
 * non-finite ℓ_i with α_i > 0 makes the bound infinite (never silently dropped).
 *
 * @param model The model bound to the confidential data.
 * @param draws S×dim constrained draws, row-major.
 * @returns The per-record bounds, the overall bound and its arg-max.
 */
export function lipschitz(
  model: Model,
  draws: Float64Array,
  options: LipschitzOptions = {},
): LipschitzResult {
  const alpha = checkLipschitzInput(model, draws, options);
  const { perRecord, argDraw, matrix } = recordMaxima(model, draws, alpha, options.matrix ?? false);
  return { perRecord, ...overallOf(perRecord, argDraw), matrix };
}

/**
 * Refuses draws that are not whole rows of the model's dimension and weights of the wrong length.
 *
 * @param model The model.
 * @param draws S×dim constrained draws.
 * @param options The weights α.
 * @returns α (null: all 1).
 */
export function checkLipschitzInput(
  model: Model,
  draws: Float64Array,
  options: LipschitzOptions,
): Float64Array | null {
  const { n } = model.design;
  const dim = model.dim;
  if (draws.length === 0 || draws.length % dim !== 0) {
    throw new RangeError(`draws has ${draws.length} values, not a positive multiple of ${dim}`);
  }
  const alpha = options.alpha ?? null;
  if (alpha !== null && alpha.length !== n) {
    throw new RangeError(`alpha has ${alpha.length} entries, expected ${n}`);
  }
  return alpha;
}

/** Per-record maxima of |α_i·ℓ_i(θ_s)| over the draws and the first draw attaining each. */
export interface RecordMaxima {
  readonly perRecord: Float64Array;
  readonly argDraw: Int32Array;
  readonly matrix?: Float64Array;
}

/**
 * The record loop of {@linkcode lipschitz}: per-record maxima over the draws, each with the first
 * draw that attains it (a NaN is +∞: an unbounded record).
 *
 * @param model The model.
 * @param draws S×dim constrained draws.
 * @param alpha Record weights (null: all 1).
 * @param withMatrix Also keep the S×n matrix.
 * @param stop Read once a draw: when set, the loop throws (a share worker's job, `worker_stop.ts`).
 * @returns The maxima and where they were attained.
 */
export function recordMaxima(
  model: Model,
  draws: Float64Array,
  alpha: Float64Array | null,
  withMatrix = false,
  stop?: StopFlag,
): RecordMaxima {
  const { n } = model.design;
  const dim = model.dim;
  const draws_ = draws.length / dim;
  const perRecord = new Float64Array(n);
  const argDraw = new Int32Array(n);
  const matrix = withMatrix ? new Float64Array(draws_ * n) : undefined;
  const logLik = new Float64Array(n);
  for (let s = 0; s < draws_; s++) {
    throwIfStopRequested(stop);
    model.logLik(draws.subarray(s * dim, (s + 1) * dim), logLik);
    for (let i = 0; i < n; i++) {
      const a = alpha === null ? 1 : alpha[i];
      const value = a === 0 ? 0 : Math.abs(a * logLik[i]);
      const bounded = Number.isNaN(value) ? Infinity : value;
      if (matrix !== undefined) matrix[s * n + i] = bounded;
      if (bounded > perRecord[i]) {
        perRecord[i] = bounded;
        argDraw[i] = s;
      }
    }
  }
  return { perRecord, argDraw, matrix };
}

/**
 * The overall bound from the per-record maxima: the first record attaining the largest, and the
 * draw where it did.
 *
 * @param perRecord Δ_{α,x_i}.
 * @param argDraw The draw of each record's maximum.
 * @returns Δ_{α,x} and its (record, draw).
 */
export function overallOf(
  perRecord: Float64Array,
  argDraw: Int32Array,
): Pick<LipschitzResult, "overall" | "argmax"> {
  let record = 0;
  for (let i = 1; i < perRecord.length; i++) if (perRecord[i] > perRecord[record]) record = i;
  return { overall: perRecord[record], argmax: { record, draw: argDraw[record] } };
}
