/**
 * Negative binomial regression (SPEC §5), Stan's neg_binomial_2_log(y | η, φ) with mean e^η and
 * variance e^η + e^{2η}/φ, and the priors of the vector-weighted paper's Stan script (Supp 2):
 * the coefficient prior of `glm_prior.ts` and 1/φ ~ half-Cauchy(0, 5), sampled on u = log(1/φ).
 *
 * In log space, with d = η − log φ and L = log(1 + e^d) = log((e^η + φ)/φ):
 *
 *     ℓ = log Γ(y+φ) − log Γ(φ) − log Γ(y+1) − (φ + y)·L + y·d,
 *     ∂ℓ/∂η = y − (y + φ)·s,            s = logit⁻¹(d) = e^η/(e^η + φ),
 *     ∂ℓ/∂u = −φ·∂ℓ/∂φ = −φ·[ψ(y+φ) − ψ(φ)] + φ·(L − s) + y·(1 − s).
 *
 * The terms that depend on y and φ only (log Γ(y+φ) − log Γ(φ) − log Γ(y+1) and
 * φ·[ψ(y+φ) − ψ(φ)]) are computed once per distinct outcome value per φ.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { sampleNegBinomial } from "../random/distributions.ts";
import {
  addCovariates,
  clampTerm,
  COUNT_RECORD,
  GlmModel,
  linearPredictor,
  meanVariance,
  singleBlock,
  unclamped,
} from "./_glm.ts";
import { RECIPROCAL_PHI_PRIOR } from "./glm_prior.ts";
import { describeModel, type Design, hmcKernels, type Weighting } from "./model.ts";
import {
  digammaDiffs,
  lgamma,
  logPochhammers,
  logPochhammersAndDigammaDiffs,
} from "../stats/special.ts";
import { NegBinSimd } from "./negbin_simd.ts";

/**
 * Above this d, e^d is within a rounding of overflow's reach (e^710 = ∞) and log(1 + e^d) = d to
 * double precision (e^{−d} < 10⁻³⁰⁰), so the record loops take L = d and s = 1.
 */
const MAX_EXP_ARGUMENT = 700;

/**
 * log(1 + e) given e = e^d ≥ 0 and q = 1 + e: log q when e ≥ 1/8 (then L ≥ 0.118, so the rounding
 * of q costs at most 1e-15 relative, also in L − s), else log1p(e). Math.log costs half of
 * Math.log1p in V8, and most count records (μ ≥ φ/8) take that branch.
 */
function logOnePlusExp(e: number, q: number): number {
  return e >= 0.125 ? Math.log(q) : Math.log1p(e);
}

/**
 * The negative binomial regression model; θ = (β, σ_β, φ), u = (β, log σ_β, log(1/φ)).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NegBinModel } from "./negbin.ts";
 * const m = new NegBinModel({
 *   n: 1, k: 1, y: new Float64Array([0]), x: new Float64Array([1]), coefficientNames: ["intercept"],
 * });
 * // P(y = 0) = (φ/(μ+φ))^φ; at μ = 1, φ = 2: (2/3)².
 * const l = m.logLik(new Float64Array([0, 1, 2]), new Float64Array(1));
 * assert.ok(Math.abs(l[0] - 2 * Math.log(2 / 3)) < 1e-15);
 * ```
 */
export class NegBinModel extends GlmModel {
  readonly #y: Float64Array;
  readonly #x: Float64Array;
  /** Index of each record's outcome in the distinct values. */
  readonly #ids: Int32Array;
  /** Distinct outcome values. */
  readonly #values: Float64Array;
  /** log Γ(v + 1) per distinct value v. */
  readonly #lgv1: Float64Array;
  /** log Γ(v+φ) − log Γ(φ) − log Γ(v+1) per distinct value, valid for φ = #constPhi. */
  readonly #const: Float64Array;
  #constPhi = NaN;
  /** φ·[ψ(v+φ) − ψ(φ)] per distinct value, valid for φ = #psiPhi. */
  readonly #psi: Float64Array;
  #psiPhi = NaN;

