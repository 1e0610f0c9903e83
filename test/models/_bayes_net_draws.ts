/**
 * Bayesian network problems for the Lipschitz pass tests (every core, the GPU): a random file,
 * draws whose structures vary (each column's parent set drawn uniformly from its candidates per
 * draw, so draws have different table offsets and lengths), α with repeats and zeros, and the
 * bit-for-bit comparison of two `TermMaxima`.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { EncodedFile } from "../../src/data/file_encoding.ts";
import { BayesNetModel } from "../../src/models/bayes_net.ts";
import type { TermMaxima } from "../../src/models/latent_class.ts";
import { sampleLogDirichlet } from "../../src/random/distributions.ts";
import { Rng } from "../../src/random/rng.ts";

/** n records over columns with the given levels; codes skewed so that records repeat. */
function randomFile(n: number, levels: readonly number[], rng: Rng): EncodedFile {
  return {
    n,
    columns: levels.map((L, j) => ({
      name: `c${j}`,
      levels: L,
      codes: Int32Array.from({ length: n }, () => Math.floor(rng.uniform() ** 2 * L)),
    })),
  };
}

/**
 * S draws padded to the longest: per column a parent set uniform over its candidates (the first
 * candidate at every draw when `fixed`), each table row log Dirichlet(c).
 */
function randomDraws(
  model: BayesNetModel,
  S: number,
  c: number,
  fixed: boolean,
  rng: Rng,
): { draws: Float64Array; dim: number } {
  const T = model.order.length;
  const structures = Array.from(
    { length: S },
    () => model.candidates.map((sets) => fixed ? 0 : Math.floor(rng.uniform() * sets.length)),
  );
  const lengths = structures.map((g) =>
    g.reduce((sum, gt, t) => sum + model.candidates[t][gt].cells, T)
  );
  const dim = Math.max(...lengths);
  const draws = new Float64Array(S * dim);
  structures.forEach((g, s) => {
    const theta = draws.subarray(s * dim, (s + 1) * dim);
    let at = T;
    g.forEach((gt, t) => {
      theta[t] = gt;
      const L = model.levelsAt(t);
      const row = new Float64Array(L);
      for (let k = 0; k < model.candidates[t][gt].configs; k++) {
        theta.set(sampleLogDirichlet(rng, new Float64Array(L).fill(c), row), at + k * L);
      }
      at += model.candidates[t][gt].cells;
    });
  });
  return { draws, dim };
}

/** α with repeats, zeros, small values and ones. */
function randomAlpha(n: number, rng: Rng): Float64Array {
  const choices = [1, 0, 0.5, 0.03, 0.8];
  return Float64Array.from({ length: n }, () => {
    const r = rng.uniform();
    return r < 0.5 ? choices[Math.floor(rng.uniform() * choices.length)] : rng.uniform();
  });
}

/** A problem's shape. */
export interface BayesNetShape {
  readonly seed: number;
  readonly n: number;
  readonly levels: readonly number[];
  readonly S: number;
  /** Dirichlet concentration of the tables (small: very negative logs). */
  readonly c: number;
  /** Every draw with the empty parent sets' structure. */
  readonly fixed?: boolean;
  readonly maxParents?: number;
  readonly maxCells?: number;
  /** No record takes column 0's last level. */
  readonly unusedLevel?: boolean;
  /** Given columns (`--x`): not modelled, parents of any column. */
  readonly given?: readonly number[];
}

/** A problem: the network (a = 0.3), its draws and their length, α. */
export function bayesNetProblem(shape: BayesNetShape) {
  const rng = new Rng(shape.seed);
  const file = randomFile(shape.n, shape.levels, rng);
  if (shape.unusedLevel === true) {
    const codes = file.columns[0].codes;
    codes.forEach((x, i) => codes[i] = x === shape.levels[0] - 1 ? 0 : x);
  }
  const model = new BayesNetModel(file, {
    dirichlet: 0.3,
    maxParents: shape.maxParents ?? 2,
    maxCells: shape.maxCells ?? 200,
  }, shape.given);
  const { draws, dim } = randomDraws(model, shape.S, shape.c, shape.fixed ?? false, rng);
  return { model, draws, dim, alpha: randomAlpha(shape.n, rng) };
}

/** Bit-for-bit equality of two `TermMaxima`: extremes by Object.is, their draws exactly. */
export function assertSameMaxima(got: TermMaxima, want: TermMaxima, label: string): void {
  assert.equal(got.perRecord.length, want.perRecord.length, label);
  for (let i = 0; i < want.perRecord.length; i++) {
    if (!Object.is(got.perRecord[i], want.perRecord[i]) || got.argDraw[i] !== want.argDraw[i]) {
      assert.fail(
        `${label}: record ${i}: got max ${got.perRecord[i]} at draw ${got.argDraw[i]}, want ` +
          `${want.perRecord[i]} at draw ${want.argDraw[i]}`,
      );
    }
    if (!Object.is(got.minimum[i], want.minimum[i]) || got.argMinDraw[i] !== want.argMinDraw[i]) {
      assert.fail(
        `${label}: record ${i}: got min ${got.minimum[i]} at draw ${got.argMinDraw[i]}, want ` +
          `${want.minimum[i]} at draw ${want.argMinDraw[i]}`,
      );
    }
  }
}
