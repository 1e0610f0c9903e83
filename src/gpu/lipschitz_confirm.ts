/**
 * Confirms approximate Lipschitz maxima in f64 (SPEC §1, §5): the overall Δ_{α,x} returned is
 * exactly the f64 CPU loop's value, with its arg-max, whatever the approximation's rounding.
 *
 * Input: per record i an approximate maximum A_i of L_{s,i} = |α_i·ℓ_i(θ_s)| over the draws the
 * approximation saw, the draw where it was attained, and a bound E_i with |A_i − max_s L_{s,i}|
 * ≤ E_i over those draws; records marked `exact`, and the draws the approximation skipped,
 * are evaluated here in f64 with the model itself.
 *
 * Let T_i be the exact f64 maximum over all draws and T* = max_i T_i. Every approximate record
 * has T_i ≥ A_i − E_i, so T* ≥ LB = max_i (A_i − E_i) (and ≥ every exact T_i). A record with
 * A_i + E_i < LB has T_i ≤ A_i + E_i < T*: it cannot attain the maximum. Every other record is
 * recomputed in f64 over all draws (model.logLik on a model bound to those records only), so the
 * overall maximum, the first record attaining it and the first draw attaining that record's
 * maximum are the CPU loop's, bit for bit.
 *
 * Per-record values, exact too: with the runner-up R_i (the approximate maximum over the other
 * draws the approximation saw), a record with A_i − R_i > 2·E_i has its exact maximum over those
 * draws at the same draw (every other draw is at most R_i + E_i < A_i − E_i), so the f64 value
 * there, joined with the skipped draws' f64 maximum, is T_i (O(n) model work). Every other
 * record (a tie or a near tie) is recomputed over all draws. The per-record values, which set
 * the LW and truncation weights, are then the CPU loop's bit for bit, so a GPU-backed synthesis
 * releases the same data as a CPU-backed one.
 *
 * @module
 */
import type { LipschitzResult } from "../mechanisms/lipschitz.ts";
import { isJointModel, JointModel } from "../models/joint.ts";
import type { Design, Model } from "../models/model.ts";
import { type ModelName, subsetModel } from "../models/registry.ts";

/** An approximation of the per-record maxima, with its error bounds. */
export interface ApproximateMaxima {
  /** A_i: the approximate max of |α_i·ℓ_i| over the approximation's draws (0 if it had none). */
  readonly value: Float32Array | Float64Array;
  /** The draw (index into the caller's draws) where A_i was attained. */
  readonly draw: Int32Array;
  /** R_i: the approximate max over the approximation's other draws (−1 if it had no other). */
  readonly runnerUp: Float32Array | Float64Array;
  /** E_i: absolute bound on |A_i − the exact max over the approximation's draws|. */
  readonly bound: Float64Array;
  /** 1 where the record has to be evaluated here in f64 (not approximated). */
  readonly exact: Uint8Array;
  /** Draws the approximation did not see (evaluated here for every record), increasing. */
  readonly skippedDraws: Int32Array;
}

/** How much f64 work the confirmation did. */
export interface ConfirmationStats {
  /** Records recomputed over all draws (marked exact, near the maximum, or a near tie). */
  readonly recomputed: number;
  /** Of those, the records recomputed only because their arg-max draw was a near tie. */
  readonly nearTies: number;
  /** Of those, the distinct (y, x, α) rows actually evaluated. */
  readonly distinct: number;
}

/** The CPU loop's entry: |α·ℓ| with α = 0 giving 0 and NaN giving +∞. */
function entry(a: number, l: number): number {
  if (a === 0) return 0;
  const value = Math.abs(a * l);
  return Number.isNaN(value) ? Infinity : value;
}

/** A model bound to a subset of the records (rows in the order given). */
type SubModels = (records: Int32Array) => Model;

