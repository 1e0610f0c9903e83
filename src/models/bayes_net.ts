/**
 * The Bayesian network of a whole file (SPEC §13, issue 35): the file's encoded columns
 * (`encodeFile`: levels, N/A states and bins from the declared schema only) in the schema's
 * order, each given at most `maxParents` of the columns before it,
 *
 *   p(x | G, θ) = Π_t θ_{t, pa_t(x), x_t},   θ_{t,c,·} ~ Dirichlet(a, …, a),
 *
 * with the parent set pa_t = G_t drawn from the candidates of column t (every subset of earlier
 * columns of size ≤ `maxParents` whose table has at most `maxCells` cells, the empty set always
 * included) under a uniform prior. The order, the candidates, a and the caps are public (the
 * schema and the model's settings); the structure G is a parameter, drawn with θ from the pseudo
 * posterior, never chosen on the data. Given columns (`--x`, public by the owner's declaration)
 * are not modelled: every column may take them as parents, and p(x | G, θ) above is then the
 * conditional of the other columns given them (the terms below have no factor for them).
 *
 * **The pseudo posterior and its exact draws.** With record weights α_i the pseudo posterior is
 *
 *   π_α(G, θ | x) ∝ p(G) p(θ | G) Π_i p(x_i | G, θ)^{α_i},
 *
 * conjugate: given G, each table row is Dirichlet(a + w_{t,c,·}) with the α-weighted counts
 * w_{t,c,l} = Σ_i α_i 1[pa_t(x_i) = c, x_it = l], and G's columns are independent a posteriori
 * with p(G_t = g | x) ∝ Π_c B(a + w_{t,c,·}) / B(a·1) (the Dirichlet–multinomial marginal, its
 * fractional counts included). `sampleBayesNet` draws (G, θ) exactly from it: no chain, no
 * warmup, nothing to mix.
 *
 * **The per-record term and ε = 2Δm.** The target raises u_i(G, θ) = α_i log p(x_i | G, θ) — this
 * module's `recordTerm`, the term Δ is computed on. For add/remove neighbours x' = x ∪ {x_j} the
 * release density ratio is
 *
 *   log π_α(G, θ | x') − log π_α(G, θ | x) = u_j(G, θ) − log E_{π_α(·|x)}[e^{u_j}],
 *
 * and log E[e^{u_j}] lies within [inf u_j, sup u_j], so the log ratio lies within ± (sup u_j −
 * inf u_j) = ±2Δ_j with Δ_j the half range of u_j over (G, θ) (SPEC §13: "the per-pair bound is
 * then the range of u_i over θ"). A synthetic file simulated from one draw costs ε = 2Δ, m files
 * 2Δm (sequential composition), Δ = max_j Δ_j, estimated as the largest half range over the S
 * posterior draws (aDP, as every pseudo posterior release of ppsynth: Δ is a maximum over draws).
 * u_i ≤ 0 (discrete probabilities), so the range of |u_i| is that of u_i (`centredTerm`).
 *
 * **The draw's layout.** A draw is self-describing: θ[0..T) holds each column's parent-set index
 * g_t, then each column's table log θ_{t,g_t} (configs × levels, row-major by the parents'
 * mixed-radix configuration), in column order; a fit pads its draws to its longest one.
 *
 * @module
 */
import type { EncodedFile } from "../data/file_encoding.ts";
import { type StopFlag, throwIfStopRequested } from "../data/worker_stop.ts";
import { checkInteger, checkPositiveFinite } from "../random/arguments.ts";
import { samplePermutation } from "../random/distributions.ts";
import type { Rng } from "../random/rng.ts";
import { foldExtremes, type TermMaxima } from "./latent_class.ts";

/** The public settings of the network: the Dirichlet concentration and the candidates' caps. */
export interface BayesNetPrior {
  /** Dirichlet concentration a of every table cell. */
  readonly dirichlet: number;
  /** Most parents a column may have. */
  readonly maxParents: number;
  /** Most cells (parent configurations × levels) a candidate's table may have. */
  readonly maxCells: number;
}

