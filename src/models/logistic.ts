/**
 * Logistic regression for a binary outcome (issue 15): P(y_i = 1 | x_i) = logit⁻¹(η_i),
 * η_i = x_iᵀβ, y_i ∈ {0, 1} the code of `design.outcomeLevels` (level 1 is the second level).
 * The coefficient prior is the other regressions' (`glm_prior.ts`):
 *
 *     β_k | σ_β,k ~ Normal(0, σ_β,k²),   σ_β,k ~ half-Student-t(3, 0, 1),   u = (β, log σ_β).
 *
 * With s_i = 2y_i − 1 and t_i = s_i·η_i, the record log-likelihood is log logit⁻¹(t_i):
 *
 *     ℓ_i = y_i·η_i − log(1 + e^{η_i}) = −max(−t_i, 0) − log1p(e^{−|t_i|}),
 *     ∂ℓ_i/∂η_i = y_i − logit⁻¹(η_i) = s_i·logit⁻¹(−t_i),
 *
 * one exp and one log1p per record, exact and without overflow at any |η| (ℓ = −800 at t = −800);
 * per group of records with the same covariates and outcome instead, when there are few
 * (`row_groups.ts`), with the same values bit for bit; otherwise in WebAssembly SIMD
 * (`logit_simd.ts`) where available.
 * An outcome other than 0 or 1 has ℓ_i = −∞ (the data reader never produces one; a record
 * with α_i = 0 is skipped, as in every model).
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import {
  addCovariates,
  censorBound,
  clampTerm,
  GlmModel,
  linearPredictor,
  singleBlock,
  unclamped,
} from "./_glm.ts";
import { describeModel, type Design, hmcKernels, type Weighting } from "./model.ts";
import { sigmoid } from "../stats/special.ts";
import { type RowGroups, rowGroups } from "./row_groups.ts";
import { LogitSimd } from "./logit_simd.ts";

/**
 * The sign s = 2y − 1 of each record's outcome (NaN for an outcome other than 0 or 1), after
 * checking that a design's outcome levels, if it names them, are two.
 */
export function binarySigns(design: Design, model: string): Float64Array {
  const levels = design.outcomeLevels;
  if (levels !== undefined && levels.length !== 2) {
    throw new RangeError(
      `Invalid design: the ${model} model needs a binary outcome: outcomeLevels.length=${levels.length}`,
    );
  }
  return design.y.map((y) => y === 1 ? 1 : y === 0 ? -1 : NaN);
}

/**
 * log logit⁻¹(t) = −log(1 + e^{−t}), for any real t, from e = e^{−|t|}.
 *
 * @param t the signed linear predictor.
 * @param e e^{−|t|}.
 * @returns log logit⁻¹(t).
 */
export function logSigmoidFrom(t: number, e: number): number {
  return (t < 0 ? t : 0) - Math.log1p(e);
}

/**
 * logit⁻¹(−t) = 1 − logit⁻¹(t), the derivative of log logit⁻¹(t), from e = e^{−|t|}.
 *
 * @param t the signed linear predictor.
 * @param e e^{−|t|}.
 * @returns logit⁻¹(−t).
 */
export function sigmoidNegFrom(t: number, e: number): number {
  return t >= 0 ? e / (1 + e) : 1 / (1 + e);
}

/**
 * log((#{s_i = 1} + ½)/(#{s_i = −1} + ½)), the log-odds of s = 1 with ½ added to both counts: the
 * starting intercept of a binary outcome's signs s (NaN entries not counted).
 */
export function smoothedLogOdds(signs: Float64Array): number {
  let ones = 0;
  let minusOnes = 0;
  for (const s of signs) {
    if (s === 1) ones++;
    else if (s === -1) minusOnes++;
  }
  return Math.log((ones + 0.5) / (minusOnes + 0.5));
}

/**
 * The logistic regression model; θ = (β, σ_β), u = (β, log σ_β).
 *
 * @example ℓ = log ½ at η = 0, and y·η − log(1 + e^η) elsewhere
 * ```ts
 * import assert from "node:assert/strict";
 * import { LogisticModel } from "./logistic.ts";
 * const m = new LogisticModel({
 *   n: 2, k: 1, y: Float64Array.of(1, 0), x: Float64Array.of(1, 1), coefficientNames: ["intercept"],
 * });
 * const l = m.logLik(Float64Array.of(0, 1), new Float64Array(2));
 * assert.ok(Math.abs(l[0] - Math.log(0.5)) < 1e-15 && Math.abs(l[1] - Math.log(0.5)) < 1e-15);
 * const far = m.logLik(Float64Array.of(800, 1), new Float64Array(2));
 * assert.deepEqual([...far], [0, -800]);
 * ```
 */
