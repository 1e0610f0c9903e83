/**
 * Several outcomes per record as one model (SPEC §10; issue 15): the record density is the
 * chain p(y₁ | x)·p(y₂ | x, y₁)···p(y_J | x, y₁…y_{J−1}) in the order given (a visit order, as in
 * synthpop), each conditional one of the single-outcome models with the earlier outcomes among
 * its covariates (a categorical one as treatment dummies, as any covariate).
 *
 * One α_i multiplies the record's whole log density, ℓ_i(θ) = Σ_j ℓ_ij(θ_j), θ = (θ₁, …, θ_J):
 *
 *     log ξ^α(θ | data) = Σ_i α_i Σ_j ℓ_ij(θ_j) + Σ_j log ξ_j(θ_j) + const
 *                      = Σ_j [Σ_i α_i ℓ_ij(θ_j) + log ξ_j(θ_j)] + const,
 *
 * so with independent priors the pseudo posterior is the product of the J conditionals' α-weighted
 * pseudo posteriors, and each can be fitted alone (`joint_fit.ts`); draw s of the joint posterior
 * pairs the s-th draws of the J fits. The mechanism's guarantee is over neighbouring databases
 * that differ in one whole record (all its outcomes), so its Lipschitz bound is taken over the
 * record's joint log density, Δ = max_{i,s} |α_i Σ_j ℓ_ij(θ_{j,s})| — what {@linkcode
 * JointModel.logLik} gives the Lipschitz pass — and ε = 2Δm as for one outcome. With J = 1 the
 * model is its one conditional (the same ℓ_i, density and draws).
 *
 * Censoring clamps the joint record, c_i = clamp(α_i ℓ_i, ±C), which does not factorise: a
 * censored fit samples θ as a whole with {@linkcode JointModel.logDensity}.
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import type { Design, Model, Weighting } from "./model.ts";
import { createModel, type ModelName } from "./registry.ts";

/** One conditional of a {@linkcode JointModel}. */
export interface JointComponent {
  /** The outcome's column name. */
  readonly outcome: string;
  /**
   * The conditional model (a registry model: `createModel` re-binds it to the synthetic earlier
   * outcomes), bound to the confidential design: x, then the earlier outcomes.
   */
  readonly model: Model;
  /**
   * How this outcome enters later conditionals' covariates: null, as its value (numeric, or a
   * 0/1 binary); else the data column's levels, as treatment dummies 1[y = levels[j]], j ≥ 1.
   */
  readonly dummyLevels: readonly string[] | null;
}

/** Whether `model` is a {@linkcode JointModel}. */
export function isJointModel(model: Model): model is JointModel {
  return model instanceof JointModel;
}

/** The J conditionals of several outcomes as one model over θ = (θ₁, …, θ_J). */
export class JointModel implements Model {
  readonly name = "joint";
  readonly design: Design;
  readonly dim: number;
  readonly paramNames: readonly string[];
  readonly components: readonly JointComponent[];
  /** θ_j is θ[offsets[j], offsets[j + 1]). */
  readonly offsets: readonly number[];
  readonly #n: number;
  readonly #logLik: Float64Array;
  readonly #part: Float64Array;
  readonly #beta: Float64Array;
  /** Columns of component j's X taken by the earlier outcomes: start and width of each. */
  readonly #outcomeColumns: readonly (readonly { start: number; width: number }[])[];