/**
 * Defaults: a = 0.5, two parents, 3,000 cells. Measured on ma2019 (`synth --y all`, ε = 10,
 * k-marginal on the CRC's simple / all features, docs/decisions.md): under LW (`auto`'s), a = 0.5
 * 902 / 879, 900 / 879, 900 / 879 (seeds 1–3), a = 0.7 899 / 875, 899 / 877, 899 / 877, a = 1
 * 893 / 872 and 894 / 872; under SW, a = 0.3 874 / 856, 873 / 855, 892 / 874, a = 0.5 889 / 868,
 * 888 / 866; in a probe a = 0.1 859, a = 1 864 and three parents 875 (simple). A larger a lowers
 * Δ (a rare record's cell has shape a + α_i, whose log draws spread less), a smaller one smooths
 * less. (Records drawn i.i.d. there; balanced sampling, `simulate`'s default, adds about 2 points.)
 */
export const DEFAULT_BAYES_NET_PRIOR: BayesNetPrior = Object.freeze({
  dirichlet: 0.5,
  maxParents: 2,
  maxCells: 3000,
});

/** How `simulate` draws a file's records from one draw (see `BayesNetModel.simulate`). */
export type RecordSampling = "balanced" | "iid";

/** One candidate parent set of a column: the parents (file column indices) and its table's size. */
export interface ParentSet {
  readonly parents: readonly number[];
  /** Parent configurations Π_p L_p. */
  readonly configs: number;
  /** configs × the column's levels. */
  readonly cells: number;
}

/** The Bayesian network bound to one encoded file. */
export class BayesNetModel {
  readonly n: number;
  readonly prior: BayesNetPrior;
  /** The file's columns (schema order); a one-level (determined) column is not modelled. */
  readonly file: EncodedFile;
  /**
   * The given columns (file indices, `--x`): not modelled, each synthetic record keeps a
   * confidential record's values, and every modelled column may take them as parents.
   */
  readonly given: readonly number[];
  /** The modelled columns (file indices, more than one level, not given), in the schema's order. */
  readonly order: readonly number[];
  /** Candidates per modelled column (position t in `order`); index 0 is the empty set. */
  readonly candidates: readonly (readonly ParentSet[])[];
  readonly #cellIndex = new Map<string, Int32Array>();

  /**
   * @param file The encoded file.
   * @param prior The public settings (default {@linkcode DEFAULT_BAYES_NET_PRIOR}).
   * @param given The given columns' file indices (default none).
   */
  constructor(
    file: EncodedFile,
    prior: BayesNetPrior = DEFAULT_BAYES_NET_PRIOR,
    given: readonly number[] = [],
  ) {
    checkPositiveFinite("dirichlet", prior.dirichlet);
    checkInteger("maxParents", prior.maxParents, 0);
    checkInteger("maxCells", prior.maxCells, 1);
    given.forEach((j) => checkInteger("given column", j, 0, file.columns.length - 1));
    this.n = file.n;
    this.file = file;
    this.prior = prior;
    this.given = [...given].sort((a, b) => a - b);
    this.order = file.columns.flatMap((column, j) =>
      column.levels > 1 && !given.includes(j) ? [j] : []
    );
    const levels = file.columns.map((column) => column.levels);
    const givenParents = this.given.filter((j) => levels[j] > 1);
    this.candidates = this.order.map((j, t) => {
      const sets: ParentSet[] = [];
      const earlier = [...givenParents, ...this.order.slice(0, t)];
      const extend = (from: number, parents: number[], configs: number) => {
        sets.push({ parents: [...parents], configs, cells: configs * levels[j] });
        if (parents.length === prior.maxParents) return;
        for (let q = from; q < earlier.length; q++) {
          const next = configs * levels[earlier[q]];
          if (next * levels[j] > prior.maxCells) continue;
          extend(q + 1, [...parents, earlier[q]], next);
        }
      };
      extend(0, [], 1);
      return sets;
    });
  }

  /** Levels of modelled column t. */
  levelsAt(t: number): number {
    return this.file.columns[this.order[t]].levels;
  }

