/**
 * The blocked Gibbs sampler of the latent class model's complete-data pseudo posterior (SPEC §13;
 * Ishwaran & James 2001's truncated stick-breaking, Si & Reiter 2013's updates, each count
 * weighted by α_i):
 *
 *     ξ^α(θ, z | x) ∝ ξ(θ) Π_i [π_{z_i} f_{z_i}(x_i)]^{α_i}
 *
 * One sweep, every conditional exact:
 *
 *     φ_kj | z ~ Dirichlet(a + Σ_{i: z_i = k} α_i·e_{x_ij})
 *     V_k | z, γ ~ Beta(1 + W_k, γ + Σ_{l>k} W_l),  W_k = Σ_{i: z_i = k} α_i,  k < K;  V_K = 1
 *     γ | V ~ Gamma(a_γ + K − 1, b_γ − Σ_{k<K} log(1 − V_k))
 *     z_i | θ: P(z_i = k) ∝ (π_k f_k(x_i))^{α_i}
 *
 * (π_k = V_k Π_{l<k}(1 − V_l).) Censored (SPEC §3, `censor` C): the θ-marginal target is
 * ξ(θ) Π_i e^{max(u_i(θ), −C)}, the complete-data target times H(θ) = Π_i e^{max(u_i, −C) − u_i}
 * (a function of θ alone), so z | θ is unchanged and (φ, V) | z, γ is proposed from the conjugate
 * conditionals above and accepted with probability min(1, H(θ′)/H(θ)) (an independence
 * Metropolis–Hastings step within Gibbs, exact; it mixes slowly where many records are clamped,
 * which the diagnostics then flag). Records with equal codes and equal α share z's class
 * probabilities (one log-sum-exp per (pattern, α) group per sweep); z itself is drawn per record.
 * The same pass gives Σ_i u_i(θ) at the sweep's θ for free.
 *
 * Optionally (`splitMerge` moves per sweep, before θ | z) sequentially allocated split–merge
 * moves (Dahl 2003) on z given γ with θ integrated out: the blocked sampler alone cannot open a
 * class, since an empty class's φ is a prior draw that fits no record.
 *
 * Diagnostics are label-invariant (labels switch between chains, SPEC §13): Σ_i u_i(θ) and, per
 * column, the model's probability of the column's most common level in the data, Σ_k π_k
 * φ_kj[mode_j]. The fit is flagged when any has R̂ > 1.01 or bulk ESS < 400 (`fit.ts`'s
 * thresholds); a flagged fit releases nothing.
 *
 * @module
 */
import { type StopFlag, throwIfStopRequested } from "../data/worker_stop.ts";
import { checkInteger } from "../random/arguments.ts";
import {
  DEFAULT_LATENT_CLASS_PRIOR,
  type LatentClassModel,
  type LatentClassPrior,
  type TermGroups,
} from "../models/latent_class.ts";
import { sampleGamma } from "../random/distributions.ts";
import { lgamma } from "../stats/special.ts";
import { Rng } from "../random/rng.ts";
import type { Fit } from "./fit.ts";
import { quantityFit } from "./quantity_fit.ts";

/** Options of {@linkcode sampleLatentClass}. */
export interface LatentClassGibbsOptions {
  readonly seed: number;
  readonly chains: number;
  /** Sweeps discarded per chain. */
  readonly warmup: number;
  /** Draws kept per chain (S = chains·draws). */
  readonly draws: number;
  /** Sweeps per kept draw (default 1). */
  readonly thin?: number;
  /** The prior (default a = 1, γ ~ Gamma(0.25, 0.25)). */
  readonly prior?: LatentClassPrior;
  /** Hold γ at this value instead of sampling it (the exact-posterior tests). */
  readonly concentration?: number;
  /**
   * The censoring level C of SPEC §3: the target's record terms are max(u_i, −C) (u_i ≤ 0, so
   * the upper clamp never binds). (φ, V) are then proposed from their conjugate conditionals and
   * accepted with probability min(1, H(θ′)/H(θ)), H(θ) = Π_i e^{max(u_i, −C) − u_i}.
   */
  readonly censor?: number;
  /**
   * Split–merge moves per sweep (default 0; none under censoring, whose target is not the
   * collapsed one they leave invariant).
   */
  readonly splitMerge?: number;
  /**
   * Progress: sweeps done of the fit's total, chains·(warmup + draws·thin), about a hundred times
   * per fit and once at the end (public settings only).
   */
  readonly onSweep?: (done: number, total: number) => void;
  /** Read once a sweep: when set (the job was stopped), the fit throws (`worker_stop.ts`). */
  readonly stop?: StopFlag;
}

