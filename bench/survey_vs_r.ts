/**
 * Peer benchmark: survey tabulation (SPEC §8) by ppsynth and by R's `survey` package, in the
 * same run on the same CSV files. For each sample size n it simulates the survey paper's §4.1
 * population of N = max(100,000, 10·n) units (simulatePopulation) and a stratified PPS sample of
 * n units with replacement (ppsSample), writes it as CSV, and times the 27-cell table (counts
 * and mean salary by field × gender, both margins and the grand total, Taylor-linearised SEs
 * for the stratified with-replacement design):
 *
 * - ppsynth in-process: `surveyTable(tableInput(dataset, columns))` on the dataset read from
 *   the CSV (the CSV read is timed apart), median of `--repeats` runs after as many warm-up runs;
 * - ppsynth end-to-end: `deno task tabulate --data F.csv --y salary --weight w --strata field
 *   --by field,gender --method sample --out OUT.json` as a fresh process, median wall time of
 *   `--process-repeats` runs;
 * - R: `Rscript bench/survey_tables_bench.R F.csv` as a fresh process, `--process-repeats`
 *   times: the median of its compute time (svydesign and the 27 cells, timed inside R; CSV
 *   read and R startup excluded) and the median of the process's wall time.
 *
 * It checks that the 27 × 4 numbers of the `tabulate` output and of the in-process table agree
 * with R's (max relative difference; it fails if above 1e-8), writes
 * out/bench/survey_vs_r.json (with machine details and the date) and prints a markdown table.
 *
 *     deno task bench:survey [--sizes 1000,10000,100000] [--seed 1] [--repeats 5]
 *       [--process-repeats 3]
 *
 * @module
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { benchArgs, timed } from "./_common.ts";
import { datasetColumns, formatCsv, readCsv } from "../src/data/csv.ts";
import { Rng } from "../src/random/rng.ts";
import { ppsSample, sampleDataset } from "../src/survey/pps_sample.ts";
import { simulatePopulation } from "../src/survey/population.ts";
import { type SurveyTable, surveyTable, tableInput } from "../src/survey/tables.ts";

/** The largest relative difference from R's numbers the benchmark accepts. */
const TOLERANCE = 1e-8;

/** The repository root: commands run there, outputs go under its out/bench. */
const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
const OUT = "out/bench";

/** The columns of the table, as `deno task tabulate` names them. */
const COLUMNS = { y: "salary", weight: "w", strata: "field", by: ["field", "gender"] } as const;

/** The four numbers of a cell, in the order count, countSE, mean, meanSE. */
const VALUES = ["count", "countSE", "mean", "meanSE"] as const;

/** One cell: its labels and its four numbers (null for NaN, as in the JSON outputs). */
interface Cell {
  field: string;
  gender: string;
  count: number | null;
  countSE: number | null;
  mean: number | null;
  meanSE: number | null;
}

