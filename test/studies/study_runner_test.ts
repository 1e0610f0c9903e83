import assert from "node:assert/strict";
import { parseStudyArgs } from "../../src/cli/study.ts";
import { createModel } from "../../src/models/mod.ts";
import {
  fitSeedOf,
  interval95,
  replicateFits,
  replicateRng,
  summarize,
  totalFitStats,
  writeStudy,
} from "../../src/studies/study_runner.ts";

const SAMPLER = { chains: 2, warmup: 60, draws: 60 };

function poissonModel() {
  const y = Float64Array.from({ length: 30 }, (_, i) => 3 + (i % 5));
  return createModel("poisson", {
    n: 30,
    k: 1,
    y,
    x: new Float64Array(30).fill(1),
    coefficientNames: ["intercept"],
  });
}

Deno.test("`summarize()` gives R's type-7 quartiles, min, max and mean", () => {
  // R: quantile(c(7, 1, 4, 10, 2, 9), c(.25, .5, .75)) = 2.50 5.50 8.50
  const s = summarize([7, 1, 4, 10, 2, 9]);
  assert.deepEqual(
    [s.count, s.min, s.q25, s.median, s.q75, s.max, s.mean],
    [6, 1, 2.5, 5.5, 8.5, 10, 5.5],
  );
  assert.throws(() => summarize([]), RangeError);
  assert.throws(() => summarize([1, NaN]), /entry 1 is not finite/);
});

Deno.test("`interval95()` is the type-7 2.5% and 97.5% quantiles", () => {
  // 0..100: h = 1 + 100·0.025 = 3.5 → between the 3rd and 4th order statistics (2 and 3).
  const values = Array.from({ length: 101 }, (_, i) => 100 - i);
  assert.deepEqual(interval95(values), [2.5, 97.5]);
});

Deno.test("replicate streams: `replicateRng()` is Rng(seed).split(r) and the fit seed is a safe integer", () => {
  assert.equal(replicateRng(3, 4).uniform(), replicateRng(3, 4).uniform());
  assert.notEqual(replicateRng(3, 4).uniform(), replicateRng(3, 5).uniform());
  const seed = fitSeedOf(replicateRng(3, 4));
  assert.ok(Number.isSafeInteger(seed) && seed >= 0);
  assert.equal(seed, fitSeedOf(replicateRng(3, 4)));
  assert.notEqual(seed, fitSeedOf(replicateRng(3, 5)));
});

Deno.test("`replicateFits()` fits each weighting once: equal α bytes and censor reuse the fit", async () => {
  const model = poissonModel();
  const labels: string[] = [];
  const fits = replicateFits(model, 11, {
    sampler: SAMPLER,
    laplace: () => 0,
    onFit: (label) => labels.push(label),
  });
  const { context } = fits;
  const a = await context.fit({ alpha: null }, "unweighted");
  assert.equal(await context.fit({ alpha: null }, "again"), a);
  const half = new Float64Array(30).fill(0.5);
  const b = await context.fit({ alpha: half }, "half");
  assert.notEqual(b, a);
  assert.equal(await context.fit({ alpha: half.slice() }, "half copy"), b);
  const c = await context.fit({ alpha: half, censor: 2 }, "censored");
  assert.notEqual(c, b);
  assert.deepEqual(labels, ["unweighted", "half", "censored"]);
  assert.equal(fits.stats().fits, 3);
  // Memoised Lipschitz bounds equal a fresh computation.
  const first = await context.lipschitz.compute(model, b.draws, { alpha: half });
  assert.equal(await context.lipschitz.compute(model, b.draws, { alpha: half.slice() }), first);
  let max = 0;
  const ll = new Float64Array(30);
  for (let s = 0; s < b.S; s++) {
    model.logLik(b.draws.subarray(s * model.dim, (s + 1) * model.dim), ll);
    for (const l of ll) max = Math.max(max, Math.abs(0.5 * l));
  }
  assert.equal(first.overall, max);
});

Deno.test("`totalFitStats()` sums the replicates and gives the flagged shares", () => {
  const total = totalFitStats([
    { fits: 4, flagged: 1, flaggedLikelihood: 0, divergences: 2 },
    { fits: 6, flagged: 3, flaggedLikelihood: 1, divergences: 0 },
  ]);
  assert.deepEqual(total, {
    fits: 10,
    flagged: 4,
    flaggedLikelihood: 1,
    divergences: 2,
    flaggedShare: 0.4,
    flaggedLikelihoodShare: 0.1,
  });
});

Deno.test("`writeStudy()` writes <name>.json and <name>.md together", async () => {
  const dir = await Deno.makeTempDir();
  const result = { study: "x", seed: 1, replicates: 1, settings: {}, summary: {}, records: [] };
  await writeStudy(`${dir}/out`, result, "# x\n");
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${dir}/out/x.json`)), result);
  assert.equal(await Deno.readTextFile(`${dir}/out/x.md`), "# x\n");
});

Deno.test("`deno task study` arguments: a study name, defaults, and errors naming the flag", () => {
  const args = parseStudyArgs(["five"]);
  assert.deepEqual(
    [args.name, args.replicates, args.seed, args.out],
    ["five", 100, 1, "docs/studies"],
  );
  const quick = parseStudyArgs([
    "reweight",
    "--replicates=3",
    "--seed",
    "9",
    "--out=o",
    "--workers=0",
  ]);
  assert.deepEqual(
    [quick.name, quick.replicates, quick.seed, quick.out, quick.workers],
    ["reweight", 3, 9, "o", 0],
  );
  assert.throws(() => parseStudyArgs([]), /one of contraction, reweight, five/);
  assert.throws(() => parseStudyArgs(["nope"]), /one of contraction/);
  assert.throws(() => parseStudyArgs(["five", "--replicates=0"]), /--replicates/);
  assert.throws(() => parseStudyArgs(["five", "--seed=-1"]), /--seed/);
  assert.throws(() => parseStudyArgs(["five", "--bogus=1"]), /bogus/);
  // The real file's full size is one replicate; the GPU sampler by name only.
  assert.equal(parseStudyArgs(["real_file"]).replicates, 1);
  assert.equal(parseStudyArgs(["five"]).sampler, "nuts");
  assert.equal(parseStudyArgs(["five", "--sampler=gpu-hmc"]).sampler, "gpu-hmc");
  assert.equal(parseStudyArgs(["five"]).backend, "cpu");
  assert.equal(parseStudyArgs(["five", "--backend=gpu"]).backend, "gpu");
  assert.throws(() => parseStudyArgs(["five", "--backend=tpu"]), /--backend: must be cpu or gpu/);
  assert.throws(
    () => parseStudyArgs(["five", "--sampler=hmc"]),
    /--sampler: must be nuts or gpu-hmc/,
  );
});