/** The name of the Σ_i u_i diagnostic in a fit's summary. */
export const TERM_SUM = "sum_u";

/**
 * Samples the latent class model's α-weighted complete-data pseudo posterior.
 *
 * @param model The model bound to the encoded file.
 * @param alpha α_i ∈ [0, 1] per record (null: all 1).
 * @param options Seed, chains, warmup, draws, thinning and prior.
 * @returns A `Fit` of θ (S × dim, chains stacked); its summary, R̂ and ESS are those of the
 *   label-invariant quantities ({@linkcode TERM_SUM} and `margin:<column>`); `gradientEvaluations`
 *   counts sweeps (Gibbs has no gradient).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LatentClassModel } from "../models/latent_class.ts";
 * import { sampleLatentClass } from "./latent_class_gibbs.ts";
 * const codes = Int32Array.of(0, 1, 1, 0, 1, 1);
 * const model = new LatentClassModel({ n: 6, columns: [{ name: "a", levels: 2, codes }] }, 2);
 * const fit = sampleLatentClass(model, null, { seed: 1, chains: 2, warmup: 50, draws: 100 });
 * assert.equal(fit.draws.length, 200 * model.dim);
 * assert.ok(fit.summary["margin:a"].mean > 0.4);
 * ```
 */
export function sampleLatentClass(
  model: LatentClassModel,
  alpha: Float64Array | null,
  options: LatentClassGibbsOptions,
): Fit {
  const { seed, chains, warmup, draws } = options;
  const thin = options.thin ?? 1;
  checkInteger("chains", chains, 1);
  checkInteger("warmup", warmup, 0);
  checkInteger("draws", draws, 2);
  checkInteger("thin", thin, 1);
  const prior = options.prior ?? DEFAULT_LATENT_CLASS_PRIOR;
  const { dim } = model;
  const modes = columnModes(model);
  const quantityNames = [TERM_SUM, ...model.names.map((name) => `margin:${name}`)];
  const Q = quantityNames.length;
  const S = chains * draws;
  const out = new Float64Array(S * dim);
  const quantities = Array.from({ length: Q }, () => new Float64Array(S));
  const lastPositions = new Float64Array(chains * dim);
  const root = new Rng(seed);
  const groups = model.termGroups(alpha);
  const totalSweeps = chains * (warmup + draws * thin);
  const every = Math.max(1, Math.floor(totalSweeps / 100));
  let sweeps = 0;
  const { stop } = options;
  const tick = () => {
    throwIfStopRequested(stop);
    sweeps++;
    if (options.onSweep !== undefined && (sweeps % every === 0 || sweeps === totalSweeps)) {
      options.onSweep(sweeps, totalSweeps);
    }
  };
  const groupSize = new Float64Array(groups.alpha.length);
  for (let i = 0; i < model.n; i++) groupSize[groups.of[i]]++;
  for (let c = 0; c < chains; c++) {
    const chain = new GibbsChain(
      model,
      alpha,
      groups,
      groupSize,
      prior,
      options.concentration,
      options.censor,
      options.splitMerge ?? 0,
      root.split(c),
    );
    for (let t = 0; t < warmup; t++) {
      chain.sweep();
      tick();
    }
    for (let d = 0; d < draws; d++) {
      let termSum = 0;
      for (let t = 0; t < thin; t++) {
        termSum = chain.sweep();
        tick();
      }
      const s = c * draws + d;
      out.set(chain.theta, s * dim);
      quantities[0][s] = termSum;
      for (let j = 0; j < modes.length; j++) {
        let margin = 0;
        for (let k = 0; k < model.K; k++) {
          margin += chain.theta[k] * chain.theta[model.phiIndex(k, j, modes[j])];
        }
        quantities[1 + j][s] = margin;
      }
    }
    lastPositions.set(chain.theta, c * dim);
  }
  return quantityFit({
    draws: out,
    chains,
    drawsPerChain: draws,
    dim,
    paramNames: model.paramNames(),
    quantityNames,
    quantities,
    gradientEvaluations: chains * (warmup + draws * thin),
    warmup,
    lastPositions,
  });
}