/** The results at one sample size. */
interface Row {
  n: number;
  populationSize: number;
  cells: number;
  ppsynthReadMs: number;
  ppsynthInProcessMs: number;
  ppsynthInProcessMinMs: number;
  ppsynthInProcessRunsMs: number[];
  ppsynthEndToEndSeconds: number;
  ppsynthEndToEndRunsSeconds: number[];
  rReadSeconds: number;
  rComputeSeconds: number;
  rComputeRunsSeconds: number[];
  rProcessSeconds: number;
  rProcessRunsSeconds: number[];
  maxRelDiffTabulate: number;
  maxRelDiffInProcess: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Simulates the population and the sample of size n and writes the sample as CSV. */
async function writeSample(csv: string, n: number, seed: number): Promise<number> {
  const rng = new Rng(seed).split(n);
  const populationSize = Math.max(100_000, 10 * n);
  const population = simulatePopulation(rng.split(0), { size: populationSize });
  const sample = ppsSample(population, n, rng.split(1));
  await Deno.writeTextFile(csv, formatCsv(datasetColumns(sampleDataset(sample))));
  return populationSize;
}

/** A table's cells as {@linkcode Cell}s (NaN as null). */
function tableCells(table: SurveyTable): Cell[] {
  const finite = (x: number) => Number.isFinite(x) ? x : null;
  return table.labels[0].map((field, r) => ({
    field,
    gender: table.labels[1][r],
    count: finite(table.count[r]),
    countSE: finite(table.countSE[r]),
    mean: finite(table.mean[r]),
    meanSE: finite(table.meanSE[r]),
  }));
}

/**
 * ppsynth in-process: the CSV read, `repeats` untimed warm-up runs (JIT), then `repeats` timed
 * runs of tableInput + surveyTable.
 */
async function inProcess(csv: string, repeats: number) {
  const readStarted = performance.now();
  const data = await readCsv(csv);
  const readMs = performance.now() - readStarted;
  let table = surveyTable(tableInput(data, COLUMNS));
  for (let k = 1; k < repeats; k++) table = surveyTable(tableInput(data, COLUMNS));
  const runsMs: number[] = [];
  for (let k = 0; k < repeats; k++) {
    const started = performance.now();
    table = surveyTable(tableInput(data, COLUMNS));
    runsMs.push(performance.now() - started);
  }
  return { readMs, runsMs, cells: tableCells(table) };
}

/** ppsynth end to end: `deno task tabulate` as a fresh process, `repeats` times. */
async function endToEnd(csv: string, n: number, repeats: number) {
  const out = `${OUT}/survey_tabulate_n${n}.json`;
  const runsSeconds: number[] = [];
  for (let k = 0; k < repeats; k++) {
    const { seconds } = await timed(Deno.execPath(), [
      "task",
      "--quiet",
      "tabulate",
      `--data=${csv}`,
      "--y=salary",
      "--weight=w",
      "--strata=field",
      "--by=field,gender",
      "--method=sample",
      `--out=${out}`,
    ], ROOT);
    runsSeconds.push(seconds);
  }
  const cells: Cell[] = JSON.parse(await Deno.readTextFile(`${ROOT}/${out}`));
  return { runsSeconds, cells };
}

/** R: bench/survey_tables_bench.R as a fresh process, `repeats` times. */
async function rSurvey(csv: string, repeats: number) {
  const processSeconds: number[] = [];
  const computeSeconds: number[] = [];
  const readSeconds: number[] = [];
  let result: { R: string; survey: string; cells: Cell[] } | undefined;
  for (let k = 0; k < repeats; k++) {
    const { seconds, stdout } = await timed("Rscript", ["bench/survey_tables_bench.R", csv], ROOT);
    const parsed = JSON.parse(stdout.trim().split("\n").at(-1)!);
    processSeconds.push(seconds);
    computeSeconds.push(parsed.computeSeconds);
    readSeconds.push(parsed.readSeconds);
    result = parsed;
  }
  return {
    processSeconds,
    computeSeconds,
    readSeconds,
    R: result!.R,
    survey: result!.survey,
    cells: result!.cells,
  };
}

/**
 * The largest relative difference |a − b| / max(|a|, |b|) over the 27 × 4 numbers of two
 * tables, cells matched by label (0 where both are 0 or both null). Throws if the cells differ.
 */
function maxRelDiff(ours: readonly Cell[], theirs: readonly Cell[]): number {
  if (ours.length !== theirs.length) {
    throw new Error(`cell counts differ: ppsynth ${ours.length}, R ${theirs.length}`);
  }
  const byLabel = new Map(theirs.map((cell) => [`${cell.field}\u0000${cell.gender}`, cell]));
  let worst = 0;
  for (const cell of ours) {
    const other = byLabel.get(`${cell.field}\u0000${cell.gender}`);
    if (other === undefined) throw new Error(`R has no cell ${cell.field} × ${cell.gender}`);
    for (const name of VALUES) {
      const a = cell[name];
      const b = other[name];
      if (a === null || b === null) {
        if (a !== b) worst = Infinity;
        continue;
      }
      const scale = Math.max(Math.abs(a), Math.abs(b));
      if (scale > 0) worst = Math.max(worst, Math.abs(a - b) / scale);
    }
  }
  return worst;
}

/**
 * The CPU model from /proc/cpuinfo, or null where it cannot be read. Deno reads /proc only with
 * --allow-all, so it is read by `cat` (--allow-run).
 */
async function cpuModel(): Promise<string | null> {
  try {
    const { stdout } = await timed("cat", ["/proc/cpuinfo"], ROOT);
    return stdout.match(/^model name\s*:\s*(.*)$/m)?.[1].trim() ?? null;
  } catch {
    return null;
  }
}

function table(rows: readonly Row[]): string {
  const head = "| n | N | ppsynth in-process (ms) | ppsynth end-to-end (s) | R compute (s) | " +
    "R process (s) | max rel diff |\n|---:|---:|---:|---:|---:|---:|---:|";
  const lines = rows.map((r) =>
    `| ${r.n} | ${r.populationSize} | ${r.ppsynthInProcessMs.toFixed(2)} | ` +
    `${r.ppsynthEndToEndSeconds.toFixed(2)} | ${r.rComputeSeconds.toFixed(3)} | ` +
    `${r.rProcessSeconds.toFixed(2)} | ` +
    `${Math.max(r.maxRelDiffTabulate, r.maxRelDiffInProcess).toExponential(1)} |`
  );
  return [head, ...lines].join("\n");
}

async function main(): Promise<void> {
  const values = benchArgs({
    sizes: "1000,10000,100000",
    seed: "1",
    repeats: "5",
    "process-repeats": "3",
  });
  const seed = Number(values.seed);
  const repeats = Number(values.repeats);
  const processRepeats = Number(values["process-repeats"]);
  const sizes = values.sizes.split(",").map(Number);
  for (const [name, value] of Object.entries({ repeats, "process-repeats": processRepeats })) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`Invalid --${name}: must be a positive integer: ${value}`);
    }
  }
  await Deno.mkdir(`${ROOT}/${OUT}`, { recursive: true });
  const rows: Row[] = [];
  let versions = { R: "", survey: "" };
  for (const n of sizes) {
    const csv = `${OUT}/survey_sample_n${n}.csv`;
    const populationSize = await writeSample(`${ROOT}/${csv}`, n, seed);
    console.error(`[bench] n = ${n}, N = ${populationSize}: ppsynth in-process`);
    const local = await inProcess(`${ROOT}/${csv}`, repeats);
    console.error(`[bench] n = ${n}: ppsynth deno task tabulate`);
    const cli = await endToEnd(csv, n, processRepeats);
    console.error(`[bench] n = ${n}: R survey`);
    const r = await rSurvey(csv, processRepeats);
    versions = { R: r.R, survey: r.survey };
    const row: Row = {
      n,
      populationSize,
      cells: r.cells.length,
      ppsynthReadMs: local.readMs,
      ppsynthInProcessMs: median(local.runsMs),
      ppsynthInProcessMinMs: Math.min(...local.runsMs),
      ppsynthInProcessRunsMs: local.runsMs,
      ppsynthEndToEndSeconds: median(cli.runsSeconds),
      ppsynthEndToEndRunsSeconds: cli.runsSeconds,
      rReadSeconds: median(r.readSeconds),
      rComputeSeconds: median(r.computeSeconds),
      rComputeRunsSeconds: r.computeSeconds,
      rProcessSeconds: median(r.processSeconds),
      rProcessRunsSeconds: r.processSeconds,
      maxRelDiffTabulate: maxRelDiff(cli.cells, r.cells),
      maxRelDiffInProcess: maxRelDiff(local.cells, r.cells),
    };
    rows.push(row);
    const diff = Math.max(row.maxRelDiffTabulate, row.maxRelDiffInProcess);
    if (!(diff <= TOLERANCE)) {
      throw new Error(
        `n = ${n}: ppsynth and R disagree: max relative difference ${diff} > ${TOLERANCE}`,
      );
    }
  }
  const report = {
    date: new Date().toISOString(),
    machine: {
      os: `${Deno.build.os} ${Deno.osRelease()}`,
      arch: Deno.build.arch,
      cpu: await cpuModel(),
      cores: navigator.hardwareConcurrency,
      deno: Deno.version.deno,
      v8: Deno.version.v8,
      ...versions,
    },
    settings: {
      seed,
      repeats,
      processRepeats,
      populationSize: "max(100000, 10·n)",
      design: "stratified by field, with replacement, weights w; 27 cells field × gender",
      tolerance: TOLERANCE,
    },
    rows,
  };
  await Deno.writeTextFile(`${ROOT}/${OUT}/survey_vs_r.json`, JSON.stringify(report, null, 2));
  console.log(table(rows));
}

if (import.meta.main) await main();
