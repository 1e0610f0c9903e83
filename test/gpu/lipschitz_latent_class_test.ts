import assert from "node:assert/strict";
import { requestStop, stopFlag } from "../../src/data/worker_stop.ts";
import {
  gpuTermMaxima,
  packLatentClass,
  runLatentClassKernel,
} from "../../src/gpu/lipschitz_latent_class.ts";
import { latentClassMaximaPass } from "../../src/gpu/select_latent_class.ts";
import { parallelTermMaxima } from "../../src/mechanisms/parallel_latent_class.ts";
import {
  type EncodedFile,
  LatentClassModel,
  type TermMaxima,
} from "../../src/models/latent_class.ts";
import { sampleGamma } from "../../src/random/distributions.ts";
import { Rng } from "../../src/random/rng.ts";
import {
  latentClassLipschitz,
  latentClassMechanismModel,
} from "../../src/synthesis/latent_class_release.ts";
import { announceGpu, gpuTest } from "./_helpers.ts";

announceGpu("the latent class GPU Lipschitz tests");

/** n records over columns with the given levels; codes skewed so that patterns repeat. */
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

/** S draws of θ: π and every φ_kj from Dirichlet(c) (small c: very negative logs). */
function randomDraws(model: LatentClassModel, S: number, c: number, rng: Rng): Float64Array {
  const draws = new Float64Array(S * model.dim);
  const fill = (start: number, m: number) => {
    let total = 0;
    for (let l = 0; l < m; l++) total += draws[start + l] = sampleGamma(rng, c, 1) + 1e-300;
    for (let l = 0; l < m; l++) draws[start + l] /= total;
  };
  for (let s = 0; s < S; s++) {
    const at = s * model.dim;
    fill(at, model.K);
    for (let k = 0; k < model.K; k++) {
      model.levels.forEach((L, j) => fill(at + model.phiIndex(k, j, 0), L));
    }
  }
  return draws;
}

/** α with repeats, zeros, small values and ones. */
function randomAlpha(n: number, rng: Rng): Float64Array {
  const choices = [1, 0, 0.5, 0.03, 0.8];
  return Float64Array.from({ length: n }, () => {
    const r = rng.uniform();
    return r < 0.5 ? choices[Math.floor(rng.uniform() * choices.length)] : rng.uniform();
  });
}

/**
 * Bit-for-bit equality of two `TermMaxima`: maxima and minima by Object.is, their draws exactly.
 */
