/**
 * The Bayesian network's S×n Lipschitz pass (issue 35, SPEC §13): max_s |u_i(θ_s)| and
 * min_s |u_i(θ_s)|, u_i = α_i log p(x_i | G_s, θ_s), on one CPU thread (`termMaxima`), on every
 * core (`parallelBayesNetMaxima`) and on the WebGPU adapter (`gpuBayesNetMaxima`: packing, the
 * f32 kernel and the f64 confirmation; and the kernel alone), on the NIST CRC MA 2019 file
 * encoded under its declared schema (n = 7,634, 24 columns). The draws are a real exact fit's
 * (`sampleBayesNet`, default prior, 4 streams), so structures vary between draws as they do in a
 * release. Every row checks that its extremes and draws equal the one-thread pass's bit for bit.
 * α is 1, or with `--alpha` mixed: a third of the records at 1, the rest uniform on (0, 1)
 * rounded to 0.05.
 *
 *     deno run -A bench/lipschitz_bayes_net.ts [--draws 1000] [--seed 1] [--alpha] [--no-gpu]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { readCsv } from "../src/data/csv.ts";
import { encodeFile } from "../src/data/file_encoding.ts";
import { readFileSchema } from "../src/data/file_schema.ts";
import { acquireGpu } from "../src/gpu/device.ts";
import {
  bayesNetGroups,
  gpuBayesNetMaxima,
  packBayesNet,
  runBayesNetKernel,
} from "../src/gpu/lipschitz_bayes_net.ts";
import { sampleBayesNet } from "../src/mcmc/bayes_net_exact.ts";
import { parallelBayesNetMaxima } from "../src/mechanisms/parallel_bayes_net.ts";
import { BayesNetModel } from "../src/models/bayes_net.ts";
import type { TermMaxima } from "../src/models/latent_class.ts";
import { Rng } from "../src/random/rng.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    draws: { type: "string", default: "1000" },
    seed: { type: "string", default: "1" },
    alpha: { type: "boolean", default: false },
    "no-gpu": { type: "boolean", default: false },
  },
});
const S = Number(values.draws);
const seed = Number(values.seed);
const rng = new Rng(seed + 1);

const root = new URL("../examples/crc/", import.meta.url);
const schema = await readFileSchema(new URL("ma2019.schema.json", root).pathname);
const file = encodeFile(await readCsv(new URL("ma2019.csv", root).pathname), schema);
const model = new BayesNetModel(file);
const T = model.order.length;
const alpha = values.alpha
  ? Float64Array.from(
    { length: model.n },
    () => rng.uniform() < 1 / 3 ? 1 : Math.max(0.05, Math.round(rng.uniform() * 20) / 20),
  )
  : null;

async function timed<T>(work: () => Promise<T> | T): Promise<[T, number]> {
  const start = performance.now();
  const result = await work();
  return [result, (performance.now() - start) / 1000];
}

const [fit, fitTime] = await timed(() =>
  sampleBayesNet(model, alpha, { seed, chains: 4, draws: Math.ceil(S / 4) })
);
const { draws, dim } = fit;
const groups = bayesNetGroups(model, alpha);
const packed = packBayesNet(model, draws, dim, groups);

function same(a: TermMaxima, b: TermMaxima): boolean {
  return a.perRecord.every((v, i) =>
    Object.is(v, b.perRecord[i]) && a.argDraw[i] === b.argDraw[i] &&
    Object.is(a.minimum[i], b.minimum[i]) && a.argMinDraw[i] === b.argMinDraw[i]
  );
}

const lookups = fit.S * model.n * T;
console.log(
  `n = ${model.n}, T = ${T} modelled columns, S = ${fit.S} draws (fit ${fitTime.toFixed(1)} s), ` +
    `dim = ${dim}, ${packed.keys} distinct tables, groups = ${groups.alpha.length}, ` +
    `α ${alpha === null ? "= 1" : "mixed"}, ${(lookups / 1e9).toFixed(2)}·10⁹ lookups, ` +
    `${navigator.hardwareConcurrency} logical cores`,
);
const rows: string[] = [];
const row = (what: string, seconds: number, exact: string) =>
  rows.push(
    `| ${what} | ${seconds.toFixed(2)} | ${(lookups / seconds / 1e9).toFixed(3)} | ${exact} |`,
  );
const [serial, serialTime] = await timed(() => model.termMaxima(draws, dim, alpha));
row("CPU, one thread (`termMaxima`)", serialTime, "reference");
const [parallel, parallelTime] = await timed(() =>
  parallelBayesNetMaxima(model, draws, dim, alpha)
);
row(
  `CPU, ${navigator.hardwareConcurrency} workers (\`parallelBayesNetMaxima\`)`,
  parallelTime,
  same(parallel, serial) ? "yes" : "**NO**",
);
const gpu = values["no-gpu"] ? null : await acquireGpu();
if (gpu !== null) {
  await runBayesNetKernel(gpu, model, packed); // compiles the pipeline
  const [, kernelTime] = await timed(() => runBayesNetKernel(gpu, model, packed));
  row(`GPU kernel alone (${gpu.description})`, kernelTime, "f32");
  const [result, gpuTime] = await timed(() => gpuBayesNetMaxima(gpu, model, draws, dim, alpha));
  row(
    "GPU + f64 confirmation (`gpuBayesNetMaxima`)",
    gpuTime,
    same(result.maxima, serial) ? "yes" : "**NO**",
  );
  console.log(
    `confirmation: ${result.stats.recomputed} of ${result.stats.groups} groups recomputed over ` +
      `every draw (${result.stats.nearTies} near ties), ${result.stats.skippedDraws} draws skipped`,
  );
}
console.log(
  "\n| pass | seconds | 10⁹ lookups/s | equals one thread |\n| --- | --- | --- | --- |",
);
console.log(rows.join("\n"));