/** Each column's most common level in the data (the first on ties). */
function columnModes(model: LatentClassModel): Int32Array {
  const J = model.levels.length;
  const counts = new Float64Array(model.width);
  for (let i = 0; i < model.n; i++) {
    const cells = model.patternOf[i] * J;
    for (let j = 0; j < J; j++) counts[model.patternCells[cells + j]]++;
  }
  return Int32Array.from({ length: J }, (_, j) => {
    let best = 0;
    for (let l = 1; l < model.levels[j]; l++) {
      if (counts[model.offsets[j] + l] > counts[model.offsets[j] + best]) best = l;
    }
    return best;
  });
}

/** What a rejected censored proposal restores. */
interface SavedState {
  readonly theta: Float64Array;
  readonly cumulative: Float64Array;
  readonly termOf: Float64Array;
  logH: number;
  sumLog1mV: number;
}

const EMPTY_STATE: SavedState = {
  theta: new Float64Array(0),
  cumulative: new Float64Array(0),
  termOf: new Float64Array(0),
  logH: 0,
  sumLog1mV: 0,
};

/** One chain's state (θ, z, γ) and its scratch, allocated once. */
class GibbsChain {
  readonly theta: Float64Array;
  #z: Int32Array;
  #gamma: number;
  #weights: Float64Array;
  #counts: Float64Array;
  #logs: Float64Array;
  #cumulative: Float64Array;
  #termOf: Float64Array;
  #sticks: Float64Array;
  #log1mSticks: Float64Array;
  #groupCounts = [new Float64Array(0), new Float64Array(0)];
  #members = new Int32Array(0);
  #side = new Uint8Array(0);
  /** The state before a censored proposal, restored when it is rejected. */
  #saved: SavedState;