/**
 * How `model` is re-bound to subsets of its records so that each record's ℓ is the same bit for
 * bit as in `model` itself. Most models evaluate a record from its own row alone, with the same
 * arithmetic however many records they hold, and are rebuilt by `createModel`. The logistic and
 * categorical models are not: `createModel`'s model runs the TypeScript record loop where rows
 * group (few distinct rows) and the WebAssembly SIMD loop elsewhere, and the two differ by a few
 * ulp, while a subset's own grouping need not be its parent's. The TypeScript loop gives the
 * same values grouped or not, and the SIMD loop the same value to a record wherever it sits, so
 * a subset runs ungrouped, in the loop its parent (as `createModel` builds it) runs. Which
 * models need this, and how, is their registry entry's (`subset`, read through `subsetModel`);
 * this file names no model. A joint
 * model's subset is the joint model of its conditionals' subsets, each rebuilt as above, so its
 * ℓ_i = Σ_j ℓ_ij is summed in the same order from the same terms.
 */
function subModels(model: Model): SubModels {
  if (isJointModel(model)) {
    const parts = model.components.map((c) => subModels(c.model));
    return (records) =>
      new JointModel(model.components.map((c, j) => ({ ...c, model: parts[j](records) })));
  }
  const parent = model.design;
  const { k } = parent;
  const subDesign = (records: Int32Array): Design => {
    const m = records.length;
    const y = new Float64Array(m);
    const x = new Float64Array(m * k);
    const weight = parent.weight === undefined ? undefined : new Float64Array(m);
    for (let j = 0; j < m; j++) {
      const i = records[j];
      y[j] = parent.y[i];
      x.set(parent.x.subarray(i * k, (i + 1) * k), j * k);
      if (weight !== undefined) weight[j] = parent.weight![i];
    }
    return { ...parent, n: m, y, x, ...(weight === undefined ? {} : { weight }) };
  };
  const build = subsetModel(model.name as ModelName, parent);
  return (records) => build(subDesign(records));
}

/**
 * The exact f64 maxima over all draws for `records` (first draw on ties, as the CPU loop),
 * evaluating each distinct (y, x row, α) once (with the survey weight w where the design has one:
 * FBS's and FBP's ℓ_i depend on it); writes the records' matrix columns when given.
 */
function exactMaxima(
  model: Model,
  subModel: SubModels,
  draws: Float64Array,
  alpha: Float64Array | null,
  records: Int32Array,
  max: Float64Array,
  argDraw: Int32Array,
  matrix: Float64Array | undefined,
): number {
  const n = model.design.n;
  const dim = model.dim;
  // A joint model's record is every conditional's (y, x row).
  const designs = isJointModel(model)
    ? model.components.map((c) => c.model.design)
    : [model.design];
  const index = new Map<string, number>();
  const reps: number[] = [];
  const members: number[][] = [];
  for (const i of records) {
    let key = `${alpha === null ? 1 : alpha[i]}`;
    for (const { k, y, x, weight } of designs) {
      key += `|${y[i]}|${x.subarray(i * k, (i + 1) * k).join()}`;
      if (weight !== undefined) key += `|w${weight[i]}`;
    }
    let j = index.get(key);
    if (j === undefined) {
      j = reps.length;
      index.set(key, j);
      reps.push(i);
      members.push([]);
    }
    members[j].push(i);
  }
  const repIds = Int32Array.from(reps);
  const sub = subModel(repIds);
  const out = new Float64Array(reps.length);
  const best = new Float64Array(reps.length);
  const bestDraw = new Int32Array(reps.length);
  const total = draws.length / dim;
  for (let s = 0; s < total; s++) {
    sub.logLik(draws.subarray(s * dim, (s + 1) * dim), out);
    for (let j = 0; j < reps.length; j++) {
      const value = entry(alpha === null ? 1 : alpha[reps[j]], out[j]);
      if (matrix !== undefined) { for (const i of members[j]) matrix[s * n + i] = value; }
      if (value > best[j]) {
        best[j] = value;
        bestDraw[j] = s;
      }
    }
  }
  for (let j = 0; j < reps.length; j++) {
    for (const i of members[j]) {
      max[i] = best[j];
      argDraw[i] = bestDraw[j];
    }
  }
  return reps.length;
}

/**
 * Confirms an approximation of the Lipschitz maxima in f64 (see the module doc).
 *
 * @param model the model bound to the confidential data.
 * @param draws S×dim constrained draws, row-major.
 * @param alpha record weights (null: all 1).
 * @param approx the approximate maxima, their bounds and what the approximation skipped.
 * @param matrix the S×n matrix holding the approximation's entries, completed here (skipped
 *   draws' rows and recomputed records' columns in f64), or undefined.
 * @returns the result (overall and arg-max exact in f64) and how much was recomputed.
 */
