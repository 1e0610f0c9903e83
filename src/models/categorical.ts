/**
 * Multinomial logit regression for a categorical outcome (issue 15): L ≥ 2 levels, level 0 (the
 * first of `design.outcomeLevels`) the reference, y_i ∈ {0, …, L−1} the level's code, and
 *
 *     P(y_i = l | x_i) = e^{η_il} / Σ_m e^{η_im},   η_i0 = 0,   η_il = x_iᵀβ_l  (l = 1..L−1).
 *
 * θ holds the (L−1)×K coefficients level by level (β_1 then β_2, …), then one prior scale per
 * coefficient in the same order; every coefficient has the other regressions' prior
 * (`glm_prior.ts`):
 *
 *     β_lk | σ_lk ~ Normal(0, σ_lk²),   σ_lk ~ half-Student-t(3, 0, 1),   u = (β, log σ).
 *
 * The record log-likelihood and its gradient, by log-sum-exp with m_i = max(0, max_l η_il), so
 * that no exponential overflows:
 *
 *     ℓ_i = (η_{i,y_i} − m_i) − log Σ_l e^{η_il − m_i},
 *     ∂ℓ_i/∂β_lk = x_ik·(1[y_i = l] − p_il),   p_il = e^{η_il − m_i} / Σ_m e^{η_im − m_i}.
 *
 * Records with the same covariates are evaluated once per group when there are few
 * (`row_groups.ts`), with the same values bit for bit; otherwise in WebAssembly SIMD
 * (`logit_simd.ts`) where available. An outcome that is not a level's code has ℓ_i = −∞ (the
 * data reader never produces one). With L = 2 the model is the logistic model with the same prior.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { addCovariates, clampTerm, type CoefficientBlock, GlmModel, unclamped } from "./_glm.ts";
import { describeModel, type Design, hmcKernels, type Weighting } from "./model.ts";
import { type RowGroups, rowGroups } from "./row_groups.ts";
import { LogitSimd } from "./logit_simd.ts";

/** One coefficient block per level but the reference, `level=<level>:`, on the logit scale. */
function levelBlocks(design: Design): CoefficientBlock[] {
  const levels = design.outcomeLevels;
  if (levels === undefined || levels.length < 2) {
    throw new RangeError(
      `Invalid design: the categorical model needs outcomeLevels with at least two levels: ` +
        `length=${levels?.length ?? 0}`,
    );
  }
  return levels.slice(1).map((level) => ({ prefix: `level=${level}:`, scale: "logit" }));
}

/**
 * The categorical (multinomial logit) model; θ = (β_1, …, β_{L−1}, σ), u = (β, log σ), each β_l
 * of length K, named `level=<level>:<coefficient>` and its scale `sigma_beta_level=…`.
 *
 * @example Three levels at η = 0: every record has ℓ = −log 3
 * ```ts
 * import assert from "node:assert/strict";
 * import { CategoricalModel } from "./categorical.ts";
 * const m = new CategoricalModel({
 *   n: 1, k: 1, y: Float64Array.of(2), x: Float64Array.of(1), coefficientNames: ["intercept"],
 *   outcomeLevels: ["a", "b", "c"],
 * });
 * assert.deepEqual(m.paramNames.slice(0, 2), ["level=b:intercept", "level=c:intercept"]);
 * const l = m.logLik(Float64Array.of(0, 0, 1, 1), new Float64Array(1));
 * assert.ok(Math.abs(l[0] + Math.log(3)) < 1e-15);
 * ```
 */
export class CategoricalModel extends GlmModel {
  readonly metric = "diag";
  /** Number of levels L. */
  readonly #levels: number;
  readonly #x: Float64Array;
  /** y_i as a level code, −1 for an outcome that is not one. */
  readonly #code: Int32Array;
  /** Scratch: η_il − m_i of one record, l = 0..L−1. */
  readonly #eta: Float64Array;
  /** Scratch: p_il of one record. */
  readonly #p: Float64Array;
  /** Records with equal covariates, when few enough to pay (`row_groups.ts`); else null. */
  readonly #groups: RowGroups | null;
  /** Scratch: each group's η_l − m (G × L). */
  readonly #groupEta: Float64Array;
  /** Scratch: each group's p_l (G × L). */
  readonly #groupP: Float64Array;
  /** Scratch: each group's log Σ_l e^{η_l − m}. */
  readonly #groupLse: Float64Array;
  /** Whether the ungrouped record loops run in WebAssembly SIMD (`logit_simd.ts`). */
  readonly #useSimd: boolean;
  /** The data's copy in WebAssembly memory, made on first use. */
  #simdLoops: LogitSimd | null = null;