  /** Whether the record loops run in WebAssembly SIMD (`negbin_simd.ts`). */
  readonly #useSimd: boolean;
  /** The data's copy in WebAssembly memory, made on first use. */
  #simdLoops: NegBinSimd | null = null;

  /**
   * Binds the model to a dataset, indexing the distinct outcome values.
   * @param design outcome (counts) and covariates.
   * @param options `simd: false` keeps the TypeScript loops (the reference the WebAssembly
   *   loops are tested against); by default the WebAssembly loops run wherever SIMD is available.
   */
  constructor(design: Design, options: { readonly simd?: boolean } = {}) {
    super(
      "negbin",
      design,
      { name: "phi", sign: -1, prior: RECIPROCAL_PHI_PRIOR },
      singleBlock("log"),
    );
    this.#useSimd = (options.simd ?? true) && NegBinSimd.available;
    this.#y = design.y;
    this.#x = design.x;
    const index = new Map<number, number>();
    const values: number[] = [];
    this.#ids = new Int32Array(design.n);
    for (let i = 0; i < design.n; i++) {
      const v = design.y[i];
      let t = index.get(v);
      if (t === undefined) {
        t = values.length;
        index.set(v, t);
        values.push(v);
      }
      this.#ids[i] = t;
    }
    this.#values = Float64Array.from(values);
    this.#lgv1 = this.#values.map((v) => lgamma(v + 1));
    this.#const = new Float64Array(values.length);
    this.#psi = new Float64Array(values.length);
  }

  /** β_1 = log(mean), σ_β = 1, φ = mean²/(variance − mean) (the moment estimate; 1e3 if none). */
  initialPoint(): Float64Array {
    const { mean, variance } = meanVariance(this.#y, (v) => v >= 0 && Number.isFinite(v));
    const phi = variance > mean ? (mean * mean) / (variance - mean) : 1e3;
    return this.startAt(Math.log(mean), phi);
  }

  /** The WebAssembly loops, or null when this model runs the TypeScript ones. */
  #simd(): NegBinSimd | null {
    if (!this.#useSimd) return null;
    this.#simdLoops ??= new NegBinSimd(this.design, this.#ids, this.#values.length);
    return this.#simdLoops;
  }

  /** Fills the per-distinct-outcome constants for φ (and the digamma terms when `withPsi`). */
  #tables(phi: number, withPsi: boolean): void {
    const values = this.#values;
    if (withPsi && phi !== this.#constPhi && phi !== this.#psiPhi) {
      // Both stale (every NUTS step): one pass that shares each count's logarithm.
      const c = this.#const;
      const p = this.#psi;
      const lgv1 = this.#lgv1;
      logPochhammersAndDigammaDiffs(phi, values, c, p);
      for (let t = 0; t < values.length; t++) {
        c[t] -= lgv1[t];
        p[t] *= phi;
      }
      this.#constPhi = phi;
      this.#psiPhi = phi;
      return;
    }
    if (phi !== this.#constPhi) {
      const c = this.#const;
      const lgv1 = this.#lgv1;
      logPochhammers(phi, values, c);
      for (let t = 0; t < values.length; t++) c[t] -= lgv1[t];
      this.#constPhi = phi;
    }
    if (withPsi && phi !== this.#psiPhi) {
      const p = this.#psi;
      digammaDiffs(phi, values, p);
      for (let t = 0; t < values.length; t++) p[t] *= phi;
      this.#psiPhi = phi;
    }
  }