export function confirmLipschitz(
  model: Model,
  draws: Float64Array,
  alpha: Float64Array | null,
  approx: ApproximateMaxima,
  matrix: Float64Array | undefined,
): { result: LipschitzResult; stats: ConfirmationStats } {
  const n = model.design.n;
  const dim = model.dim;
  const subModel = subModels(model);
  const weight = (i: number) => alpha === null ? 1 : alpha[i];
  // Exact values over the skipped draws, for every record.
  const skipped = new Float64Array(n);
  const row = new Float64Array(n);
  for (const s of approx.skippedDraws) {
    model.logLik(draws.subarray(s * dim, (s + 1) * dim), row);
    for (let i = 0; i < n; i++) {
      const value = entry(weight(i), row[i]);
      if (matrix !== undefined) matrix[s * n + i] = value;
      if (value > skipped[i]) skipped[i] = value;
    }
  }
  const known = new Uint8Array(n);
  const exactMax = new Float64Array(n);
  const exactDraw = new Int32Array(n);
  const forced: number[] = [];
  for (let i = 0; i < n; i++) {
    if (weight(i) === 0) known[i] = 1;
    else if (approx.exact[i] === 1) forced.push(i);
  }
  let recomputed = forced.length;
  let distinct = 0;
  if (forced.length > 0) {
    const ids = Int32Array.from(forced);
    distinct += exactMaxima(model, subModel, draws, alpha, ids, exactMax, exactDraw, matrix);
    for (const i of forced) known[i] = 1;
  }
  // The lower bound on T* and the records that may attain it.
  const approxValue = (i: number) => Math.max(approx.value[i], skipped[i]);
  let lower = 0;
  for (let i = 0; i < n; i++) {
    const v = known[i] === 1 ? exactMax[i] : approxValue(i) - approx.bound[i];
    if (v > lower) lower = v;
  }
  const candidates: number[] = [];
  for (let i = 0; i < n; i++) {
    if (known[i] === 0 && approxValue(i) + approx.bound[i] >= lower) candidates.push(i);
  }
  if (candidates.length > 0) {
    distinct += exactMaxima(
      model,
      subModel,
      draws,
      alpha,
      Int32Array.from(candidates),
      exactMax,
      exactDraw,
      matrix,
    );
    for (const i of candidates) known[i] = 1;
    recomputed += candidates.length;
  }
  let record = -1;
  for (let i = 0; i < n; i++) {
    if (known[i] === 1 && (record < 0 || exactMax[i] > exactMax[record])) record = i;
  }
  // The others: exact at their approximate arg-max draw unless it is a near tie.
  const nearTies: number[] = [];
  const byDraw = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    if (known[i] === 1) continue;
    if (!(approx.value[i] - approx.runnerUp[i] > 2 * approx.bound[i])) {
      nearTies.push(i);
      continue;
    }
    let group = byDraw.get(approx.draw[i]);
    if (group === undefined) byDraw.set(approx.draw[i], group = []);
    group.push(i);
  }
  if (nearTies.length > 0) {
    const ids = Int32Array.from(nearTies);
    distinct += exactMaxima(model, subModel, draws, alpha, ids, exactMax, exactDraw, matrix);
    recomputed += nearTies.length;
  }
  const perRecord = new Float64Array(n);
  for (let i = 0; i < n; i++) perRecord[i] = exactMax[i];
  for (const [s, group] of byDraw) {
    const ids = Int32Array.from(group);
    const values = subModel(ids).logLik(
      draws.subarray(s * dim, (s + 1) * dim),
      new Float64Array(ids.length),
    );
    for (let j = 0; j < ids.length; j++) {
      perRecord[ids[j]] = Math.max(entry(weight(ids[j]), values[j]), skipped[ids[j]]);
    }
  }
  return {
    result: {
      perRecord,
      overall: perRecord[record],
      argmax: { record, draw: exactDraw[record] },
      matrix,
    },
    stats: { recomputed, distinct, nearTies: nearTies.length },
  };
}