  /**
   * Each record's cell of candidate g's table of column t: config(pa(x_i)) × L_t + x_it, the
   * configuration mixed-radix in the parents' order. Kept for the candidates a fit's draws use
   * (usually one a column), not for every candidate: the counts are computed without it.
   */
  cellIndex(t: number, g: number): Int32Array {
    const key = `${t}:${g}`;
    const cached = this.#cellIndex.get(key);
    if (cached !== undefined) return cached;
    const { parents } = this.candidates[t][g];
    const cells = new Int32Array(this.n);
    for (const p of parents) {
      const { levels, codes } = this.file.columns[p];
      for (let i = 0; i < this.n; i++) cells[i] = cells[i] * levels + codes[i];
    }
    const own = this.file.columns[this.order[t]];
    for (let i = 0; i < this.n; i++) cells[i] = cells[i] * own.levels + own.codes[i];
    this.#cellIndex.set(key, cells);
    return cells;
  }

  /**
   * The α-weighted counts w_{t,g} of candidate g of column t (its table's shape).
   *
   * @param alpha α (null: all 1).
   */
  weightedCounts(t: number, g: number, alpha: Float64Array | null): Float64Array {
    const { parents, cells } = this.candidates[t][g];
    const counts = new Float64Array(cells);
    const parentColumns = parents.map((p) => this.file.columns[p]);
    const own = this.file.columns[this.order[t]];
    for (let i = 0; i < this.n; i++) {
      let config = 0;
      for (const { levels, codes } of parentColumns) config = config * levels + codes[i];
      counts[config * own.levels + own.codes[i]] += alpha === null ? 1 : alpha[i];
    }
    return counts;
  }

  /** Where each column's table starts in a draw (after the T parent-set indices), and the end. */
  tableOffsets(theta: Float64Array): Int32Array {
    const T = this.order.length;
    const offsets = new Int32Array(T + 1);
    offsets[0] = T;
    for (let t = 0; t < T; t++) offsets[t + 1] = offsets[t] + this.#set(theta, t).cells;
    return offsets;
  }

  /** Parameter names of a draw of length `dim`: g per column, then θ's cells, then padding. */
  paramNames(dim: number): string[] {
    const names = this.order.map((j) => `parents:${this.file.columns[j].name}`);
    for (let k = names.length; k < dim; k++) names.push(`theta[${k - this.order.length}]`);
    return names;
  }

