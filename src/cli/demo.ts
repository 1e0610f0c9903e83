/**
 * `deno task demo`: the main job on the bundled skewed counts (SPEC §9.2 mixture,
 * `examples/skewed_counts.csv`, n = 1000).
 *
 * Runs LW_final calibrated to ε = 8 with m = 3 and writes its release to `out/demo/`
 * (synthetic-1..3.csv, report.json, diagnostics.json); then runs Unweighted, SW (matched to
 * LW_final's Δ) and LW (calibrated to ε = 8) and prints a table comparing the four with the data
 * (Δ, ε, and the mean, median, 15th and 90th percentiles averaged over the m synthetic
 * datasets), also written to `out/demo/comparison.md`, after the unweighted posterior summary
 * (mean, sd, 5% and 95% quantiles, R̂, bulk ESS) and its Lipschitz bound Δ_x.
 *
 * @module
 */
import { formatCsv, readCsv } from "../data/csv.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import type { ParamSummary } from "../mcmc/fit.ts";
import { mean } from "../stats/mean.ts";
import { SynthesisSpec } from "../synthesis/spec.ts";
import { type SynthesisResult, synthesize } from "../synthesis/synthesize.ts";
import { progress } from "./progress.ts";
import { runCommand } from "./run_command.ts";

const DATA = new URL("../../examples/skewed_counts.csv", import.meta.url).pathname;
const OUT = "out/demo";
const SEED = 20221;
const EPSILON = 8;
const M = 3;

function run(data: Awaited<ReturnType<typeof readCsv>>, fields: Record<string, unknown>) {
  const spec = SynthesisSpec.parse({ y: "y", model: "negbin", m: M, seed: SEED, ...fields });
  const shown = progress(spec.mechanism);
  return synthesize(data, spec, {
    onNote: (line) => {
      shown.end();
      console.error(line);
    },
    onProgress: shown.update,
  }).finally(() => shown.end());
}

function average(result: SynthesisResult, key: "mean" | "median" | "q15" | "q90"): number {
  return mean(result.diagnostics.utility.map((u) => u.synthetic[key]));
}

function pad(cell: string | number, column: number): string {
  const text = typeof cell === "number" ? cell.toPrecision(4) : cell;
  return column === 0 ? text.padEnd(22) : text.padStart(10);
}

function formatRow(cells: (string | number)[]): string {
  return "| " + cells.map((c) => typeof c === "number" ? c.toFixed(2) : c).join(" | ") + " |";
}

async function main(): Promise<void> {
  const data = await readCsv(DATA);
  console.log(
    `ppsynth demo: ${DATA.split("/").slice(-2).join("/")}, n = ${data.n}, ` +
      `target ε = ${EPSILON} for m = ${M} datasets, seed ${SEED}`,
  );
  const lwFinal = await run(data, { mechanism: "lw-final", epsilon: EPSILON });
  const files = new Map<string, string>();
  lwFinal.datasets.forEach((c, j) =>
    files.set(`synthetic-${j + 1}.csv`, formatCsv(c, { escapeFormulas: true }))
  );
  files.set("report.json", JSON.stringify(lwFinal.report, null, 2) + "\n");
  files.set("diagnostics.json", JSON.stringify(lwFinal.diagnostics, null, 2) + "\n");

  const lw = await run(data, { mechanism: "lw", epsilon: EPSILON });
  const sw = await run(data, { mechanism: "sw", matchLipschitz: lwFinal.report.lipschitz });
  const unweighted = await run(data, { mechanism: "unweighted" });

  const posterior = unweighted.diagnostics.fit!;
  console.log(
    "Unweighted negative binomial posterior (the paper's likelihood, the default student-t coefficient prior, NUTS):",
  );
  console.log(["parameter", "mean", "sd", "q5", "q95", "R̂", "bulk ESS"].map(pad).join(""));
  for (const [name, s] of Object.entries(posterior.summary as Record<string, ParamSummary>)) {
    console.log([name, s.mean, s.sd, s.q5, s.q95, s.rhat, Math.round(s.essBulk)].map(pad).join(""));
  }
  console.log(
    `Δ_x = max over draws and records of |ℓ_i| = ${unweighted.report.lipschitz!.toFixed(4)}\n`,
  );

  const confidential = lwFinal.diagnostics.utility[0].confidential;
  const rows = [
    "| synthesizer | Δ | ε (m = 3) | mean | median | q15 | q90 |",
    "|---|---:|---:|---:|---:|---:|---:|",
    formatRow([
      "data",
      "",
      "",
      confidential.mean,
      confidential.median,
      confidential.q15,
      confidential.q90,
    ]),
    ...([["Unweighted", unweighted], ["SW", sw], ["LW", lw], ["LW_final", lwFinal]] as const).map((
      [label, result],
    ) =>
      formatRow([
        label,
        result.report.lipschitz!,
        result.report.epsilon,
        average(result, "mean"),
        average(result, "median"),
        average(result, "q15"),
        average(result, "q90"),
      ])
    ),
  ];
  const fit = lwFinal.diagnostics.fit!;
  const notes = [
    `Unweighted Δ_x = ${lwFinal.diagnostics.unweightedLipschitz!.toFixed(3)}; LW_final: g = ` +
    `${lwFinal.diagnostics.g?.toFixed(4)}, k = ${lwFinal.diagnostics.k ?? "none accepted"}, ` +
    `${lwFinal.diagnostics.refits.length} fits; final fit R̂ max ${fit.rhatMax.toFixed(3)}, ` +
    `bulk ESS min ${Math.round(fit.essBulkMin)}, ${fit.divergences} divergences.`,
    "Synthetic statistics are averages over the m = 3 datasets.",
  ];
  files.set("comparison.md", [...rows, "", ...notes].join("\n") + "\n");
  await writeFilesAtomically(OUT, files);
  console.log(rows.join("\n"));
  console.log(notes.join("\n"));
  console.log(`wrote ${OUT}/synthetic-1..${M}.csv, report.json, diagnostics.json, comparison.md`);
}

if (import.meta.main) await runCommand("demo", main);