  /**
   * @param components The conditionals in visit order (at least one); every design has the same
   * n, and component j's X ends with the codings of outcomes 0…j−1, in that order.
   */
  constructor(components: readonly JointComponent[]) {
    if (components.length === 0) throw new RangeError("Invalid components: need at least one");
    const n = components[0].model.design.n;
    const offsets = [0];
    const widths = components.map((c) => c.dummyLevels === null ? 1 : c.dummyLevels.length - 1);
    this.#outcomeColumns = components.map((c, j) => {
      if (c.model.design.n !== n) {
        throw new RangeError(
          `Invalid components: every design needs n=${n}: ${c.outcome} has ${c.model.design.n}`,
        );
      }
      const width = widths.slice(0, j).reduce((s, w) => s + w, 0);
      let start = c.model.design.k - width;
      return widths.slice(0, j).map((w) => {
        const columns = { start, width: w };
        start += w;
        return columns;
      });
    });
    for (const c of components) offsets.push(offsets[offsets.length - 1] + c.model.dim);
    this.components = components;
    this.offsets = offsets;
    this.dim = offsets[offsets.length - 1];
    this.paramNames = components.flatMap((c) =>
      c.model.paramNames.map((name) => `${c.outcome}:${name}`)
    );
    this.design = components[0].model.design;
    this.#n = n;
    this.#logLik = new Float64Array(n);
    this.#part = new Float64Array(n);
    this.#beta = new Float64Array(n);
  }

  #block(theta: Float64Array, j: number): Float64Array {
    return theta.subarray(this.offsets[j], this.offsets[j + 1]);
  }

  constrain(u: Float64Array, out = new Float64Array(this.dim)): Float64Array {
    this.components.forEach((c, j) => c.model.constrain(this.#block(u, j), this.#block(out, j)));
    return out;
  }

  unconstrain(theta: Float64Array, out = new Float64Array(this.dim)): Float64Array {
    this.components.forEach((c, j) =>
      c.model.unconstrain(this.#block(theta, j), this.#block(out, j))
    );
    return out;
  }

  initialPoint(): Float64Array {
    const u = new Float64Array(this.dim);
    this.components.forEach((c, j) => u.set(c.model.initialPoint(), this.offsets[j]));
    return u;
  }

  /** ℓ_i(θ) = Σ_j ℓ_ij(θ_j): the record's joint log density. */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    out.fill(0);
    const part = this.#part;
    this.components.forEach((c, j) => {
      c.model.logLik(this.#block(theta, j), part);
      for (let i = 0; i < this.#n; i++) out[i] += part[i];
    });
    return out;
  }

  /**
   * Σ_j of the conditionals' log targets under the same α. With censoring the joint record is
   * clamped: records with |α_i ℓ_i| ≥ C enter the conditionals with weight 0 (their gradient is
   * zero) and add ±C to the value.
   */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    const censor = weighting.censor;
    let alpha = weighting.alpha;
    let clamped = 0;
    if (censor !== undefined) {
      const theta = this.constrain(u);
      const logLik = this.logLik(theta, this.#logLik);
      const beta = this.#beta;
      for (let i = 0; i < this.#n; i++) {
        const a = alpha === null ? 1 : alpha[i];
        const c = a * logLik[i];
        if (a === 0) {
          beta[i] = 0;
        } else if (c >= censor || c <= -censor) {
          beta[i] = 0;
          clamped += c >= censor ? censor : -censor;
        } else if (Number.isNaN(c)) {
          return NaN;
        } else {
          beta[i] = a;
        }
      }
      alpha = beta;
    }
    // The clamp's α changes with u: censor: Infinity (which clamps nothing) tells the
    // conditionals that it is not a fixed weighting whose sums they may keep (`Weighting`).
    const inner: Weighting = censor === undefined ? { alpha } : { alpha, censor: Infinity };
    let total = clamped;
    for (let j = 0; j < this.components.length; j++) {
      total += this.components[j].model.logDensity(
        this.#block(u, j),
        grad === null ? null : this.#block(grad, j),
        inner,
      );
    }
    return total;
  }

  /** A joint model draws all its outcomes together: {@linkcode JointModel.simulateJoint}. */
  simulate(): Float64Array {
    throw new TypeError("Invalid call: a joint model simulates with simulateJoint");
  }

  /**
   * Draws the J synthetic outcomes in visit order at θ (SPEC §10): y*_1 ~ p(y₁ | x, θ₁), then
   * each y*_j ~ p(y_j | x, y*_1…y*_{j−1}, θ_j), re-binding conditional j to a design whose
   * outcome columns hold the synthetic values, coded as in the fit. One `rng` stream, in order.
   *
   * @param theta Constrained θ (length dim).
   * @param rng The dataset's stream.
   * @returns y*_j per outcome (codes for a binary or categorical outcome).
   */
  simulateJoint(theta: Float64Array, rng: Rng): Float64Array[] {
    const drawn: Float64Array[] = [];
    this.components.forEach((c, j) => {
      let model = c.model;
      if (j > 0) {
        const { x, k } = model.design;
        const synthetic = x.slice();
        this.#outcomeColumns[j].forEach(({ start }, l) =>
          this.#code(l, drawn[l], synthetic, k, start)
        );
        model = createModel(c.model.name as ModelName, { ...model.design, x: synthetic });
      }
      drawn.push(model.simulate(this.#block(theta, j), rng, new Float64Array(this.#n)));
    });
    return drawn;
  }

  /** Writes outcome l's values as covariate columns from `start` of the n×k matrix `x`. */
  #code(l: number, values: Float64Array, x: Float64Array, k: number, start: number): void {
    const { dummyLevels, model } = this.components[l];
    const levels = model.design.outcomeLevels;
    if (dummyLevels === null) {
      // A numeric column enters as its value: a code of a numeric binary or categorical outcome
      // stands for its level, the number.
      const value = levels === undefined ? null : levels.map(Number);
      for (let i = 0; i < this.#n; i++) {
        x[i * k + start] = value === null ? values[i] : value[values[i]];
      }
      return;
    }
    // The outcome's codes index its design's levels; the dummies follow the data column's.
    if (levels === undefined) throw new TypeError("Invalid component: dummies need levels");
    const position = levels.map((level) => dummyLevels.indexOf(level));
    for (let i = 0; i < this.#n; i++) {
      const p = position[values[i]];
      for (let d = 1; d < dummyLevels.length; d++) x[i * k + start + d - 1] = p === d ? 1 : 0;
    }
  }
}