  /**
   * Binds the model to a dataset.
   * @param design outcome codes 0..L−1, their `outcomeLevels` (L ≥ 2), and covariates.
   * @param options `groupRows: false` evaluates every record's softmax itself (the reference the
   *   grouped loop is tested against); by default records that share their row are grouped.
   *   `simd: false` keeps the TypeScript loop for ungrouped records (the reference the
   *   WebAssembly loop is tested against); by default the WebAssembly loop runs them wherever
   *   SIMD is available.
   */
  constructor(
    design: Design,
    options: { readonly groupRows?: boolean; readonly simd?: boolean } = {},
  ) {
    const blocks = levelBlocks(design);
    super("categorical", design, null, blocks);
    const levels = blocks.length + 1;
    this.#levels = levels;
    this.#x = design.x;
    this.#code = Int32Array.from(
      design.y,
      (y) => Number.isInteger(y) && y >= 0 && y < levels ? y : -1,
    );
    this.#eta = new Float64Array(levels);
    this.#p = new Float64Array(levels);
    this.#groups = options.groupRows === false
      ? null
      : rowGroups(design.x, design.n, design.k, null);
    const groupCount = this.#groups?.first.length ?? 0;
    this.#groupEta = new Float64Array(groupCount * levels);
    this.#groupP = new Float64Array(groupCount * levels);
    this.#groupLse = new Float64Array(groupCount);
    this.#useSimd = this.#groups === null && (options.simd ?? true) && LogitSimd.available;
  }

  /**
   * Each level's intercept at the log-odds of its share against the reference level's (½ added
   * to every count), the other coefficients 0, every scale 1.
   */
  initialPoint(): Float64Array {
    const counts = new Float64Array(this.#levels).fill(0.5);
    for (const c of this.#code) if (c >= 0) counts[c]++;
    const u = new Float64Array(this.dim);
    for (let l = 1; l < this.#levels; l++) u[(l - 1) * this.k] = Math.log(counts[l] / counts[0]);
    return u;
  }

  /**
   * The linear predictors of record i shifted by their maximum, η_il − m_i (η_i0 = 0), into the
   * scratch `#eta` and the probabilities p_il into `#p`; returns log Σ_l e^{η_il − m_i} as log1p
   * of the terms but the largest (which is 1), so that ℓ_i = (η_{i,y_i} − m_i) −
   * log Σ_l e^{η_il − m_i} loses nothing to cancellation, near 0 included.
   */
  #softmax(coefficients: Float64Array, i: number): number {
    const k = this.k;
    const x = this.#x;
    const eta = this.#eta;
    const p = this.#p;
    const levels = this.#levels;
    const off = i * k;
    let max = 0;
    let top = 0;
    eta[0] = 0;
    for (let l = 1, at = 0; l < levels; l++, at += k) {
      let v = coefficients[at];
      for (let j = 1; j < k; j++) v += x[off + j] * coefficients[at + j];
      eta[l] = v;
      if (v > max) {
        max = v;
        top = l;
      }
    }
    let rest = 0; // Σ_l e^{η_il − m_i} over every level but the largest, whose term is 1
    for (let l = 0; l < levels; l++) {
      const shifted = eta[l] - max;
      eta[l] = shifted;
      const e = Math.exp(shifted);
      p[l] = e;
      if (l !== top) rest += e;
    }
    const inv = 1 / (1 + rest);
    for (let l = 0; l < levels; l++) p[l] *= inv;
    return Math.log1p(rest);
  }

  /** The WebAssembly loops, or null when this model runs the TypeScript ones. */
  #simd(): LogitSimd | null {
    if (!this.#useSimd) return null;
    this.#simdLoops ??= new LogitSimd(this.design, this.#code, this.#levels);
    return this.#simdLoops;
  }

  /** Each group's softmax at `coefficients`, from its first record (bit for bit the record's). */
  #fillGroups(groups: RowGroups, coefficients: Float64Array): void {
    const levels = this.#levels;
    const { first } = groups;
    for (let g = 0; g < first.length; g++) {
      this.#groupLse[g] = this.#softmax(coefficients, first[g]);
      this.#groupEta.set(this.#eta, g * levels);
      this.#groupP.set(this.#p, g * levels);
    }
  }

  /** Σ_i clamp(α_i·ℓ_i, ±C) plus the prior, with the gradient of the module doc. */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    const n = this.n;
    const k = this.k;
    const levels = this.#levels;
    const censor = this.densityArguments(u, grad, weighting);
    const alpha = weighting.alpha;
    const x = this.#x;
    const codes = this.#code;
    const eta = this.#eta;
    const p = this.#p;
    let total = this.logPrior(u, grad);
    const simd = this.#simd();
    if (simd !== null) return total + simd.logDensity(u, grad, weighting);
    const groups = this.#groups;
    if (groups !== null) this.#fillGroups(groups, u);
    // Record i's η − m and p: eta and p from #softmax, or its group's at `base`.
    const etas = groups === null ? eta : this.#groupEta;
    const ps = groups === null ? p : this.#groupP;
    for (let i = 0; i < n; i++) {
      const a = alpha === null ? 1 : alpha[i];
      if (a === 0) continue;
      const code = codes[i];
      if (code < 0) {
        total += clampTerm(-Infinity, censor); // ℓ_i = −∞
        continue;
      }
      const base = groups === null ? 0 : groups.of[i] * levels;
      const lse = groups === null ? this.#softmax(u, i) : this.#groupLse[groups.of[i]];
      const c = a * (etas[base + code] - lse);
      total += clampTerm(c, censor);
      if (grad !== null && unclamped(c, censor)) {
        for (let l = 1, at = 0; l < levels; l++, at += k) {
          const g = a * ((code === l ? 1 : 0) - ps[base + l]);
          grad[at] += g;
          addCovariates(grad, at, g, x, i, k);
        }
      }
    }
    return total;
  }

  /** ℓ_i = η_{i,y_i} − log Σ_l e^{η_il} (−∞ for an outcome that is not a level's code). */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    this.checkRecordOutput(theta, out);
    const simd = this.#simd();
    if (simd !== null) return simd.logLik(theta, out);
    const codes = this.#code;
    const eta = this.#eta;
    const groups = this.#groups;
    if (groups !== null) this.#fillGroups(groups, theta);
    for (let i = 0; i < this.n; i++) {
      const code = codes[i];
      if (code < 0) {
        out[i] = -Infinity;
        continue;
      }
      if (groups !== null) {
        const g = groups.of[i];
        out[i] = this.#groupEta[g * this.#levels + code] - this.#groupLse[g];
        continue;
      }
      const lse = this.#softmax(theta, i);
      out[i] = eta[code] - lse;
    }
    return out;
  }

  /** y*_i = l with probability p_il (by inversion of the cumulative probabilities). */
  protected drawRecord(theta: Float64Array, rng: Rng, i: number): number {
    const p = this.#p;
    const last = this.#levels - 1;
    this.#softmax(theta, i);
    let target = rng.uniform();
    let l = 0;
    while (l < last && target >= p[l]) target -= p[l++];
    return l;
  }
}

/**
 * The categorical model's registry entry: categorical outcomes; the `categorical` Lipschitz and
 * GPU HMC kernels on the level code, one linear predictor per level but the reference; a subset of
 * a design's records is bound ungrouped.
 */
export const CATEGORICAL = describeModel(
  "categorical",
  "categorical",
  (design) => new CategoricalModel(design),
  {
    gpu: hmcKernels("categorical", [(y) => y, () => 0], null, true),
    // A subset runs ungrouped, in the loop its parent runs (grouped rows: the TypeScript loop).
    subset: (parent) => {
      const simd = rowGroups(parent.x, parent.n, parent.k, null) === null;
      return (design) => new CategoricalModel(design, { groupRows: false, simd });
    },
  },
);
