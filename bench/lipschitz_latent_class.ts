/**
 * The latent class model's S×n Lipschitz pass (issue 35, SPEC §13): Δ_i = max_s |u_i(θ_s)| on
 * one CPU thread (`termMaxima`), on every core (`parallelTermMaxima`) and on the WebGPU adapter
 * (`gpuTermMaxima`: packing, the f32 kernel and the f64 confirmation; and the kernel alone), on
 * the NIST CRC MA 2019 file encoded under its declared schema (n = 7,634, J = 24 columns). Every
 * row checks that its per-record maxima and draws equal the one-thread pass's bit for bit.
 *
 * The draws stand in for a fit's: records are put in K classes at random once, and each draw is
 * π ~ Dirichlet(1 + n_k), φ_kj ~ Dirichlet(1 + n_kjl) (the conditional posterior given those
 * classes), so the logs have a fit's magnitudes without a Gibbs run. α is 1, or with `--alpha`
 * mixed: a third of the records at 1, the rest uniform on (0, 1) rounded to 0.05.
 *
 *     deno run -A bench/lipschitz_latent_class.ts [--draws 1000] [--classes 30] [--seed 1]
 *       [--alpha] [--no-gpu]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { readCsv } from "../src/data/csv.ts";
import { encodeFile } from "../src/data/file_encoding.ts";
import { readFileSchema } from "../src/data/file_schema.ts";
import { acquireGpu } from "../src/gpu/device.ts";
import {
  gpuTermMaxima,
  packLatentClass,
  runLatentClassKernel,
} from "../src/gpu/lipschitz_latent_class.ts";
import { parallelTermMaxima } from "../src/mechanisms/parallel_latent_class.ts";
import { LatentClassModel, type TermMaxima } from "../src/models/latent_class.ts";
import { sampleGamma } from "../src/random/distributions.ts";
import { Rng } from "../src/random/rng.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    draws: { type: "string", default: "1000" },
    classes: { type: "string", default: "30" },
    seed: { type: "string", default: "1" },
    alpha: { type: "boolean", default: false },
    "no-gpu": { type: "boolean", default: false },
  },
});
const S = Number(values.draws);
const K = Number(values.classes);
const rng = new Rng(Number(values.seed));

const root = new URL("../examples/crc/", import.meta.url);
const schema = await readFileSchema(new URL("ma2019.schema.json", root).pathname);
const file = encodeFile(await readCsv(new URL("ma2019.csv", root).pathname), schema);
const model = new LatentClassModel(file, K);
const J = model.levels.length;

// Classes at random, then the conditional posterior of θ given them, S times.
const z = Int32Array.from({ length: model.n }, () => Math.floor(rng.uniform() * K));
const draws = new Float64Array(S * model.dim);
const dirichlet = (at: number, counts: ArrayLike<number>) => {
  let total = 0;
  for (let l = 0; l < counts.length; l++) {
    total += draws[at + l] = sampleGamma(rng, 1 + counts[l], 1);
  }
  for (let l = 0; l < counts.length; l++) draws[at + l] /= total;
};
const classCounts = new Float64Array(K);
const cellCounts = new Float64Array(K * model.width);
for (let i = 0; i < model.n; i++) {
  classCounts[z[i]]++;
  const p = model.patternOf[i];
  for (let j = 0; j < J; j++) cellCounts[z[i] * model.width + model.patternCells[p * J + j]]++;
}
for (let s = 0; s < S; s++) {
  const at = s * model.dim;
  dirichlet(at, classCounts);
  for (let k = 0; k < K; k++) {
    for (let j = 0; j < J; j++) {
      const start = k * model.width + model.offsets[j];
      dirichlet(at + model.phiIndex(k, j, 0), cellCounts.subarray(start, start + model.levels[j]));
    }
  }
}
const alpha = values.alpha
  ? Float64Array.from(
    { length: model.n },
    () => rng.uniform() < 1 / 3 ? 1 : Math.max(0.05, Math.round(rng.uniform() * 20) / 20),
  )
  : null;
const groups = model.termGroups(alpha).alpha.length;

function same(a: TermMaxima, b: TermMaxima): boolean {
  return a.perRecord.every((v, i) =>
    Object.is(v, b.perRecord[i]) && a.argDraw[i] === b.argDraw[i] &&
    Object.is(a.minimum[i], b.minimum[i]) && a.argMinDraw[i] === b.argMinDraw[i]
  );
}

async function timed<T>(work: () => Promise<T> | T): Promise<[T, number]> {
  const start = performance.now();
  const result = await work();
  return [result, (performance.now() - start) / 1000];
}

const lookups = S * groups * K * (J + 1);
console.log(
  `n = ${model.n}, J = ${J}, Σ L_j = ${model.width}, patterns = ${model.patterns}, ` +
    `groups = ${groups}, K = ${K}, S = ${S}, α ${alpha === null ? "= 1" : "mixed"}, ` +
    `${(lookups / 1e9).toFixed(2)}·10⁹ lookups, ${navigator.hardwareConcurrency} logical cores`,
);
const rows: string[] = [];
const row = (what: string, seconds: number, exact: string) =>
  rows.push(
    `| ${what} | ${seconds.toFixed(2)} | ${(lookups / seconds / 1e9).toFixed(2)} | ${exact} |`,
  );
const [serial, serialTime] = await timed(() => model.termMaxima(draws, alpha));
row("CPU, one thread (`termMaxima`)", serialTime, "reference");
const [parallel, parallelTime] = await timed(() => parallelTermMaxima(model, draws, alpha));
row(
  `CPU, ${navigator.hardwareConcurrency} workers (\`parallelTermMaxima\`)`,
  parallelTime,
  same(parallel, serial) ? "yes" : "**NO**",
);
const gpu = values["no-gpu"] ? null : await acquireGpu();
if (gpu !== null) {
  const packed = packLatentClass(model, draws, model.termGroups(alpha));
  await runLatentClassKernel(gpu, model, packed); // compiles the pipeline
  const [, kernelTime] = await timed(() => runLatentClassKernel(gpu, model, packed));
  row(`GPU kernel alone (${gpu.description})`, kernelTime, "f32");
  const [result, gpuTime] = await timed(() => gpuTermMaxima(gpu, model, draws, alpha));
  row(
    "GPU + f64 confirmation (`gpuTermMaxima`)",
    gpuTime,
    same(result.maxima, serial) ? "yes" : "**NO**",
  );
  console.log(
    `confirmation: ${result.stats.recomputed} of ${result.stats.groups} groups recomputed over ` +
      `every draw (${result.stats.nearTies} near ties), ${result.stats.skippedDraws} draws skipped`,
  );
}
console.log(
  "\n| pass | seconds | 10⁹ nominal lookups/s | equals one thread |\n| --- | --- | --- | --- |",
);
console.log(rows.join("\n"));
