/**
 * The latent class synthesizer of whole files (SPEC §13): a truncated Dirichlet-process mixture
 * of products (Dunson & Xing 2009; Si & Reiter 2013) over an encoded file whose every column is
 * categorical (N/A and numeric bins are levels of their own).
 *
 *     z_i ∈ {1..K},  P(z_i = k) = π_k,   π_k = V_k Π_{l<k} (1 − V_l),  V_k ~ Beta(1, γ), V_K = 1,
 *     x_ij | z_i = k ~ Categorical(φ_kj),  φ_kj ~ Dirichlet(a·1_{L_j}),  γ ~ Gamma(a_γ, b_γ),
 *     f_k(x_i) = Π_j φ_kj[x_ij],   p(x_i | θ) = Σ_k π_k f_k(x_i).
 *
 * θ = (π_1..π_K, φ_1..φ_K) is one flat Float64Array: π first, then class k's φ_kj for every column
 * j in order, level by level (`piIndex`, `phiIndex`); dim = K + K·Σ_j L_j.
 *
 * The pseudo posterior is the complete-data one, sampled by `src/mcmc/latent_class_gibbs.ts`:
 *
 *     ξ^α(θ, z | x) ∝ ξ(θ) Π_i [π_{z_i} f_{z_i}(x_i)]^{α_i},
 *
 * whose θ-marginal is ξ(θ) Π_i Σ_k (π_k f_k(x_i))^{α_i} ∝ ξ(θ) Π_i exp(u_i(θ)) with the
 * per-record term
 *
 *     u_i(θ) = log (1/K) Σ_k (π_k f_k(x_i))^{α_i}      (log-sum-exp; u_i = 0 at α_i = 0).
 *
 * The 1/K is a θ-free constant (it cancels in the normaliser) chosen so that u_i → 0 as α_i → 0;
 * every (π_k f_k)^{α_i} ≤ 1, so u_i ≤ 0 always. At α_i = 1, u_i = log p(x_i | θ) − log K.
 *
 * Privacy guarantee (aDP, SPEC §1 and §13; the project's add/remove neighbours, SPEC §11). The
 * release is a draw θ from the θ-marginal ξ^α(θ | x) = ξ(θ) Π_i e^{u_i(θ)} / Z(x), Z(x) = ∫ ξ Π_i
 * e^{u_i}. Let x′ be x with record j added (weight α_j; every other α_i unchanged). Then
 *
 *     ξ^α(θ | x′) / ξ^α(θ | x) = e^{u_j(θ)} · Z(x) / Z(x′),   Z(x′)/Z(x) = E_{ξ^α(·|x)}[e^{u_j}],
 *
 * so the log ratio is u_j(θ) − log E[e^{u_j}], which lies between −(sup u_j − inf u_j) and
 * sup u_j − inf u_j: the range of u_j over θ bounds the pair's privacy loss, whatever θ-free
 * constant is added to u_j. Writing Δ_j = (sup u_j − inf u_j)/2 = sup |u_j − c_j| with the centre
 * c_j = (sup u_j + inf u_j)/2, each released draw (one synthetic file) is 2Δ_j-DP for that pair,
 * m draws 2Δm by composition, Δ = max_j Δ_j. Removal is the same pair read the other way. As in
 * §1 the supremum and infimum over θ are replaced by the extremes over the S draws of the fit
 * that generates the data (`termMaxima`, `centredTerm`): the guarantee is asymptotic and local to
 * x (aDP). SPEC §1's uncentred bound max_s |u_j(θ_s)| is never smaller (u_j ≤ 0, so it is
 * 2Δ_j + min_s |u_j|): on ma2019 at α = 0.08 it is 6.6 against the centred 1.2, because a
 * 24-column record's |u_j| is large (its level) while its variation over the posterior is small.
 * The 1/K makes u_j → 0 as α → 0, so down-weighting buys privacy. For small
 * α_i, u_i ≈ α_i·(1/K) Σ_k log(π_k f_k(x_i)) — the average over classes, not log p(x_i|θ) — so
 * this term is larger than α_i·|log p| and SW needs a smaller α for the same ε than a marginal
 * pseudo posterior would (SW's refit rounds absorb it).
 *
 * Priors (public settings only, SPEC §12): a = 1 (the uniform Dirichlet of Si & Reiter 2013) on
 * every column rather than 1/L_j: a Dirichlet(1/L) puts most of its mass near the simplex's
 * corners, so empty cells of a class draw φ near 0 and log φ, which enters u_i for every class,
 * very negative — a larger Δ for no utility; γ ~ Gamma(0.25, 0.25) (Si & Reiter 2013). K is a
 * public setting (default 30, as Si & Reiter's truncation).
 *
 * Records with the same codes share every term: the model keeps the distinct patterns once
 * (`patternOf`), and records with equal pattern and equal α share u_i (SPEC §13, Cost).
 *
 * @module
 */
