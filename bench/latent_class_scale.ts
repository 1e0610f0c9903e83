/**
 * How the whole-file synthesizer's cost grows (issue 35): Gibbs sweeps and the Lipschitz pass of
 * the latent class model on the CRC excerpt replicated r times (n = 7,634·r), at K classes, on
 * the first p columns of the file.
 *
 *     deno run -A bench/latent_class_scale.ts [--replicates 1,2,4] [--classes 15,30,60]
 *       [--columns 12,24] [--sweeps 20] [--draws 50]
 *
 * Per case: n, distinct records P, K, p, ms per sweep (one chain, α = 0.05 for every record, after
 * 5 unmeasured sweeps) and ms per draw of the single-thread Lipschitz pass (`termMaxima`). One
 * sweep is O(P·K·blocks + n·K) and one draw of the pass O(P·K·blocks): replicating the file adds
 * records but no patterns, so the pass's cost stays while the z draws grow with n.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { readCsv } from "../src/data/csv.ts";
import { encodeFile } from "../src/data/file_encoding.ts";
import { readFileSchema } from "../src/data/file_schema.ts";
import { sampleLatentClass } from "../src/mcmc/latent_class_gibbs.ts";
import { type EncodedFile, LatentClassModel } from "../src/models/latent_class.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** The file's first p columns, its records repeated r times. */
function replicated(file: EncodedFile, r: number, p: number): EncodedFile {
  return {
    n: file.n * r,
    columns: file.columns.slice(0, p).map((column) => {
      const codes = new Int32Array(file.n * r);
      for (let k = 0; k < r; k++) codes.set(column.codes, k * file.n);
      return { name: column.name, levels: column.levels, codes };
    }),
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      replicates: { type: "string", default: "1,2,4" },
      classes: { type: "string", default: "15,30,60" },
      columns: { type: "string", default: "12,24" },
      sweeps: { type: "string", default: "20" },
      draws: { type: "string", default: "50" },
    },
  });
  const list = (text: string) => text.split(",").map(Number);
  const data = await readCsv(`${ROOT}examples/crc/ma2019.csv`);
  const schema = await readFileSchema(`${ROOT}examples/crc/ma2019.schema.json`);
  const file = encodeFile(data, schema);
  const sweeps = Number(values.sweeps);
  const draws = Number(values.draws);
  console.log(
    `latent class scale on ${Deno.hostname()}, ${new Date().toISOString().slice(0, 10)}\n`,
  );
  console.log("| n | columns | distinct records | K | ms per sweep | ms per draw (Lipschitz) |");
  console.log("|---|---|---|---|---|---|");
  for (const p of list(values.columns)) {
    for (const r of list(values.replicates)) {
      for (const K of list(values.classes)) {
        const model = new LatentClassModel(replicated(file, r, p), K);
        const alpha = new Float64Array(model.n).fill(0.05);
        sampleLatentClass(model, alpha, { seed: 1, chains: 1, warmup: 0, draws: 5 });
        let start = performance.now();
        const fit = sampleLatentClass(model, alpha, {
          seed: 2,
          chains: 1,
          warmup: 0,
          draws: Math.max(sweeps, draws),
        });
        const perSweep = (performance.now() - start) / Math.max(sweeps, draws);
        start = performance.now();
        model.termMaxima(fit.draws.subarray(0, draws * model.dim), alpha);
        const perDraw = (performance.now() - start) / draws;
        console.log(
          `| ${model.n} | ${p} | ${model.patterns} | ${K} | ${perSweep.toFixed(1)} | ${
            perDraw.toFixed(1)
          } |`,
        );
        console.error(`latent_class_scale: n=${model.n} p=${p} K=${K} done`);
      }
    }
  }
}