function assertSameMaxima(got: TermMaxima, want: TermMaxima, label: string): void {
  assert.equal(got.perRecord.length, want.perRecord.length, label);
  assert.equal(got.minimum.length, want.minimum.length, label);
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

/**
 * A problem: file, model, draws with two exact copies (ties, unless `ties` is false) and α.
 * `unusedLevel`: no record takes column 0's last level.
 */
function problem(
  seed: number,
  n: number,
  levels: readonly number[],
  K: number,
  S: number,
  concentration: number,
  { ties = true, unusedLevel = false } = {},
) {
  const rng = new Rng(seed);
  const file = randomFile(n, levels, rng);
  if (unusedLevel) {
    const codes = file.columns[0].codes;
    codes.forEach((x, i) => codes[i] = x === levels[0] - 1 ? 0 : x);
  }
  const model = new LatentClassModel(file, K);
  const draws = randomDraws(model, S, concentration, rng);
  if (ties) {
    // Draw 3 repeats draw 1 and the last repeats draw 0: every group ties there.
    draws.copyWithin(3 * model.dim, model.dim, 2 * model.dim);
    draws.copyWithin((S - 1) * model.dim, 0, model.dim);
  }
  return { model, draws, alpha: randomAlpha(n, rng) };
}

const SHAPES = [
  { label: "small", seed: 11, n: 80, levels: [2, 3, 5, 2], K: 4, S: 24, c: 1 },
  { label: "small, sparse φ", seed: 12, n: 60, levels: [4, 2, 7], K: 3, S: 17, c: 0.05 },
  {
    label: "medium",
    seed: 13,
    n: 1500,
    levels: [2, 9, 5, 3, 12, 4, 2, 6, 8, 3, 2, 5],
    K: 30,
    S: 64,
    c: 1,
  },
] as const;

gpuTest(
  "`gpuTermMaxima()` equals termMaxima bit for bit (α = 1 and mixed α < 1, tied draws)",
  async (gpu) => {
    for (const shape of SHAPES) {
      const { model, draws, alpha } = problem(
        shape.seed,
        shape.n,
        shape.levels,
        shape.K,
        shape.S,
        shape.c,
      );
      for (const weights of [null, alpha]) {
        const label = `${shape.label}, ${weights === null ? "α = 1" : "mixed α"}`;
        const { maxima, stats } = await gpuTermMaxima(gpu, model, draws, weights);
        assertSameMaxima(maxima, model.termMaxima(draws, weights), label);
        assert.equal(stats.skippedDraws, 0, label);
        console.log(
          `${label}: ${stats.groups} groups, ${stats.recomputed} recomputed in f64 ` +
            `(${stats.nearTies} near ties)`,
        );
      }
    }
  },
);

gpuTest(
  "`gpuTermMaxima()`: draws with a zero or NaN entry are evaluated in f64, the rest unchanged",
  async (gpu) => {
    const { model, draws, alpha } = problem(21, 200, [3, 4, 2, 5], 6, 20, 1);
    const used = model.patternCells[0]; // a level every record of pattern 0 uses
    draws[5 * model.dim + model.K + used] = 0;
    draws[9 * model.dim + 1] = NaN;
    draws[14 * model.dim + model.K + 2 * model.width + used] = 0;
    for (const weights of [null, alpha]) {
      const { maxima, stats } = await gpuTermMaxima(gpu, model, draws, weights);
      assert.equal(stats.skippedDraws, 3);
      const want = model.termMaxima(draws, weights);
      assert.ok(want.perRecord.some((v) => v === Infinity), "the NaN draw reaches a record");
      assertSameMaxima(maxima, want, weights === null ? "α = 1" : "mixed α");
    }
  },
);

gpuTest(
  "the kernel's f32 maxima lie within their bound E_g of the f64 maxima, and E_g is small",
  async (gpu) => {
    let worst = 0;
    for (const shape of SHAPES) {
      const { model, draws, alpha } = problem(
        shape.seed + 100,
        shape.n,
        shape.levels,
        shape.K,
        shape.S,
        shape.c,
      );
      for (const weights of [null, alpha]) {
        const label = `${shape.label}, ${weights === null ? "α = 1" : "mixed α"}`;
        const groups = model.termGroups(weights);
        const packed = packLatentClass(model, draws, groups);
        assert.equal(packed.drawIndex.length, shape.S, label);
        const kernel = await runLatentClassKernel(gpu, model, packed);
        const exact = model.termMaxima(draws, weights);
        const first = new Int32Array(groups.alpha.length).fill(-1);
        groups.of.forEach((g, i) => {
          if (first[g] < 0) first[g] = i;
        });
        packed.groups.forEach((g, h) => {
          assert.equal(kernel.flag[h], 0, label);
          const want = exact.perRecord[first[g]];
          const error = Math.abs(kernel.value[h] - want);
          assert.ok(
            error <= kernel.bound[h],
            `${label}: group ${g}: |A − T| = ${error} > E = ${kernel.bound[h]}`,
          );
          const wantMin = exact.minimum[first[g]];
          const minError = Math.abs(kernel.minValue[h] - wantMin);
          assert.ok(
            minError <= kernel.bound[h],
            `${label}: group ${g}: |L − T| = ${minError} > E = ${kernel.bound[h]}`,
          );
          assert.ok(kernel.minValue[h] <= kernel.minRunnerUp[h], label);
          assert.ok(kernel.runnerUp[h] <= kernel.value[h], label);
          // The bound is a few hundred ulp of the values, not a vacuous one.
          assert.ok(kernel.bound[h] < 1e-4 * Math.max(1, want), `${label}: E = ${kernel.bound[h]}`);
          if (kernel.bound[h] > 0) {
            worst = Math.max(worst, error / kernel.bound[h], minError / kernel.bound[h]);
          }
        });
      }
    }
    console.log(`largest |A − T| / E and |L − T| / E over the problems: ${worst.toFixed(4)}`);
    assert.ok(worst > 0, "the f32 values differ from the f64 ones somewhere");
  },
);

gpuTest(
  "`gpuTermMaxima()`: draws that repeat two θ tie every maximum and minimum; the first draw wins",
  async (gpu) => {
    const { model, draws, alpha } = problem(61, 300, [3, 5, 2, 4], 7, 12, 1);
    for (let s = 2; s < 12; s++) {
      draws.copyWithin(s * model.dim, (s % 2) * model.dim, (s % 2 + 1) * model.dim);
    }
    for (const weights of [null, alpha]) {
      const { maxima, stats } = await gpuTermMaxima(gpu, model, draws, weights);
      const want = model.termMaxima(draws, weights);
      assertSameMaxima(maxima, want, "repeated draws");
      assert.ok(want.argDraw.every((s) => s < 2));
      assert.ok(want.argMinDraw.every((s) => s < 2));
      assert.equal(stats.nearTies, stats.groups, "every group is a near tie");
      assert.equal(stats.minNearTies, stats.groups, "every group's minimum is a near tie");
    }
  },
);

gpuTest(
  "`gpuTermMaxima()`: a draw that nearly repeats the minimum's draw is a near tie, settled in f64",
  async (gpu) => {
    const { model, draws: base, alpha } = problem(81, 300, [3, 5, 2, 4], 7, 16, 1, {
      ties: false,
    });
    const { dim } = model;
    for (const weights of [null, alpha]) {
      const label = weights === null ? "α = 1" : "mixed α";
      const draws = base.slice();
      // The most common arg-min draw s*, copied to an earlier draw t (or the next one when s* =
      // 0) with every θ entry scaled by 1 − 2⁻³⁰: |u| grows by ~1e-9·α·(J + 1) there, far below
      // the f32 bound, so f32 cannot tell the two draws apart but f64 keeps s* the minimum.
      const star = mostCommon(model.termMaxima(draws, weights).argMinDraw);
      const t = star === 0 ? 1 : 0;
      for (let c = 0; c < dim; c++) draws[t * dim + c] = draws[star * dim + c] * (1 - 2 ** -30);
      const want = model.termMaxima(draws, weights);
      const atStar = want.argMinDraw.filter((s) => s === star).length;
      assert.ok(atStar > 0, `${label}: some minima stay at draw ${star}`);
      want.minimum.forEach((v, i) => {
        if (want.argMinDraw[i] === star) {
          const other = Math.abs(
            model.terms(
              draws.subarray(t * dim, (t + 1) * dim),
              weights,
              new Float64Array(model.n),
            )[i],
          );
          assert.ok(other > v && other - v < 1e-6, `${label}: record ${i}: a near tie`);
        }
      });
      const { maxima, stats } = await gpuTermMaxima(gpu, model, draws, weights);
      assertSameMaxima(maxima, want, label);
      assert.ok(stats.minNearTies > 0, `${label}: ${stats.minNearTies} near ties of the minimum`);
      assert.ok(stats.recomputed < stats.groups, `${label}: some groups are confirmed`);
      console.log(
        `${label}: ${atStar} records' minimum at draw ${star}, ${stats.minNearTies} of ` +
          `${stats.groups} groups near ties of the minimum, ${stats.recomputed} recomputed`,
      );
    }
  },
);

gpuTest(
  "`gpuTermMaxima()`: skipped draws (a zero θ entry) that tie the kernel's extremes: first wins",
  async (gpu) => {
    // No record takes column 0's last level, so a zero φ there changes no u but sends the draw to
    // the CPU.
    const S = 20;
    const { model, draws: base, alpha } = problem(91, 300, [3, 5, 2, 4], 6, S, 1, {
      ties: false,
      unusedLevel: true,
    });
    const { dim } = model;
    const unused = model.phiIndex(2, 0, model.levels[0] - 1);
    for (const weights of [null, alpha]) {
      // s* and a*: the most common arg-min and arg-max draws over draws 1 … S − 2.
      const inner = model.termMaxima(base.subarray(dim, (S - 1) * dim), weights);
      const star = mostCommon(inner.argMinDraw) + 1;
      const top = mostCommon(inner.argDraw) + 1;
      for (const minFirst of [true, false]) {
        const label = `${weights === null ? "α = 1" : "mixed α"}, skipped copy of the ` +
          `${
            minFirst ? "minimum's draw first, maximum's last" : "maximum's draw first, " +
              "minimum's last"
          }`;
        // Draw 0 and draw S − 1 copy s* and a* (one first, the other last), with the zero.
        const draws = base.slice();
        const [early, late] = minFirst ? [star, top] : [top, star];
        draws.copyWithin(0, early * dim, (early + 1) * dim);
        draws.copyWithin((S - 1) * dim, late * dim, (late + 1) * dim);
        draws[unused] = 0;
        draws[(S - 1) * dim + unused] = 0;
        const want = model.termMaxima(draws, weights);
        const { maxima, stats } = await gpuTermMaxima(gpu, model, draws, weights);
        assert.equal(stats.skippedDraws, 2, label);
        assert.ok(stats.recomputed < stats.groups, `${label}: some groups are confirmed`);
        assertSameMaxima(maxima, want, label);
        // The early copy takes the extreme it ties from the kernel's draw; the late one does not.
        const earlyArgs = minFirst ? want.argMinDraw : want.argDraw;
        const lateArgs = minFirst ? want.argDraw : want.argMinDraw;
        assert.ok(earlyArgs.some((s) => s === 0), `${label}: the skipped draw 0 wins a tie`);
        assert.ok(lateArgs.some((s) => s === late), `${label}: draw ${late} beats draw ${S - 1}`);
        assert.ok(lateArgs.every((s) => s !== S - 1), label);
      }
    }
  },
);

gpuTest("`gpuTermMaxima()`: tiles of groups and draws give the untiled answer", async (gpu) => {
  const { model, draws, alpha } = problem(31, 400, [3, 2, 4, 2], 5, 150, 1);
  // dim = 5·12 = 60 floats (240 bytes) per draw: 4 KiB bindings hold 17 draws and 128 groups'
  // 32-byte results; 3 workgroups of 64 threads 192 groups.
  const limits = { maxStorageBufferBindingSize: 4096, maxComputeWorkgroupsPerDimension: 3 };
  for (const weights of [null, alpha]) {
    const { maxima } = await gpuTermMaxima(gpu, model, draws, weights, { limits });
    assertSameMaxima(maxima, model.termMaxima(draws, weights), "tiled");
  }
});

gpuTest(
  "the latent class backend with `gpu` and `cpu-parallel` gives the one-thread result",
  async () => {
    const { model, draws, alpha } = problem(41, 300, [2, 6, 3, 4, 5], 8, 40, 1);
    const adapter = latentClassMechanismModel(model);
    const want = await latentClassLipschitz(model, adapter).compute(adapter, draws, { alpha });
    for (const backend of ["gpu", "cpu-parallel"] as const) {
      const lipschitz = latentClassLipschitz(model, adapter, backend);
      const got = await lipschitz.compute(adapter, draws, { alpha });
      assert.equal(lipschitz.name, backend === "gpu" ? "gpu" : "cpu");
      assert.deepEqual(got, want, backend);
    }
    const pass = latentClassMaximaPass("auto");
    assertSameMaxima(
      await pass.compute(model, draws, alpha),
      model.termMaxima(draws, alpha),
      "auto",
    );
    assert.equal(pass.name, "cpu", "auto takes no GPU for a problem this small");
  },
);

Deno.test("`parallelTermMaxima()` equals termMaxima bit for bit on 2 and 3 workers", async () => {
  const { model, draws, alpha } = problem(51, 500, [2, 9, 5, 3, 4], 10, 31, 0.3);
  draws[7 * model.dim + 4] = NaN;
  for (const threads of [2, 3]) {
    for (const weights of [null, alpha]) {
      const got = await parallelTermMaxima(model, draws, weights, { threads, minEvaluations: 0 });
      assertSameMaxima(got, model.termMaxima(draws, weights), `${threads} threads`);
    }
  }
});

Deno.test("`parallelTermMaxima()` ends when its stop flag is set: each worker's loop reads it", async () => {
  const { model, draws } = problem(53, 100, [2, 3], 3, 12, 0.3);
  const stop = stopFlag();
  requestStop(stop);
  await assert.rejects(
    parallelTermMaxima(model, draws, null, { threads: 2, minEvaluations: 0, stop }),
    /the work was stopped/,
  );
  assert.throws(() => model.termMaxima(draws, null, stop), { name: "StopRequested" });
});

Deno.test("`groupTerms()` gives a subset of groups exactly the values `terms()` gives", () => {
  const { model, draws, alpha } = problem(71, 400, [2, 9, 5, 3, 4, 2, 7], 9, 3, 0.5);
  const groups = model.termGroups(alpha);
  const ids = Array.from({ length: groups.alpha.length }, (_, g) => g).filter((g) => g % 3 !== 1);
  const subset = {
    pattern: Int32Array.from(ids, (g) => groups.pattern[g]),
    alpha: Float64Array.from(ids, (g) => groups.alpha[g]),
  };
  for (let s = 0; s < 3; s++) {
    const theta = draws.subarray(s * model.dim, (s + 1) * model.dim);
    const all = model.terms(theta, alpha, new Float64Array(model.n));
    const some = model.groupTerms(theta, subset, new Float64Array(ids.length));
    const first = new Map<number, number>();
    groups.of.forEach((g, i) => first.has(g) || first.set(g, i));
    ids.forEach((g, h) => assert.ok(Object.is(some[h], all[first.get(g)!]), `group ${g}`));
  }
});