import type { EncodedFile } from "../data/file_encoding.ts";
import { type StopFlag, throwIfStopRequested } from "../data/worker_stop.ts";
import type { Rng } from "../random/rng.ts";

export type { EncodedColumn, EncodedFile } from "../data/file_encoding.ts";

/** The prior of the latent class model (public settings). */
export interface LatentClassPrior {
  /** Dirichlet concentration a of every φ_kj (a·1_{L_j}). */
  readonly dirichlet: number;
  /** Shape a_γ of γ's Gamma prior. */
  readonly gammaShape: number;
  /** Rate b_γ of γ's Gamma prior. */
  readonly gammaRate: number;
}

/** a = 1 (Si & Reiter 2013), γ ~ Gamma(0.25, 0.25). */
export const DEFAULT_LATENT_CLASS_PRIOR: LatentClassPrior = Object.freeze({
  dirichlet: 1,
  gammaShape: 0.25,
  gammaRate: 0.25,
});

/** The default truncation K (Si & Reiter 2013 use 30 on a file of the same width). */
export const DEFAULT_CLASSES = 30;

/**
 * Per-record extremes of |u_i(θ_s)| over draws, each with the first draw attaining it. The
 * release's Δ_i is their half-difference (`centredTerm`).
 */
export interface TermMaxima {
  /** max_s |u_i(θ_s)| (a NaN counts as +∞). */
  readonly perRecord: Float64Array;
  readonly argDraw: Int32Array;
  /** min_s |u_i(θ_s)| (a NaN counts as +∞). */
  readonly minimum: Float64Array;
  readonly argMinDraw: Int32Array;
}

/**
 * Folds the term u of draw s into entry j's running extremes of |u| (a NaN counts as +∞): max[j]
 * and arg[j] when |u| exceeds it, min[j] and argMin[j] when |u| is below it, so that each keeps
 * the first draw attaining it.
 */
export function foldExtremes(
  u: number,
  s: number,
  j: number,
  max: Float64Array,
  arg: Int32Array,
  min: Float64Array,
  argMin: Int32Array,
): void {
  const v = Math.abs(u);
  const bounded = Number.isNaN(v) ? Infinity : v;
  if (bounded > max[j]) {
    max[j] = bounded;
    arg[j] = s;
  }
  if (bounded < min[j]) {
    min[j] = bounded;
    argMin[j] = s;
  }
}

/**
 * The release's record bound Δ_i = (max_s |u_i(θ_s)| − min_s |u_i(θ_s)|)/2: half the range of u_i
 * over the draws (u_i ≤ 0, so the range of |u_i| is that of u_i), which is max_s |u_i(θ_s) − c_i|
 * for the θ-free centre c_i = −(max + min)/2 (see the module doc: the pair's log ratio lies within
 * the range, so ε = 2Δm). An infinite maximum gives Δ_i = ∞.
 *
 * @param extremes `termMaxima`'s per-record extremes.
 * @returns Δ_i per record.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { centredTerm } from "./latent_class.ts";
 * const extremes = {
 *   perRecord: Float64Array.of(3, 0, Infinity),
 *   argDraw: Int32Array.of(0, 0, 1),
 *   minimum: Float64Array.of(1, 0, 2),
 *   argMinDraw: Int32Array.of(1, 0, 0),
 * };
 * assert.deepEqual(Array.from(centredTerm(extremes)), [1, 0, Infinity]);
 * ```
 */
