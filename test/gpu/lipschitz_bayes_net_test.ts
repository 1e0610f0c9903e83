import assert from "node:assert/strict";
import {
  bayesNetGroups,
  gpuBayesNetMaxima,
  packBayesNet,
  runBayesNetKernel,
} from "../../src/gpu/lipschitz_bayes_net.ts";
import { bayesNetMaximaPass } from "../../src/gpu/select_bayes_net.ts";
import type { TermMaxima } from "../../src/models/latent_class.ts";
import { bayesNetContext } from "../../src/synthesis/bayes_net_release.ts";
import {
  assertSameMaxima,
  bayesNetProblem,
  type BayesNetShape,
} from "../models/_bayes_net_draws.ts";
import { announceGpu, gpuTest } from "./_helpers.ts";

announceGpu("the Bayesian network GPU Lipschitz tests");

const SHAPES: readonly (BayesNetShape & { label: string })[] = [
  { label: "small", seed: 11, n: 80, levels: [2, 3, 5, 2], S: 24, c: 1 },
  {
    label: "small, one structure",
    seed: 14,
    n: 80,
    levels: [2, 3, 5, 2],
    S: 24,
    c: 1,
    fixed: true,
  },
  { label: "small, sparse tables", seed: 12, n: 60, levels: [4, 2, 7], S: 17, c: 0.05 },
  {
    label: "medium",
    seed: 13,
    n: 1500,
    levels: [2, 9, 5, 3, 12, 4, 2, 6],
    S: 48,
    c: 0.5,
    maxCells: 400,
  },
];

/** The draw that most records' `draws` (arg-max or arg-min draws) name, the first on ties. */
function mostCommon(draws: Int32Array): number {
  const counts = new Map<number, number>();
  for (const s of draws) counts.set(s, (counts.get(s) ?? 0) + 1);
  let best = -1;
  for (const [s, c] of counts) {
    if (best < 0 || c > counts.get(best)! || (c === counts.get(best)! && s < best)) best = s;
  }
  return best;
}

/** Copies draw `from` onto draw `to` with every table entry (not the parent sets) × `scale`. */
function copyScaled(
  draws: Float64Array,
  dim: number,
  T: number,
  from: number,
  to: number,
  scale = 1,
) {
  for (let c = 0; c < dim; c++) {
    draws[to * dim + c] = c < T ? draws[from * dim + c] : draws[from * dim + c] * scale;
  }
}

gpuTest(
  "`gpuBayesNetMaxima()` equals termMaxima bit for bit (α = 1 and mixed α, structures varying, tied draws)",
  async (gpu) => {
    for (const shape of SHAPES) {
      const { model, draws, dim, alpha } = bayesNetProblem(shape);
      const T = model.order.length;
      // Draw 3 repeats draw 1 and the last repeats draw 0: every group ties there.
      copyScaled(draws, dim, T, 1, 3);
      copyScaled(draws, dim, T, 0, shape.S - 1);
      for (const weights of [null, alpha]) {
        const label = `${shape.label}, ${weights === null ? "α = 1" : "mixed α"}`;
        const { maxima, stats } = await gpuBayesNetMaxima(gpu, model, draws, dim, weights);
        assertSameMaxima(maxima, model.termMaxima(draws, dim, weights), label);
        assert.equal(stats.skippedDraws, 0, label);
        const packed = packBayesNet(model, draws, dim, bayesNetGroups(model, weights));
        assert.ok(shape.fixed === true ? packed.keys === T : packed.keys > T, label);
        console.log(
          `${label}: ${stats.groups} groups, ${packed.keys} tables, ${stats.recomputed} ` +
            `recomputed in f64 (${stats.nearTies} near ties)`,
        );
      }
    }
  },
);

gpuTest(
  "`gpuBayesNetMaxima()`: draws with a −∞, NaN or positive table entry are evaluated in f64",
  async (gpu) => {
    const { model, draws, dim, alpha } = bayesNetProblem({
      seed: 21,
      n: 200,
      levels: [3, 4, 2, 5],
      S: 20,
      c: 1,
    });
    const T = model.order.length;
    const cellOf = (s: number, t: number, i: number) => {
      const theta = draws.subarray(s * dim, (s + 1) * dim);
      return s * dim + model.tableOffsets(theta)[t] + model.cellIndex(t, theta[t])[i];
    };
    draws[cellOf(5, T - 1, 0)] = -Infinity;
    draws[cellOf(9, 1, 3)] = NaN;
    draws[cellOf(14, 2, 7)] = 0.25;
    for (const weights of [null, alpha]) {
      const { maxima, stats } = await gpuBayesNetMaxima(gpu, model, draws, dim, weights);
      assert.equal(stats.skippedDraws, 3);
      const want = model.termMaxima(draws, dim, weights);
      assert.ok(want.perRecord.some((v) => v === Infinity), "the −∞ and NaN draws reach records");
      assertSameMaxima(maxima, want, weights === null ? "α = 1" : "mixed α");
    }
  },
);