export class LogisticModel extends GlmModel {
  readonly #x: Float64Array;
  /** s_i = 2y_i − 1, NaN for an outcome other than 0 or 1. */
  readonly #s: Float64Array;
  /** Records with equal (x_i, s_i), when few enough to pay (`row_groups.ts`); else null. */
  readonly #groups: RowGroups | null;
  /** Scratch: log logit⁻¹(t) of each group at the current coefficients. */
  readonly #groupLogSigmoid: Float64Array;
  /** Scratch: logit⁻¹(−t) of each group at the current coefficients. */
  readonly #groupSigmoidNeg: Float64Array;
  /** Whether the ungrouped record loops run in WebAssembly SIMD (`logit_simd.ts`). */
  readonly #useSimd: boolean;
  /** The data's copy in WebAssembly memory, made on first use. */
  #simdLoops: LogitSimd | null = null;

  /**
   * Binds the model to a dataset.
   * @param design outcome (codes 0 and 1) and covariates.
   * @param options `groupRows: false` evaluates every record's terms itself (the reference the
   *   grouped loop is tested against); by default records that share their row are grouped.
   *   `simd: false` keeps the TypeScript loop for ungrouped records (the reference the
   *   WebAssembly loop is tested against); by default the WebAssembly loop runs them wherever
   *   SIMD is available.
   */
  constructor(
    design: Design,
    options: { readonly groupRows?: boolean; readonly simd?: boolean } = {},
  ) {
    super("logistic", design, null, singleBlock("logit"));
    this.#x = design.x;
    this.#s = binarySigns(design, "logistic");
    this.#groups = options.groupRows === false
      ? null
      : rowGroups(design.x, design.n, design.k, this.#s);
    const groupCount = this.#groups?.first.length ?? 0;
    this.#groupLogSigmoid = new Float64Array(groupCount);
    this.#groupSigmoidNeg = new Float64Array(groupCount);
    this.#useSimd = this.#groups === null && (options.simd ?? true) && LogitSimd.available;
  }

  /** The WebAssembly loops, or null when this model runs the TypeScript ones. */
  #simd(): LogitSimd | null {
    if (!this.#useSimd) return null;
    this.#simdLoops ??= new LogitSimd(
      this.design,
      Int32Array.from(this.#s, (s) => s === 1 ? 1 : s === -1 ? 0 : -1),
      2,
    );
    return this.#simdLoops;
  }

  /**
   * Each group's log logit⁻¹(t) and logit⁻¹(−t) at coefficients β = `coefficients[0..K)`, from
   * its first record with the record loop's arithmetic (so bit for bit the per-record values).
   */
  #fillGroups(groups: RowGroups, coefficients: Float64Array): void {
    const k = this.k;
    const x = this.#x;
    const sign = this.#s;
    const { first } = groups;
    for (let g = 0; g < first.length; g++) {
      const i = first[g];
      const s = sign[i];
      if (s !== s) continue;
      const t = s * linearPredictor(x, k, coefficients, i, 0);
      const e = Math.exp(-Math.abs(t));
      this.#groupLogSigmoid[g] = logSigmoidFrom(t, e);
      this.#groupSigmoidNeg[g] = sigmoidNegFrom(t, e);
    }
  }

  /** β_1 = the log-odds of the mean outcome (with ½ added to both counts), σ_β = 1. */
  initialPoint(): Float64Array {
    return this.startAt(smoothedLogOdds(this.#s), NaN);
  }

  /** Σ_i c_i with c_i = clamp(α_i·ℓ_i, ±C), plus the prior; ∂ℓ_i/∂η_i = y_i − logit⁻¹(η_i). */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    const censor = this.densityArguments(u, grad, weighting);
    return this.#records(u, grad, weighting, censor, this.logPrior(u, grad));
  }

  /**
   * Σ_i clamp(α_i·ℓ_i, ±C) alone, without the prior, at β = u[0..K), adding its gradient into
   * grad[0..K): for a model whose u and gradient lead with these coefficients (the hurdle model's
   * γ), so both may be longer than this model's.
   */
  logLikelihood(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    const k = this.k;
    if (u.length < k || (grad !== null && grad.length < k)) {
      throw new RangeError(
        `Invalid u or grad: must have length ≥ ${k}: u.length=${u.length}, ` +
          `grad.length=${grad?.length}`,
      );
    }
    return this.#records(u, grad, weighting, censorBound(weighting, this.n), 0);
  }

  /** `total` plus Σ_i c_i, adding the records' gradient into grad[0..K). */
  #records(
    u: Float64Array,
    grad: Float64Array | null,
    weighting: Weighting,
    censor: number,
    total: number,
  ): number {
    const simd = this.#simd();
    if (simd !== null) return total + simd.logDensity(u, grad, weighting);
    return this.#loop(u, grad, weighting.alpha, censor, total, null);
  }