  /** Σ_i clamp(α_i·ℓ_i, ±C) plus the priors, with the gradient of the module doc. */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    const n = this.n;
    const k = this.k;
    const censor = this.densityArguments(u, grad, weighting);
    const alpha = weighting.alpha;
    const x = this.#x;
    const y = this.#y;
    const ids = this.#ids;
    let total = this.logPrior(u, grad);
    const logPhi = -u[2 * k];
    const phi = Math.exp(logPhi);
    this.#tables(phi, grad !== null);
    const cst = this.#const;
    const psi = this.#psi;
    const simd = this.#simd();
    if (simd !== null) return total + simd.logDensity(u, grad, weighting, cst, psi);
    let g0 = 0;
    let gPhi = 0;
    let lastEta = NaN;
    let d = NaN;
    let logOnePlus = NaN;
    let s = NaN;
    let oneMinusS = NaN;
    for (let i = 0; i < n; i++) {
      const a = alpha === null ? 1 : alpha[i];
      if (a === 0) continue;
      const eta = linearPredictor(x, k, u, i, 0);
      if (eta !== lastEta) {
        lastEta = eta;
        d = eta - logPhi;
        if (d < MAX_EXP_ARGUMENT) {
          // One exponential and one logarithm: q = 1 + e^d, L = log q, s = e^d/q, 1 − s = 1/q.
          const e = Math.exp(d);
          const q = 1 + e;
          logOnePlus = logOnePlusExp(e, q);
          oneMinusS = 1 / q;
          s = e * oneMinusS;
        } else {
          logOnePlus = d;
          s = 1;
          oneMinusS = Math.exp(-d);
        }
      }
      const yi = y[i];
      const t = ids[i];
      const c = a * (cst[t] - (phi + yi) * logOnePlus + yi * d);
      total += clampTerm(c, censor);
      if (grad !== null && unclamped(c, censor)) {
        const g = a * (yi - (yi + phi) * s);
        g0 += g;
        addCovariates(grad, 0, g, x, i, k);
        gPhi += a * (phi * (logOnePlus - s) + yi * oneMinusS - psi[t]);
      }
    }
    if (grad !== null) {
      grad[0] += g0;
      grad[2 * k] += gPhi;
    }
    return total;
  }

  /** ℓ_i = log Γ(y+φ) − log Γ(φ) − log Γ(y+1) − (φ + y)·log(1 + e^{η−log φ}) + y·(η − log φ). */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    this.checkRecordOutput(theta, out);
    const n = this.n;
    const k = this.k;
    const x = this.#x;
    const y = this.#y;
    const ids = this.#ids;
    const phi = theta[2 * k];
    const logPhi = Math.log(phi);
    this.#tables(phi, false);
    const cst = this.#const;
    const simd = this.#simd();
    if (simd !== null) return simd.logLik(theta, out, cst);
    let lastEta = NaN;
    let d = NaN;
    let logOnePlus = NaN;
    for (let i = 0; i < n; i++) {
      const eta = linearPredictor(x, k, theta, i, 0);
      if (eta !== lastEta) {
        lastEta = eta;
        d = eta - logPhi;
        if (d < MAX_EXP_ARGUMENT) {
          const e = Math.exp(d);
          logOnePlus = logOnePlusExp(e, 1 + e);
        } else {
          logOnePlus = d;
        }
      }
      const yi = y[i];
      out[i] = cst[ids[i]] - (phi + yi) * logOnePlus + yi * d;
    }
    return out;
  }

  /** y*_i ~ NB2(mean e^{η_i}, dispersion φ). */
  protected drawRecord(theta: Float64Array, rng: Rng, i: number): number {
    const eta = linearPredictor(this.#x, this.k, theta, i, 0);
    return sampleNegBinomial(rng, Math.exp(eta), theta[2 * this.k]);
  }
}

/** The negative binomial model's registry entry: counts, the `negbin` GPU kernels. */
export const NEGBIN = describeModel("negbin", "count", (design) => new NegBinModel(design), {
  gpu: hmcKernels("negbin", COUNT_RECORD, RECIPROCAL_PHI_PRIOR),
});