  constructor(
    readonly model: LatentClassModel,
    readonly alpha: Float64Array | null,
    readonly groups: TermGroups,
    readonly groupSize: Float64Array,
    readonly prior: LatentClassPrior,
    readonly concentration: number | undefined,
    readonly censor: number | undefined,
    readonly splitMerge: number,
    readonly rng: Rng,
  ) {
    const { K, n, width, patterns } = model;
    this.theta = new Float64Array(model.dim);
    this.#z = Int32Array.from({ length: n }, () => Math.floor(rng.uniform() * K));
    this.#gamma = concentration ?? 1;
    this.#weights = new Float64Array(K);
    this.#counts = new Float64Array(K * width);
    this.#logs = new Float64Array(patterns * K);
    this.#cumulative = new Float64Array(groups.alpha.length * K);
    this.#termOf = new Float64Array(groups.alpha.length);
    this.#sticks = new Float64Array(K);
    this.#log1mSticks = new Float64Array(K);
    this.#groupCounts = [new Float64Array(width), new Float64Array(width)];
    this.#members = new Int32Array(n);
    this.#side = new Uint8Array(n);
    this.#saved = censor === undefined ? EMPTY_STATE : {
      theta: new Float64Array(model.dim),
      cumulative: new Float64Array(this.#cumulative.length),
      termOf: new Float64Array(this.#termOf.length),
      logH: -Infinity, // the first proposal is always accepted
      sumLog1mV: 0,
    };
  }

  /**
   * One sweep: (φ, V) | z, γ (accepted by the censoring correction when there is one), γ | V,
   * then z | θ.
   *
   * @returns Σ_i u_i(θ) at the sweep's θ.
   */
  sweep(): number {
    const censor = this.censor;
    if (censor === undefined) { for (let m = 0; m < this.splitMerge; m++) this.#splitMerge(); }
    if (censor !== undefined) {
      this.#saved.theta.set(this.theta);
      this.#saved.cumulative.set(this.#cumulative);
      this.#saved.termOf.set(this.#termOf);
    }
    let sumLog1mV = this.#proposeTheta();
    this.#groupPass();
    if (censor !== undefined) {
      // log H(θ) = Σ_i (max(u_i, −C) − u_i): the clamped target over the conjugate one.
      let logH = 0;
      for (let g = 0; g < this.#termOf.length; g++) {
        const u = this.#termOf[g];
        if (u < -censor) logH += this.groupSize[g] * (-censor - u);
      }
      if (Math.log(this.rng.uniform()) < logH - this.#saved.logH) {
        this.#saved.logH = logH;
        this.#saved.sumLog1mV = sumLog1mV;
      } else {
        this.theta.set(this.#saved.theta);
        this.#cumulative.set(this.#saved.cumulative);
        this.#termOf.set(this.#saved.termOf);
        sumLog1mV = this.#saved.sumLog1mV;
      }
    }
    const { K } = this.model;
    if (this.concentration === undefined && K > 1) {
      const { gammaShape, gammaRate } = this.prior;
      this.#gamma = sampleGamma(this.rng, gammaShape + K - 1, gammaRate - sumLog1mV);
    }
    this.#drawZ();
    let sum = 0;
    for (let g = 0; g < this.#termOf.length; g++) sum += this.groupSize[g] * this.#termOf[g];
    return sum;
  }

  /**
   * One sequentially allocated split–merge move (Dahl 2003) on z given γ, with θ integrated out:
   * two distinct records i, j; in one class, its members split into i's group (an empty class,
   * chosen uniformly) and j's group, the others allocated in random order by the ratio of the
   * collapsed target; in two classes, i's class merges into j's. Accepted by the ratio of
   * p(z | γ, x) = Π_{k<K} B(1 + W_k, γ + Σ_{l>k} W_l)/B(1, γ) · Π_{k,j} B(a + C_kj)/B(a) (α-weighted
   * counts) and of the proposal probabilities; the θ | z draw that follows completes the step.
   */
  #splitMerge(): void {
    const { model, rng } = this;
    const { n, K } = model;
    if (n < 2) return;
    const z = this.#z;
    const i = Math.floor(rng.uniform() * n);
    let j = Math.floor(rng.uniform() * (n - 1));
    if (j >= i) j++;
    const ci = z[i];
    const cj = z[j];
    const weights = this.#weights.fill(0);
    const occupied = new Uint8Array(K);
    let m = 0;
    for (let r = 0; r < n; r++) {
      weights[z[r]] += this.#alphaOf(r);
      occupied[z[r]] = 1;
      if ((z[r] === ci || z[r] === cj) && r !== i && r !== j) this.#members[m++] = r;
    }
    let empty = 0;
    for (let k = 0; k < K; k++) empty += 1 - occupied[k];
    // Members in random order (Fisher–Yates); the order is an auxiliary draw of both directions.
    const members = this.#members;
    for (let t = m - 1; t > 0; t--) {
      const u = Math.floor(rng.uniform() * (t + 1));
      const swap = members[t];
      members[t] = members[u];
      members[u] = swap;
    }
    const split = ci === cj;
    if (split && empty === 0) return;
    const target = split ? null : this.#side;
    if (!split) { for (let t = 0; t < m; t++) target![t] = z[members[t]] === ci ? 0 : 1; }
    const logQ = this.#allocate(i, j, m, target);
    const [g0, g1] = this.#groupCounts;
    const w0 = this.#groupWeight(0);
    const w1 = this.#groupWeight(1);
    const logSeparate = this.#classScore(g0, null, w0) + this.#classScore(g1, null, w1);
    const logTogether = this.#classScore(g0, g1, w0 + w1);
    const before = this.#stickScore(weights);
    let e = ci;
    if (split) {
      let pick = Math.floor(rng.uniform() * empty);
      for (e = 0; e < K; e++) if (occupied[e] === 0 && pick-- === 0) break;
      weights[e] = w0;
      weights[ci] = w1;
    } else {
      weights[ci] = 0;
      weights[cj] = w0 + w1;
    }
    const after = this.#stickScore(weights);
    const logAccept = split
      ? logSeparate - logTogether + after - before + Math.log(empty) - logQ
      : logTogether - logSeparate + after - before - Math.log(empty + 1) + logQ;
    if (!(Math.log(rng.uniform()) < logAccept)) return;
    if (split) {
      z[i] = e;
      for (let t = 0; t < m; t++) if (this.#side[t] === 0) z[members[t]] = e;
    } else {
      for (let r = 0; r < n; r++) if (z[r] === ci) z[r] = cj;
    }
  }

  /**
   * Allocates the m shuffled members to i's group (0) and j's (1) by the collapsed target's
   * ratio, into `#side`, or with `given` evaluates that allocation; fills the two groups' counts.
   *
   * @returns The log probability of the allocation.
   */
  #allocate(i: number, j: number, m: number, given: Uint8Array | null): number {
    const [g0, g1] = this.#groupCounts;
    g0.fill(0);
    g1.fill(0);
    this.#groupWeights[0] = 0;
    this.#groupWeights[1] = 0;
    this.#add(0, i);
    this.#add(1, j);
    let logQ = 0;
    for (let t = 0; t < m; t++) {
      const r = this.#members[t];
      const d = this.#predictive(0, r) - this.#predictive(1, r);
      // P(group 0) = 1/(1 + e^{−d}), in logs.
      const log0 = -Math.log1p(Math.exp(-d));
      const log1 = -Math.log1p(Math.exp(d));
      const side = given === null ? (Math.log(this.rng.uniform()) < log0 ? 0 : 1) : given[t];
      logQ += side === 0 ? log0 : log1;
      this.#side[t] = side;
      this.#add(side, r);
    }
    return logQ;
  }

  #groupWeights = new Float64Array(2);

  #groupWeight(g: number): number {
    return this.#groupWeights[g];
  }

  #alphaOf(r: number): number {
    return this.alpha === null ? 1 : this.alpha[r];
  }

  /** Adds record r's α-weighted codes to group g. */
  #add(g: number, r: number): void {
    const a = this.#alphaOf(r);
    const { patternOf, patternCells } = this.model;
    const J = this.model.levels.length;
    const counts = this.#groupCounts[g];
    for (let c = 0; c < J; c++) counts[patternCells[patternOf[r] * J + c]] += a;
    this.#groupWeights[g] += a;
  }

