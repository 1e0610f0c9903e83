/**
 * How well columns predict a categorical variable on held-out records (issue 24: what survey
 * design columns released beside synthetic data would reveal). The classifier is the simplest
 * that uses every interaction: each combination of the predictors' values (a cell) predicts the
 * most frequent level of the variable among the training records of that cell, and a cell unseen
 * in training predicts the training records' most frequent level. A numeric predictor enters as
 * its training-quantile bin. Accuracy is the share of test records predicted right.
 *
 * @module
 */
import { Rng } from "../random/rng.ts";

/** One predictor column: text values, or numbers cut into `bins` training-quantile bins. */
export type Predictor =
  | { readonly kind: "text"; readonly values: readonly string[] }
  | { readonly kind: "numeric"; readonly values: ArrayLike<number>; readonly bins: number };

/** The most frequent key of a count map (ties: the first counted). */
function mode(counts: Map<string, number>): string | undefined {
  let best: string | undefined;
  let most = 0;
  for (const [key, count] of counts) if (count > most) (best = key, most = count);
  return best;
}

/** The bin of v among `cuts` (ascending): the number of cuts ≤ v. */
function binOf(v: number, cuts: readonly number[]): number {
  let bin = 0;
  while (bin < cuts.length && cuts[bin] <= v) bin++;
  return bin;
}

/**
 * The held-out accuracy of the cell classifier of the module doc.
 *
 * @param target The variable to predict, one label per record.
 * @param predictors The predictor columns (none: every record predicts the overall mode).
 * @param options The share of records held out and the seed of the split.
 * @returns The accuracy on the held-out records.
 * @example Two cells that each determine the label: accuracy 1
 * ```ts
 * import assert from "node:assert/strict";
 * import { heldOutAccuracy } from "./held_out.ts";
 * const x = Array.from({ length: 40 }, (_, i) => (i % 2 ? "a" : "b"));
 * const y = x.map((v) => (v === "a" ? "yes" : "no"));
 * assert.equal(heldOutAccuracy(y, [{ kind: "text", values: x }], { seed: 1 }), 1);
 * ```
 */
export function heldOutAccuracy(
  target: readonly string[],
  predictors: readonly Predictor[],
  options: { readonly testShare?: number; readonly seed: number },
): number {
  const n = target.length;
  const share = options.testShare ?? 0.5;
  if (!(share > 0 && share < 1)) {
    throw new RangeError(`Invalid testShare: must lie in (0, 1): testShare=${share}`);
  }
  for (const p of predictors) {
    if (p.values.length !== n) {
      throw new RangeError(`Invalid predictor: ${p.values.length} values for ${n} records`);
    }
  }
  const rng = new Rng(options.seed);
  const test = Array.from({ length: n }, () => rng.uniform() < share);
  const cuts = predictors.map((p) => {
    if (p.kind === "text") return [];
    const train = Array.from(p.values).filter((_, i) => !test[i]).sort((a, b) => a - b);
    return Array.from(
      { length: p.bins - 1 },
      (_, b) => train[Math.min(train.length - 1, Math.floor(((b + 1) * train.length) / p.bins))],
    );
  });
  const key = (i: number) =>
    predictors.map((p, j) => p.kind === "text" ? p.values[i] : String(binOf(p.values[i], cuts[j])))
      .join("\u0000");
  const cells = new Map<string, Map<string, number>>();
  const overall = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    if (test[i]) continue;
    const k = key(i);
    const counts = cells.get(k) ?? new Map<string, number>();
    counts.set(target[i], (counts.get(target[i]) ?? 0) + 1);
    cells.set(k, counts);
    overall.set(target[i], (overall.get(target[i]) ?? 0) + 1);
  }
  const fallback = mode(overall);
  let right = 0;
  let tested = 0;
  for (let i = 0; i < n; i++) {
    if (!test[i]) continue;
    tested++;
    const counts = cells.get(key(i));
    if ((counts === undefined ? fallback : mode(counts)) === target[i]) right++;
  }
  return tested === 0 ? NaN : right / tested;
}