export function centredTerm(extremes: TermMaxima): Float64Array {
  const { perRecord, minimum } = extremes;
  return perRecord.map((max, i) => max === Infinity ? Infinity : (max - minimum[i]) / 2);
}

/**
 * The latent class model bound to one encoded file and a truncation K.
 *
 * @example u_i of one record at K = 2, by hand
 * ```ts
 * import assert from "node:assert/strict";
 * import { LatentClassModel } from "./latent_class.ts";
 * const file = { n: 1, columns: [{ name: "a", levels: 2, codes: Int32Array.of(1) }] };
 * const model = new LatentClassModel(file, 2);
 * const theta = Float64Array.of(0.25, 0.75, 0.5, 0.5, 0.1, 0.9); // π, φ_1, φ_2
 * const want = Math.log((Math.sqrt(0.25 * 0.5) + Math.sqrt(0.75 * 0.9)) / 2);
 * assert.ok(Math.abs(model.recordTerm(theta, 0, 0.5) - want) < 1e-15);
 * ```
 */
export class LatentClassModel {
  /** Number of records n. */
  readonly n: number;
  /** Truncation K. */
  readonly K: number;
  /** Column names. */
  readonly names: readonly string[];
  /** L_j per column. */
  readonly levels: Int32Array;
  /** Start of column j within one class's φ block. */
  readonly offsets: Int32Array;
  /** Σ_j L_j: one class's φ block. */
  readonly width: number;
  /** Length of θ: K + K·width. */
  readonly dim: number;
  /** The distinct record patterns P. */
  readonly patterns: number;
  /** Each record's pattern (0..P−1). */
  readonly patternOf: Int32Array;
  /** Pattern p's cells, P×J: offsets[j] + code (an index within a φ block). */
  readonly patternCells: Int32Array;
  #classLogs: Float64Array;
  #logPhi: Float64Array;
  /** Column blocks: block b holds columns blockStart[b]..blockStart[b+1]−1. */
  #blockStart: Int32Array;
  /** Start of block b's table (Π of its L_j entries) within one class's tables. */
  #blockOffset: Int32Array;
  /** Pattern p's entry in each block's table, P×B (blockOffset + mixed-radix code). */
  #patternBlocks: Int32Array;
  /** log(φ) summed over each block's columns for every level combination, class by class. */
  #blockLogs: Float64Array;