  /** log of the collapsed target's ratio for adding record r to group g (Dirichlet part). */
  #predictive(g: number, r: number): number {
    const a = this.#alphaOf(r);
    if (a === 0) return 0;
    const { model, prior } = this;
    const J = model.levels.length;
    const counts = this.#groupCounts[g];
    const w = this.#groupWeights[g];
    let sum = 0;
    for (let c = 0; c < J; c++) {
      const x = prior.dirichlet + counts[model.patternCells[model.patternOf[r] * J + c]];
      const total = model.levels[c] * prior.dirichlet + w;
      // Γ(x + 1)/Γ(x) = x: the unweighted records' ratio without log-gamma.
      sum += a === 1
        ? Math.log(x / total)
        : lgamma(x + a) - lgamma(x) - lgamma(total + a) + lgamma(total);
    }
    return sum;
  }

  /** Σ_j log B(a + C_j)/B(a) of a class with counts `counts` (+ `more`) and weight w. */
  #classScore(counts: Float64Array, more: Float64Array | null, w: number): number {
    const { model, prior } = this;
    const a = prior.dirichlet;
    const logA = lgamma(a);
    let sum = 0;
    for (let c = 0; c < model.width; c++) {
      const x = counts[c] + (more === null ? 0 : more[c]);
      if (x !== 0) sum += lgamma(a + x) - logA;
    }
    for (let c = 0; c < model.levels.length; c++) {
      const total = model.levels[c] * a;
      sum -= lgamma(total + w) - lgamma(total);
    }
    return sum;
  }

  /** Σ_{k<K} log B(1 + W_k, γ + Σ_{l>k} W_l) at the current γ. */
  #stickScore(weights: Float64Array): number {
    const K = this.model.K;
    const gamma = this.#gamma;
    let tail = 0;
    let sum = 0;
    for (let k = K - 2; k >= 0; k--) {
      tail += weights[k + 1];
      const b = gamma + tail;
      sum += lgamma(1 + weights[k]) + lgamma(b) - lgamma(1 + weights[k] + b);
    }
    return sum;
  }

  /** Draws (φ, V) from their conjugate conditionals given z and γ; returns Σ_k log(1 − V_k). */
  #proposeTheta(): number {
    const { model, alpha, rng, theta, prior } = this;
    const { K, width, n, patternOf, patternCells } = model;
    const J = model.levels.length;
    const weights = this.#weights.fill(0);
    const counts = this.#counts.fill(0);
    const z = this.#z;
    for (let i = 0; i < n; i++) {
      const a = alpha === null ? 1 : alpha[i];
      if (a === 0) continue;
      const k = z[i];
      weights[k] += a;
      const cells = patternOf[i] * J;
      const base = k * width;
      for (let j = 0; j < J; j++) counts[base + patternCells[cells + j]] += a;
    }
    for (let k = 0; k < K; k++) {
      for (let j = 0; j < J; j++) {
        const start = k * width + model.offsets[j];
        let total = 0;
        for (let l = 0; l < model.levels[j]; l++) {
          // Gamma(1, 1) is Exp(1): the empty cells' draws without the rejection sampler.
          const shape = prior.dirichlet + counts[start + l];
          const g = shape === 1 ? -Math.log(rng.uniform()) : sampleGamma(rng, shape, 1);
          theta[K + start + l] = g;
          total += g;
        }
        for (let l = 0; l < model.levels[j]; l++) theta[K + start + l] /= total;
      }
    }
    // Sticks from the last class down, so the tail sums Σ_{l>k} W_l accumulate; each V_k =
    // X/(X + Y) on the log scale, so that log(1 − V_k) stays finite when V_k rounds to 1.
    let tail = 0;
    const logV = this.#sticks;
    const log1mV = this.#log1mSticks;
    for (let k = K - 2; k >= 0; k--) {
      tail += weights[k + 1];
      const x = logGammaDraw(rng, 1 + weights[k]);
      const y = logGammaDraw(rng, this.#gamma + tail);
      const m = Math.max(x, y);
      const logSum = m + Math.log(Math.exp(x - m) + Math.exp(y - m));
      logV[k] = x - logSum;
      log1mV[k] = y - logSum;
    }
    let logRemaining = 0;
    let sumLog1mV = 0;
    for (let k = 0; k < K - 1; k++) {
      theta[k] = Math.exp(logV[k] + logRemaining);
      logRemaining += log1mV[k];
      sumLog1mV += log1mV[k];
    }
    theta[K - 1] = Math.exp(logRemaining);
    return sumLog1mV;
  }

  /** At θ, each (pattern, α) group's cumulative class weights (π_k f_k)^α and its term u. */
  #groupPass(): void {
    const { model, groups } = this;
    const { K } = model;
    const logs = model.classLogs(this.theta, this.#logs);
    const cumulative = this.#cumulative;
    const termOf = this.#termOf;
    for (let g = 0; g < termOf.length; g++) {
      const a = groups.alpha[g];
      const row = groups.pattern[g] * K;
      const at = g * K;
      let max = -Infinity;
      for (let k = 0; k < K; k++) if (a * logs[row + k] > max) max = a * logs[row + k];
      let total = 0;
      for (let k = 0; k < K; k++) {
        total += a === 0 ? 1 : Math.exp(a * logs[row + k] - max);
        cumulative[at + k] = total;
      }
      termOf[g] = a === 0 ? 0 : max + Math.log(total / K);
    }
  }

  /** z_i from its group's cumulative weights, one uniform per record. */
  #drawZ(): void {
    const { K, n } = this.model;
    const { of } = this.groups;
    const cumulative = this.#cumulative;
    const z = this.#z;
    for (let i = 0; i < n; i++) {
      const at = of[i] * K;
      const u = this.rng.uniform() * cumulative[at + K - 1];
      let k = 0;
      while (k < K - 1 && cumulative[at + k] <= u) k++;
      z[i] = k;
    }
  }
}

/**
 * log G for G ~ Gamma(shape, 1): for shape < 1 Marsaglia & Tsang's boost on the log scale,
 * log G_{shape+1} + log(U)/shape, finite where G itself underflows to 0 (the same construction as
 * `src/random/distributions.ts`'s private `logStandardGamma`).
 */
function logGammaDraw(rng: Rng, shape: number): number {
  if (shape >= 1) return Math.log(sampleGamma(rng, shape, 1));
  return Math.log(sampleGamma(rng, shape + 1, 1)) + Math.log(rng.uniform()) / shape;
}