gpuTest(
  "the kernel's f32 extremes lie within their bound E_g of the f64 ones, and E_g is small",
  async (gpu) => {
    let worst = 0;
    for (const shape of SHAPES) {
      const { model, draws, dim, alpha } = bayesNetProblem({ ...shape, seed: shape.seed + 100 });
      for (const weights of [null, alpha]) {
        const label = `${shape.label}, ${weights === null ? "α = 1" : "mixed α"}`;
        const groups = bayesNetGroups(model, weights);
        const packed = packBayesNet(model, draws, dim, groups);
        assert.equal(packed.drawIndex.length, shape.S, label);
        const kernel = await runBayesNetKernel(gpu, model, packed);
        const exact = model.termMaxima(draws, dim, weights);
        packed.groups.forEach((g, h) => {
          assert.equal(kernel.flag[h], 0, label);
          const i = groups.record[g];
          const error = Math.abs(kernel.value[h] - exact.perRecord[i]);
          const minError = Math.abs(kernel.minValue[h] - exact.minimum[i]);
          assert.ok(error <= kernel.bound[h], `${label}: group ${g}: |A − T| = ${error}`);
          assert.ok(minError <= kernel.bound[h], `${label}: group ${g}: |L − T| = ${minError}`);
          assert.ok(kernel.minValue[h] <= kernel.minRunnerUp[h], label);
          assert.ok(kernel.runnerUp[h] <= kernel.value[h], label);
          // A few ulp of the values per column, not a vacuous bound.
          const scale = Math.max(1, exact.perRecord[i]);
          assert.ok(kernel.bound[h] < 1e-5 * scale, `${label}: E = ${kernel.bound[h]}`);
          worst = Math.max(worst, error / kernel.bound[h], minError / kernel.bound[h]);
        });
      }
    }
    console.log(`largest |A − T| / E and |L − T| / E over the problems: ${worst.toFixed(4)}`);
    assert.ok(worst > 0, "the f32 values differ from the f64 ones somewhere");
  },
);

gpuTest(
  "`gpuBayesNetMaxima()`: draws that repeat two draws tie every extreme; the first draw wins",
  async (gpu) => {
    const { model, draws, dim, alpha } = bayesNetProblem({
      seed: 61,
      n: 300,
      levels: [3, 5, 2, 4],
      S: 12,
      c: 1,
    });
    for (let s = 2; s < 12; s++) copyScaled(draws, dim, model.order.length, s % 2, s);
    for (const weights of [null, alpha]) {
      const { maxima, stats } = await gpuBayesNetMaxima(gpu, model, draws, dim, weights);
      const want = model.termMaxima(draws, dim, weights);
      assertSameMaxima(maxima, want, "repeated draws");
      assert.ok(want.argDraw.every((s) => s < 2));
      assert.ok(want.argMinDraw.every((s) => s < 2));
      assert.equal(stats.nearTies, stats.groups, "every group is a near tie");
      assert.equal(stats.minNearTies, stats.groups, "every group's minimum is a near tie");
    }
  },
);

gpuTest(
  "`gpuBayesNetMaxima()`: a draw that nearly repeats the minimum's draw is a near tie, settled in f64",
  async (gpu) => {
    const problem = bayesNetProblem({ seed: 81, n: 300, levels: [3, 5, 2, 4], S: 16, c: 1 });
    const { model, dim, alpha } = problem;
    const T = model.order.length;
    for (const weights of [null, alpha]) {
      const label = weights === null ? "α = 1" : "mixed α";
      const draws = problem.draws.slice();
      // The most common arg-min draw s*, copied to an earlier draw t (or the next one when s* =
      // 0) with every table entry × (1 + 2⁻³⁰): |u| grows by ~1e-9·|u| there, far below the f32
      // bound, so f32 cannot tell the two draws apart but f64 keeps s* the minimum.
      const star = mostCommon(model.termMaxima(draws, dim, weights).argMinDraw);
      const t = star === 0 ? 1 : 0;
      copyScaled(draws, dim, T, star, t, 1 + 2 ** -30);
      const want = model.termMaxima(draws, dim, weights);
      const atStar = want.argMinDraw.filter((s) => s === star).length;
      assert.ok(atStar > 0, `${label}: some minima stay at draw ${star}`);
      const theta = draws.subarray(t * dim, (t + 1) * dim);
      want.minimum.forEach((v, i) => {
        if (want.argMinDraw[i] !== star || v === 0) return;
        const other = Math.abs(model.recordTerm(theta, i, weights === null ? 1 : weights[i]));
        assert.ok(other > v && other - v < 1e-6 * v, `${label}: record ${i}: a near tie`);
      });
      const { maxima, stats } = await gpuBayesNetMaxima(gpu, model, draws, dim, weights);
      assertSameMaxima(maxima, want, label);
      assert.ok(stats.minNearTies > 0, `${label}: ${stats.minNearTies} near ties of the minimum`);
      assert.ok(stats.recomputed < stats.groups, `${label}: some groups are confirmed`);
    }
  },
);