  /**
   * @param file The encoded file (codes must lie in 0..levels−1).
   * @param classes The truncation K ≥ 1.
   */
  constructor(file: EncodedFile, classes: number = DEFAULT_CLASSES) {
    if (!Number.isInteger(classes) || classes < 1) {
      throw new RangeError(`Invalid classes: must be an integer ≥ 1: classes=${classes}`);
    }
    const { n, columns } = file;
    const J = columns.length;
    if (J === 0) throw new RangeError("Invalid file: it has no columns");
    this.n = n;
    this.K = classes;
    this.names = columns.map((c) => c.name);
    this.levels = Int32Array.from(columns, (c) => c.levels);
    this.offsets = new Int32Array(J);
    let width = 0;
    columns.forEach((column, j) => {
      if (column.codes.length !== n || !(column.levels >= 1)) {
        throw new RangeError(
          `Invalid column "${column.name}": needs n=${n} codes and at least one level`,
        );
      }
      this.offsets[j] = width;
      width += column.levels;
    });
    this.width = width;
    this.dim = classes * (1 + width);
    const seen = new Map<string, number>();
    const cells: number[] = [];
    this.patternOf = new Int32Array(n);
    const row = new Int32Array(J);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < J; j++) {
        const code = columns[j].codes[i];
        if (!(code >= 0 && code < columns[j].levels)) {
          throw new RangeError(
            `Invalid column "${columns[j].name}": a code outside 0..${columns[j].levels - 1}`,
          );
        }
        row[j] = this.offsets[j] + code;
      }
      const key = row.join(",");
      let p = seen.get(key);
      if (p === undefined) {
        p = seen.size;
        seen.set(key, p);
        for (let j = 0; j < J; j++) cells.push(row[j]);
      }
      this.patternOf[i] = p;
    }
    this.patterns = seen.size;
    this.patternCells = Int32Array.from(cells);
    this.#classLogs = new Float64Array(this.patterns * classes);
    this.#logPhi = new Float64Array(width * classes);
    // Consecutive columns share a block while its table stays within P/4 entries: each (p, k)
    // sum then gathers one value per block instead of one per column, and the K tables cost
    // less than the gathers they save (measured on ma2019: P/4 beats P).
    const starts = [0];
    const offsets = [0];
    let size = 1;
    for (let j = 0; j < J; j++) {
      if (j > starts[starts.length - 1] && size * columns[j].levels > this.patterns / 4) {
        starts.push(j);
        offsets.push(offsets[offsets.length - 1] + size);
        size = 1;
      }
      size *= columns[j].levels;
    }
    starts.push(J);
    offsets.push(offsets[offsets.length - 1] + size);
    this.#blockStart = Int32Array.from(starts);
    this.#blockOffset = Int32Array.from(offsets);
    const B = starts.length - 1;
    this.#patternBlocks = new Int32Array(this.patterns * B);
    for (let p = 0; p < this.patterns; p++) {
      for (let b = 0; b < B; b++) {
        let code = 0;
        for (let j = starts[b]; j < starts[b + 1]; j++) {
          code = code * columns[j].levels + this.patternCells[p * J + j] - this.offsets[j];
        }
        this.#patternBlocks[p * B + b] = offsets[b] + code;
      }
    }
    this.#blockLogs = new Float64Array(classes * offsets[B]);
  }

  /** Index of π_k (k = 0..K−1) in θ. */
  piIndex(k: number): number {
    return k;
  }

  /** Index of φ_kj[l] in θ. */
  phiIndex(k: number, j: number, l: number): number {
    return this.K + k * this.width + this.offsets[j] + l;
  }

  /** θ's entry names: `pi[k]`, then `phi[k][column=level code]` (1-based k). */
  paramNames(): string[] {
    const names = Array.from({ length: this.K }, (_, k) => `pi[${k + 1}]`);
    for (let k = 0; k < this.K; k++) {
      this.names.forEach((name, j) => {
        for (let l = 0; l < this.levels[j]; l++) names.push(`phi[${k + 1}][${name}=${l}]`);
      });
    }
    return names;
  }

  /**
   * log(π_k f_k(x_p)) for every pattern p and class k, written P×K into `out`. The logs of φ are
   * taken once and summed over each block of columns for every level combination; each (p, k)
   * sum then gathers one value per block.
   *
   * @param theta θ (length dim).
   * @param out P·K values (allocated when omitted).
   * @returns `out`.
   */
  classLogs(theta: Float64Array, out: Float64Array = new Float64Array(this.patterns * this.K)) {
    const { K, width, patterns } = this;
    const logPhi = this.#logPhi;
    const starts = this.#blockStart;
    const offsets = this.#blockOffset;
    const B = starts.length - 1;
    const tableWidth = offsets[B];
    const tables = this.#blockLogs;
    for (let c = 0; c < K * width; c++) logPhi[c] = Math.log(theta[K + c]);
    for (let k = 0; k < K; k++) {
      for (let b = 0; b < B; b++) {
        // Mixed radix: the table of columns start..j−1 spread over column j's levels.
        const table = k * tableWidth + offsets[b];
        tables[table] = 0;
        let size = 1;
        for (let j = starts[b]; j < starts[b + 1]; j++) {
          const L = this.levels[j];
          const logs = k * width + this.offsets[j];
          for (let e = size - 1; e >= 0; e--) {
            const prefix = tables[table + e];
            for (let l = 0; l < L; l++) tables[table + e * L + l] = prefix + logPhi[logs + l];
          }
          size *= L;
        }
      }
    }
    const blocks = this.#patternBlocks;
    for (let k = 0; k < K; k++) {
      const logPi = Math.log(theta[k]);
      const base = k * tableWidth;
      for (let p = 0; p < patterns; p++) {
        let s = logPi;
        const at = p * B;
        for (let b = 0; b < B; b++) s += tables[base + blocks[at + b]];
        out[p * K + k] = s;
      }
    }
    return out;
  }

  /**
   * u_i(θ) = log (1/K) Σ_k (π_k f_k(x_i))^{α_i} by log-sum-exp (0 at α_i = 0).
   *
   * @param theta θ.
   * @param i The record (0-based).
   * @param alpha α_i ∈ [0, 1].
   * @returns u_i.
   */
  recordTerm(theta: Float64Array, i: number, alpha: number): number {
    if (alpha === 0) return 0;
    const { K, width } = this;
    const J = this.levels.length;
    const cells = this.patternOf[i] * J;
    const values = new Float64Array(K);
    for (let k = 0; k < K; k++) {
      let s = Math.log(theta[k]);
      for (let j = 0; j < J; j++) {
        s += Math.log(theta[K + k * width + this.patternCells[cells + j]]);
      }
      values[k] = alpha * s;
    }
    return logMeanExp(values, 0, K);
  }

  /**
   * log p(x_i | θ) = log Σ_k π_k f_k(x_i) for every record (the unweighted log-likelihood).
   *
   * @param theta θ.
   * @param out n values.
   * @returns `out`.
   */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    const { K, patterns, patternOf } = this;
    const logs = this.classLogs(theta, this.#classLogs);
    const byPattern = new Float64Array(patterns);
    for (let p = 0; p < patterns; p++) byPattern[p] = logMeanExp(logs, p * K, K) + Math.log(K);
    for (let i = 0; i < this.n; i++) out[i] = byPattern[patternOf[i]];
    return out;
  }

  /**
   * u_i(θ) for every record under weights α, each (pattern, α) pair evaluated once.
   *
   * @param theta θ.
   * @param alpha α (null: all 1).
   * @param out n values.
   * @returns `out`.
   */
  terms(theta: Float64Array, alpha: Float64Array | null, out: Float64Array): Float64Array {
    const groups = this.termGroups(alpha);
    const values = new Float64Array(groups.alpha.length);
    this.#groupTerms(theta, groups, values);
    for (let i = 0; i < this.n; i++) out[i] = values[groups.of[i]];
    return out;
  }

  /**
   * The S×n term matrix, out[s·n + i] = u_i(θ_s).
   *
   * @param draws S×dim draws, row-major.
   * @param alpha α (null: all 1).
   * @returns The matrix.
   */
  termMatrix(draws: Float64Array, alpha: Float64Array | null): Float64Array {
    const S = this.#drawCount(draws);
    const groups = this.termGroups(alpha);
    const values = new Float64Array(groups.alpha.length);
    const out = new Float64Array(S * this.n);
    for (let s = 0; s < S; s++) {
      this.#groupTerms(draws.subarray(s * this.dim, (s + 1) * this.dim), groups, values);
      for (let i = 0; i < this.n; i++) out[s * this.n + i] = values[groups.of[i]];
    }
    return out;
  }

  /**
   * max_s |u_i(θ_s)| and min_s |u_i(θ_s)| per record, streaming over the draws (a NaN counts as
   * +∞), each with the first draw attaining it.
   *
   * @param draws S×dim draws.
   * @param alpha α (null: all 1).
   * @param stop Read once a draw: when set (its job was stopped, `worker_stop.ts`), it throws.
   * @returns The extremes and their draws.
   */
  termMaxima(draws: Float64Array, alpha: Float64Array | null, stop?: StopFlag): TermMaxima {
    const S = this.#drawCount(draws);
    const groups = this.termGroups(alpha);
    const G = groups.alpha.length;
    const values = new Float64Array(G);
    const groupMax = new Float64Array(G);
    const groupArg = new Int32Array(G);
    const groupMin = new Float64Array(G).fill(Infinity);
    const groupArgMin = new Int32Array(G);
    for (let s = 0; s < S; s++) {
      throwIfStopRequested(stop);
      this.#groupTerms(draws.subarray(s * this.dim, (s + 1) * this.dim), groups, values);
      for (let g = 0; g < G; g++) {
        foldExtremes(values[g], s, g, groupMax, groupArg, groupMin, groupArgMin);
      }
    }
    const perRecord = new Float64Array(this.n);
    const argDraw = new Int32Array(this.n);
    const minimum = new Float64Array(this.n);
    const argMinDraw = new Int32Array(this.n);
    for (let i = 0; i < this.n; i++) {
      const g = groups.of[i];
      perRecord[i] = groupMax[g];
      argDraw[i] = groupArg[g];
      minimum[i] = groupMin[g];
      argMinDraw[i] = groupArgMin[g];
    }
    return { perRecord, argDraw, minimum, argMinDraw };
  }

  /**
   * The records grouped by (pattern, α_i): each group's pattern and α, and each record's group.
   *
   * @param alpha α (null: all 1).
   * @returns The groups.
   */
  termGroups(alpha: Float64Array | null): TermGroups {
    if (alpha !== null && alpha.length !== this.n) {
      throw new RangeError(`Invalid alpha: must have n=${this.n} entries: length=${alpha.length}`);
    }
    const { patternOf } = this;
    if (alpha === null) {
      return {
        of: patternOf,
        pattern: Int32Array.from({ length: this.patterns }, (_, p) => p),
        alpha: new Float64Array(this.patterns).fill(1),
      };
    }
    const index = new Map<string, number>();
    const of = new Int32Array(this.n);
    const pattern: number[] = [];
    const weights: number[] = [];
    for (let i = 0; i < this.n; i++) {
      const a = alpha[i];
      if (!(a >= 0 && a <= 1)) throw new RangeError("Invalid alpha: every α_i must lie in [0, 1]");
      const key = `${patternOf[i]}:${a}`;
      let g = index.get(key);
      if (g === undefined) {
        g = pattern.length;
        index.set(key, g);
        pattern.push(patternOf[i]);
        weights.push(a);
      }
      of[i] = g;
    }
    return { of, pattern: Int32Array.from(pattern), alpha: Float64Array.from(weights) };
  }

  /**
   * A synthetic file of n records from θ: z ~ π, then each column from φ_{z,j}.
   *
   * @param theta θ.
   * @param n The number of records.
   * @param rng The random stream.
   * @returns The encoded synthetic file, with this model's column names and levels.
   */
  simulate(theta: Float64Array, n: number, rng: Rng): EncodedFile {
    const { K, width } = this;
    const codes = this.names.map(() => new Int32Array(n));
    for (let i = 0; i < n; i++) {
      const k = drawIndex(theta, 0, K, rng.uniform());
      this.names.forEach((_, j) => {
        codes[j][i] = drawIndex(
          theta,
          K + k * width + this.offsets[j],
          this.levels[j],
          rng.uniform(),
        );
      });
    }
    return {
      n,
      columns: this.names.map((name, j) => ({ name, levels: this.levels[j], codes: codes[j] })),
    };
  }

  /**
   * u at θ for the (pattern, α) groups given, bit for bit the values `terms` and `termMaxima`
   * give them: each class sum is gathered column by column, left to right within `classLogs`'
   * blocks and then block by block (the tables' own order), with no tables, so a few groups or a
   * few draws cost O(G·K·J) (the GPU pass's f64 confirmation).
   *
   * @param theta θ.
   * @param groups The groups' patterns and α (as in {@linkcode termGroups}).
   * @param out One value per group.
   * @returns `out`.
   */
  groupTerms(
    theta: Float64Array,
    groups: Pick<TermGroups, "pattern" | "alpha">,
    out: Float64Array,
  ): Float64Array {
    const { K, width } = this;
    const J = this.levels.length;
    const starts = this.#blockStart;
    const B = starts.length - 1;
    const logPhi = new Float64Array(K * width);
    for (let c = 0; c < K * width; c++) logPhi[c] = Math.log(theta[K + c]);
    const scaled = new Float64Array(K);
    for (let g = 0; g < groups.pattern.length; g++) {
      const a = groups.alpha[g];
      if (a === 0) {
        out[g] = 0;
        continue;
      }
      const cells = groups.pattern[g] * J;
      for (let k = 0; k < K; k++) {
        let s = Math.log(theta[k]);
        for (let b = 0; b < B; b++) {
          let t = 0;
          for (let j = starts[b]; j < starts[b + 1]; j++) {
            t += logPhi[k * width + this.patternCells[cells + j]];
          }
          s += t;
        }
        scaled[k] = a * s;
      }
      out[g] = logMeanExp(scaled, 0, K);
    }
    return out;
  }

  #drawCount(draws: Float64Array): number {
    if (draws.length === 0 || draws.length % this.dim !== 0) {
      throw new RangeError(
        `Invalid draws: length must be a positive multiple of dim=${this.dim}: length=${draws.length}`,
      );
    }
    return draws.length / this.dim;
  }

  /** u for every (pattern, α) group at θ. */
  #groupTerms(theta: Float64Array, groups: TermGroups, out: Float64Array): void {
    const { K } = this;
    const logs = this.classLogs(theta, this.#classLogs);
    const scaled = new Float64Array(K);
    for (let g = 0; g < out.length; g++) {
      const a = groups.alpha[g];
      if (a === 0) {
        out[g] = 0;
        continue;
      }
      const base = groups.pattern[g] * K;
      for (let k = 0; k < K; k++) scaled[k] = a * logs[base + k];
      out[g] = logMeanExp(scaled, 0, K);
    }
  }
}