  /** ℓ_i = y_i·η_i − log(1 + e^{η_i}) (−∞ for an outcome other than 0 or 1). */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    this.checkRecordOutput(theta, out);
    const simd = this.#simd();
    if (simd !== null) return simd.logLik(theta, out);
    const groups = this.#groups;
    if (groups === null) {
      this.#loop(theta, null, null, Infinity, 0, out);
      return out;
    }
    // Grouped rows: each record's group's value, a gather.
    this.#fillGroups(groups, theta);
    const sign = this.#s;
    for (let i = 0; i < this.n; i++) {
      out[i] = sign[i] !== sign[i] ? -Infinity : this.#groupLogSigmoid[groups.of[i]];
    }
    return out;
  }

  /**
   * The TypeScript record loop at β = u[0..K), per record or from its group's values
   * (`#fillGroups`): with `out`, writes each ℓ_i into it (and returns `total`); without, returns
   * `total` plus Σ_i c_i, adding the records' gradient into grad[0..K) unless grad is null.
   */
  #loop(
    u: Float64Array,
    grad: Float64Array | null,
    alpha: Float64Array | null,
    censor: number,
    total: number,
    out: Float64Array | null,
  ): number {
    const n = this.n;
    const k = this.k;
    const x = this.#x;
    const sign = this.#s;
    let g0 = 0;
    const groups = this.#groups;
    if (groups !== null) this.#fillGroups(groups, u);
    const of = groups?.of;
    for (let i = 0; i < n; i++) {
      const a = alpha === null ? 1 : alpha[i];
      if (a === 0) continue;
      const s = sign[i];
      if (s !== s) {
        if (out !== null) out[i] = -Infinity;
        else total += clampTerm(-Infinity, censor); // ℓ_i = −∞
        continue;
      }
      let t = NaN;
      let e = NaN;
      if (of === undefined) {
        const eta = linearPredictor(x, k, u, i, 0);
        t = s * eta;
        e = Math.exp(-Math.abs(t));
      }
      const l = of === undefined ? logSigmoidFrom(t, e) : this.#groupLogSigmoid[of[i]];
      if (out !== null) {
        out[i] = l;
        continue;
      }
      const c = a * l;
      total += clampTerm(c, censor);
      if (grad !== null && unclamped(c, censor)) {
        const g = a * s *
          (of === undefined ? sigmoidNegFrom(t, e) : this.#groupSigmoidNeg[of[i]]);
        g0 += g;
        addCovariates(grad, 0, g, x, i, k);
      }
    }
    if (grad !== null) grad[0] += g0;
    return total;
  }

  /** y*_i ~ Bernoulli(logit⁻¹(η_i)). */
  protected drawRecord(theta: Float64Array, rng: Rng, i: number): number {
    return rng.uniform() < sigmoid(linearPredictor(this.#x, this.k, theta, i, 0)) ? 1 : 0;
  }
}

/**
 * The logistic model's registry entry: binary outcomes; the `logistic` Lipschitz kernel on
 * s = 2y − 1 (no GPU HMC); a subset of a design's records is bound ungrouped.
 */
export const LOGISTIC = describeModel("logistic", "binary", (design) => new LogisticModel(design), {
  gpu: hmcKernels("logistic", [(y) => 2 * y - 1, () => 0], null),
  // A subset runs ungrouped, in the loop its parent runs (grouped rows: the TypeScript loop).
  subset: (parent) => {
    const key = binarySigns(parent, "logistic");
    const simd = rowGroups(parent.x, parent.n, parent.k, key) === null;
    return (design) => new LogisticModel(design, { groupRows: false, simd });
  },
});
