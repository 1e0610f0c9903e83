import assert from "node:assert/strict";
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

/** Bit-for-bit equality of two maxima (values by Object.is, draws exactly). */
function assertSameMaxima(got: TermMaxima, want: TermMaxima, label: string): void {
  assert.equal(got.perRecord.length, want.perRecord.length, label);
  for (let i = 0; i < want.perRecord.length; i++) {
    if (!Object.is(got.perRecord[i], want.perRecord[i]) || got.argDraw[i] !== want.argDraw[i]) {
      assert.fail(
        `${label}: record ${i}: got ${got.perRecord[i]} at draw ${got.argDraw[i]}, want ` +
          `${want.perRecord[i]} at draw ${want.argDraw[i]}`,
      );
    }
  }
}

/** A problem: file, model, draws with two exact copies (ties) and α. */
function problem(
  seed: number,
  n: number,
  levels: readonly number[],
  K: number,
  S: number,
  concentration: number,
) {
  const rng = new Rng(seed);
  const model = new LatentClassModel(randomFile(n, levels, rng), K);
  const draws = randomDraws(model, S, concentration, rng);
  // Draw 3 repeats draw 1 and the last repeats draw 0: every group ties there.
  draws.copyWithin(3 * model.dim, model.dim, 2 * model.dim);
  draws.copyWithin((S - 1) * model.dim, 0, model.dim);
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
          // The bound is a few hundred ulp of the values, not a vacuous one.
          assert.ok(kernel.bound[h] < 1e-4 * Math.max(1, want), `${label}: E = ${kernel.bound[h]}`);
          if (kernel.bound[h] > 0) worst = Math.max(worst, error / kernel.bound[h]);
        });
      }
    }
    console.log(`largest |A − T| / E over the problems: ${worst.toFixed(4)}`);
    assert.ok(worst > 0, "the f32 values differ from the f64 ones somewhere");
  },
);

gpuTest(
  "`gpuTermMaxima()`: draws that repeat two θ tie every maximum, and the first draw wins",
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
      assert.equal(stats.nearTies, stats.groups, "every group is a near tie");
    }
  },
);

gpuTest("`gpuTermMaxima()`: tiles of groups and draws give the untiled answer", async (gpu) => {
  const { model, draws, alpha } = problem(31, 400, [3, 2, 4, 2], 5, 150, 1);
  // dim = 5·12 = 60 floats (240 bytes) per draw: 4 KiB bindings hold 17 draws and 204 groups'
  // results; 3 workgroups of 64 threads 192 groups.
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