/** Records grouped by (pattern, α): `of[i]` is record i's group. */
export interface TermGroups {
  readonly of: Int32Array;
  readonly pattern: Int32Array;
  readonly alpha: Float64Array;
}

/**
 * log (1/m) Σ_{k<m} e^{v[start+k]}, stable: the maximum factored out (−∞ when every v is −∞).
 *
 * @param v The values.
 * @param start The first index.
 * @param m How many.
 * @returns The log mean of the exponentials.
 */
export function logMeanExp(v: Float64Array, start: number, m: number): number {
  let max = -Infinity;
  for (let k = 0; k < m; k++) if (v[start + k] > max) max = v[start + k];
  if (max === -Infinity) return -Infinity;
  if (!Number.isFinite(max)) return max;
  let sum = 0;
  for (let k = 0; k < m; k++) sum += Math.exp(v[start + k] - max);
  return max + Math.log(sum / m);
}

/**
 * The index l ∈ 0..m−1 with Σ_{<l} p < u·Σ p ≤ Σ_{≤l} p over p = v[start..start+m): one draw from
 * the (unnormalised) probabilities, the last positive one when rounding leaves u beyond the sum.
 */
function drawIndex(v: Float64Array, start: number, m: number, u: number): number {
  let total = 0;
  for (let l = 0; l < m; l++) total += v[start + l];
  let target = u * total;
  let last = 0;
  for (let l = 0; l < m; l++) {
    const p = v[start + l];
    if (p > 0) last = l;
    if (target < p) return l;
    target -= p;
  }
  return last;
}