  /**
   * log p(x_i | G, θ) of every record.
   *
   * @param theta One draw.
   * @param out Where to write (length n).
   * @returns `out`.
   */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    out.fill(0);
    const offsets = this.tableOffsets(theta);
    this.order.forEach((_, t) => {
      const cells = this.cellIndex(t, theta[t]);
      const base = offsets[t];
      for (let i = 0; i < this.n; i++) out[i] += theta[base + cells[i]];
    });
    return out;
  }

  /**
   * The term the pseudo posterior raises, u_i = α_i log p(x_i | G, θ) (see the module doc).
   *
   * @param theta One draw.
   * @param i The record.
   * @param alpha Its α_i.
   */
  recordTerm(theta: Float64Array, i: number, alpha: number): number {
    const offsets = this.tableOffsets(theta);
    let sum = 0;
    this.order.forEach((_, t) => {
      sum += theta[offsets[t] + this.cellIndex(t, theta[t])[i]];
    });
    return alpha * sum;
  }

  /**
   * max_s |u_i| and min_s |u_i| per record over S draws of length `dim` (a NaN counts as +∞),
   * each with the first draw attaining it.
   *
   * @param draws S×dim draws.
   * @param dim A draw's length.
   * @param alpha α (null: all 1).
   * @param stop Read once a draw: when set (its job was stopped, `worker_stop.ts`), it throws.
   */
  termMaxima(
    draws: Float64Array,
    dim: number,
    alpha: Float64Array | null,
    stop?: StopFlag,
  ): TermMaxima {
    const S = draws.length / dim;
    const n = this.n;
    const perRecord = new Float64Array(n);
    const argDraw = new Int32Array(n);
    const minimum = new Float64Array(n).fill(Infinity);
    const argMinDraw = new Int32Array(n);
    const ell = new Float64Array(n);
    for (let s = 0; s < S; s++) {
      throwIfStopRequested(stop);
      this.logLik(draws.subarray(s * dim, (s + 1) * dim), ell);
      for (let i = 0; i < n; i++) {
        const u = (alpha === null ? 1 : alpha[i]) * ell[i];
        foldExtremes(u, s, i, perRecord, argDraw, minimum, argMinDraw);
      }
    }
    return { perRecord, argDraw, minimum, argMinDraw };
  }

  /**
   * n records drawn by ancestral sampling in the schema's order from p(x | G, θ), or with given
   * columns record r keeping confidential record rows[r]'s given values and drawing the rest from
   * p(· | given, G, θ); a one-level column gets code 0.
   *
   * - `"iid"`: each record's columns drawn in turn, one uniform a column (i.i.d. records).
   * - `"balanced"` (the default): column by column, the records sharing a parent configuration c
   *   get their levels by systematic sampling — m_c records at the points (u + k)/m_c, k < m_c,
   *   of θ_{t,c,·}'s distribution function, one uniform u a configuration — in a random order (a
   *   uniform shuffle). Each level's count is within 1 of m_c θ_{t,c,l} and its expectation is
   *   exactly that, so every record is still drawn from p(x | G, θ); only the file's counts vary
   *   less than i.i.d. draws' (Madow's systematic sampling; a function of θ and the release's
   *   randomness alone, like any simulation from the draw).
   *
   * @param theta One draw.
   * @param n Records to draw.
   * @param rng The stream.
   * @param rows Each record's confidential record (required with given columns).
   * @param sampling "balanced" (default) or "iid".
   */
  simulate(
    theta: Float64Array,
    n: number,
    rng: Rng,
    rows?: ArrayLike<number>,
    sampling: RecordSampling = "balanced",
  ): EncodedFile {
    const columns = this.file.columns.map((column) => ({
      name: column.name,
      levels: column.levels,
      codes: new Int32Array(n),
    }));
    if (this.given.length > 0) {
      if (rows === undefined || rows.length !== n) {
        throw new RangeError(
          "Invalid rows: a network with given columns draws each record from a confidential " +
            `record's given values, one row per record: n=${n}`,
        );
      }
      for (const j of this.given) {
        const source = this.file.columns[j].codes;
        for (let i = 0; i < n; i++) columns[j].codes[i] = source[rows[i]];
      }
    }
    const offsets = this.tableOffsets(theta);
    const sets = this.order.map((_, t) => this.#set(theta, t));
    const configOf = (t: number, i: number) => {
      let config = 0;
      for (const p of sets[t].parents) config = config * columns[p].levels + columns[p].codes[i];
      return config;
    };
    if (sampling === "iid") {
      for (let i = 0; i < n; i++) {
        this.order.forEach((j, t) => {
          const levels = columns[j].levels;
          const row = offsets[t] + configOf(t, i) * levels;
          let u = rng.uniform();
          let level = 0;
          for (; level < levels - 1; level++) {
            u -= Math.exp(theta[row + level]);
            if (u <= 0) break;
          }
          columns[j].codes[i] = level;
        });
      }
      return { n, columns };
    }
    this.order.forEach((j, t) => {
      const levels = columns[j].levels;
      const configs = Int32Array.from({ length: n }, (_, i) => configOf(t, i));
      // The records of each configuration, contiguous (a counting sort).
      const starts = new Int32Array(sets[t].configs + 1);
      for (const c of configs) starts[c + 1]++;
      for (let c = 0; c < sets[t].configs; c++) starts[c + 1] += starts[c];
      const members = new Int32Array(n);
      const filled = starts.slice(0, -1);
      for (let i = 0; i < n; i++) members[filled[configs[i]]++] = i;
      const codes = columns[j].codes;
      for (let c = 0; c < sets[t].configs; c++) {
        const from = starts[c];
        const m = starts[c + 1] - from;
        if (m === 0) continue;
        const row = offsets[t] + c * levels;
        const u = rng.uniform();
        // Systematic point k goes to the configuration's record at a uniformly random place.
        const place = samplePermutation(rng, m);
        let level = 0;
        let cumulative = Math.exp(theta[row]);
        for (let k = 0; k < m; k++) {
          while ((u + k) / m > cumulative && level < levels - 1) {
            cumulative += Math.exp(theta[row + ++level]);
          }
          codes[members[from + place[k]]] = level;
        }
      }
    });
    return { n, columns };
  }

  #set(theta: Float64Array, t: number): ParentSet {
    const set = this.candidates[t][theta[t]];
    if (set === undefined) {
      throw new RangeError(
        `Invalid draw: column ${this.file.columns[this.order[t]].name}'s parent set index is ` +
          `outside 0..${this.candidates[t].length - 1}: index=${theta[t]}`,
      );
    }
    return set;
  }
}