gpuTest(
  "`gpuBayesNetMaxima()`: skipped draws that tie the kernel's extremes: the first draw wins",
  async (gpu) => {
    const S = 20;
    const problem = bayesNetProblem({
      seed: 91,
      n: 300,
      levels: [3, 5, 2, 4],
      S,
      c: 1,
      unusedLevel: true,
    });
    const { model, dim, alpha } = problem;
    const T = model.order.length;
    for (const weights of [null, alpha]) {
      const inner = model.termMaxima(problem.draws.subarray(dim, (S - 1) * dim), dim, weights);
      const star = mostCommon(inner.argMinDraw) + 1;
      const top = mostCommon(inner.argDraw) + 1;
      for (const minFirst of [true, false]) {
        const label = `${weights === null ? "α = 1" : "mixed α"}, ${
          minFirst ? "min" : "max"
        } first`;
        const draws = problem.draws.slice();
        const [early, late] = minFirst ? [star, top] : [top, star];
        copyScaled(draws, dim, T, early, 0);
        copyScaled(draws, dim, T, late, S - 1);
        // A positive entry in column 0's last cell (its table has no parents; no record takes
        // that level) sends draws 0 and S − 1 to the CPU without changing any u.
        draws[T + 2] = 0.5;
        draws[(S - 1) * dim + T + 2] = 0.5;
        const want = model.termMaxima(draws, dim, weights);
        const { maxima, stats } = await gpuBayesNetMaxima(gpu, model, draws, dim, weights);
        assert.equal(stats.skippedDraws, 2, label);
        assert.ok(stats.recomputed < stats.groups, `${label}: some groups are confirmed`);
        assertSameMaxima(maxima, want, label);
        const earlyArgs = minFirst ? want.argMinDraw : want.argDraw;
        const lateArgs = minFirst ? want.argDraw : want.argMinDraw;
        assert.ok(earlyArgs.some((s) => s === 0), `${label}: the skipped draw 0 wins a tie`);
        assert.ok(lateArgs.some((s) => s === late), `${label}: draw ${late} beats draw ${S - 1}`);
        assert.ok(lateArgs.every((s) => s !== S - 1), label);
      }
    }
  },
);

gpuTest("`gpuBayesNetMaxima()`: tiles of groups and draws give the untiled answer", async (gpu) => {
  const { model, draws, dim, alpha } = bayesNetProblem({
    seed: 31,
    n: 800,
    levels: [4, 5, 3, 4, 5],
    S: 150,
    c: 1,
    maxCells: 24,
  });
  // 4 KiB bindings hold a few draws and 128 groups' 32-byte results; 3 workgroups of 64 threads
  // 192 groups.
  const limits = { maxStorageBufferBindingSize: 4096, maxComputeWorkgroupsPerDimension: 3 };
  assert.ok(dim * 4 * 8 < 4096 && dim * 4 * 150 > 4096, `dim = ${dim}: several draw tiles`);
  for (const weights of [null, alpha]) {
    const { maxima, stats } = await gpuBayesNetMaxima(gpu, model, draws, dim, weights, { limits });
    assert.ok(stats.groups > 192, `${stats.groups} groups: several group tiles`);
    assertSameMaxima(maxima, model.termMaxima(draws, dim, weights), "tiled");
  }
});

gpuTest(
  "the Bayesian network context with `gpu` and `cpu-parallel` gives the one-thread Δ",
  async () => {
    const { model, alpha } = bayesNetProblem({
      seed: 41,
      n: 300,
      levels: [2, 6, 3, 4, 5],
      S: 2,
      c: 1,
    });
    const options = { seed: 3, chains: 2, draws: 40 };
    const results = [];
    for (const backend of ["cpu", "gpu", "cpu-parallel"] as const) {
      const context = bayesNetContext(model, options, backend);
      const fit = await context.fit({ alpha }, "test");
      results.push(await context.lipschitz.compute(context.model, fit.draws, { alpha }));
      assert.equal(context.lipschitz.name, backend === "gpu" ? "gpu" : "cpu");
    }
    assert.deepEqual(results[1], results[0], "gpu");
    assert.deepEqual(results[2], results[0], "cpu-parallel");
    const { draws, dim } = bayesNetProblem({ seed: 42, n: 100, levels: [2, 3], S: 8, c: 1 });
    const pass = bayesNetMaximaPass("auto");
    const small = bayesNetProblem({ seed: 42, n: 100, levels: [2, 3], S: 8, c: 1 }).model;
    const want: TermMaxima = small.termMaxima(draws, dim, null);
    assertSameMaxima(await pass.compute(small, draws, dim, null), want, "auto");
    assert.equal(pass.name, "cpu", "auto takes no GPU for a problem this small");
  },
);
