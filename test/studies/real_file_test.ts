import assert from "node:assert/strict";
import { parseCsv, readCsv } from "../../src/data/csv.ts";
import { footerOf, parseRealFileArgs, relativeDifference } from "../../src/cli/real_file.ts";
import {
  type CachedArm,
  hiCholTable,
  REAL_FILE_SETTINGS,
  realFileJson,
  released,
  runRealFile,
  usedRecords,
  withDesignColumns,
} from "../../src/studies/real_file.ts";
import { realFileMarkdown } from "../../src/studies/real_file_markdown.ts";

const NHANES = new URL("../../examples/nhanes.csv", import.meta.url);
const EXPECTED = new URL("../reference/nhanes_tables_expected.json", import.meta.url);

interface Cell {
  agecat: string;
  gender: string;
  count: number;
  countSE: number;
  mean: number;
  meanSE: number;
}

Deno.test("real file: the confidential hi_chol table equals R's survey on examples/nhanes.csv to 1e-8", async () => {
  const expected = JSON.parse(await Deno.readTextFile(EXPECTED)) as {
    n: number;
    dropped: number;
    cells: Cell[];
  };
  const { data, dropped } = usedRecords(await readCsv(NHANES.pathname));
  assert.equal(data.n, expected.n);
  assert.equal(dropped, expected.dropped);
  const table = hiCholTable(data);
  assert.equal(table.count.length, 15);
  // Our rows are R's cells in the same order (grand total, then each agecat's margin and cells).
  expected.cells.forEach((cell, r) => {
    assert.equal(table.labels[0][r], cell.agecat);
    assert.equal(table.labels[1][r], cell.gender);
    for (const key of ["count", "countSE", "mean", "meanSE"] as const) {
      const relative = Math.abs(table[key][r] - cell[key]) / Math.abs(cell[key]);
      assert.ok(relative < 1e-8, `${cell.agecat} × ${cell.gender} ${key}: ${relative}`);
    }
  });
  assert.ok(relativeDifference(table, expected.cells) < 1e-8);
});

Deno.test("real file: design columns are attached by row and a reordered dataset is refused", () => {
  const used = parseCsv(
    "agecat,gender,race,hi_chol,weight,stratum\n" +
      "0-19,male,white,0,10,1\n20-39,female,black,1,20,1\n60+,male,other,0,30,2\n" +
      "40-59,female,white,1,40,2\n",
    "used.csv",
  );
  const synthetic = new Map([
    ["agecat", ["0-19", "20-39", "60+", "40-59"]],
    ["gender", ["male", "female", "male", "female"]],
    ["race", ["black", "black", "white", "other"]],
    ["hi_chol", ["1", "0", "0", "1"]],
  ]);
  const joined = withDesignColumns(synthetic, used, "synthetic dataset 1");
  assert.deepEqual(joined.names, ["agecat", "gender", "race", "hi_chol", "weight", "stratum"]);
  const weight = joined.columns.get("weight")!;
  assert.ok(weight.kind === "numeric");
  assert.deepEqual([...weight.values], [10, 20, 30, 40]);
  const hiChol = joined.columns.get("hi_chol")!;
  assert.ok(hiChol.kind === "numeric");
  assert.deepEqual([...hiChol.values], [1, 0, 0, 1]);

  const swapped = new Map(synthetic);
  swapped.set("agecat", ["20-39", "0-19", "60+", "40-59"]);
  assert.throws(
    () => withDesignColumns(swapped, used, "synthetic dataset 2"),
    /synthetic dataset 2: public column agecat differs from the confidential record at row 1/,
  );
  const short = new Map([...synthetic].map(([name, column]) => [name, column.slice(1)]));
  assert.throws(() => withDesignColumns(short, used, "synthetic dataset 3"), /has 3 rows/);
});

Deno.test("real file: the command's flags", () => {
  const defaults = parseRealFileArgs([]);
  assert.equal(defaults.out, "docs/studies");
  assert.equal(defaults.cache, null);
  assert.equal(defaults.render, false);
  assert.equal(parseRealFileArgs(["--render"]).render, true);
  assert.deepEqual(defaults.settings, REAL_FILE_SETTINGS);
  const reduced = parseRealFileArgs(["--every", "20", "--draws", "200", "--epsilons", "10,20"]);
  assert.equal(reduced.settings.every, 20);
  assert.equal(reduced.settings.draws, 200);
  assert.deepEqual(reduced.settings.epsilons, [10, 20]);
  assert.throws(() => parseRealFileArgs(["--every", "0"]), /--every: must be a positive integer/);
  assert.throws(() => parseRealFileArgs(["--epsilons", "5,x"]), /--epsilons/);
  assert.equal(footerOf("# T\n\n---\na\n\n---\nWall time 1 s.\n"), "---\nWall time 1 s.");
  assert.throws(() => footerOf("# T\n"), /no footer/);
});

Deno.test({
  name: "real file: a reduced run (every 40th record, few draws) gives the document's shape",
  // NUTS chains and the Lipschitz pass run in worker threads that outlive one test's sanitizers.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const data = await readCsv(NHANES.pathname);
    const settings = {
      ...REAL_FILE_SETTINGS,
      epsilons: [20],
      m: 2,
      draws: 60,
      chains: 2,
      warmup: 60,
      every: 40,
    };
    const kept = new Map<string, CachedArm>();
    const cache = {
      get: (key: string) => Promise.resolve(kept.get(key)),
      set: (key: string, value: CachedArm) => Promise.resolve(void kept.set(key, value)),
    };
    const { result, seconds } = await runRealFile(data, settings, { cache });
    // A rerun of the same settings takes every arm from the cache: the same JSON at once.
    const stages: string[] = [];
    const again = await runRealFile(data, settings, {
      cache,
      onProgress: (_arm, stage) => stages.push(stage),
    });
    assert.deepEqual(stages, ["cached", "cached", "cached"]);
    assert.equal(realFileJson(again.result), realFileJson(result));
    assert.deepEqual(again.seconds, seconds);
    assert.equal(result.records.file, Math.ceil(data.n / 40));
    assert.equal(result.records.used + result.records.dropped, result.records.file);
    assert.deepEqual(result.arms.map((arm) => arm.key), [
      "unweighted",
      "lw-final-20",
      "histogram-20",
    ]);
    assert.deepEqual(Object.keys(seconds), ["unweighted", "lw-final-20", "histogram-20"]);
    assert.ok(result.arms.every(released), "every arm is released");
    const [unweighted, lw, histogram] = result.arms.filter(released);
    assert.equal(unweighted.targetEpsilon, null);
    assert.ok(lw.epsilon <= 20 * (1 + 1e-12), `LW_final ε = ${lw.epsilon}`);
    assert.equal(histogram.epsilon, 20);
    assert.equal(histogram.guarantee, "DP");
    assert.equal(histogram.finalFit, null);
    assert.deepEqual(histogram.outcomes, ["hi_chol"]);
    for (const arm of result.arms.filter(released)) {
      assert.equal(arm.n, result.records.used);
      assert.equal(arm.table.m, 2);
      assert.equal(arm.table.meanCovers.length, 15);
      // Public covariates and unsynthesised weights: the synthetic counts are the confidential ones.
      arm.table.count.forEach((count, r) => {
        const confidential = result.confidentialTable.count[r];
        assert.ok(Math.abs(count - confidential) <= 1e-9 * confidential);
      });
      assert.equal(arm.hiChol.synthesized[0].name, "hi_chol");
      assert.ok(arm.hiChol.propensity.mean.ratio >= 0);
    }
    assert.ok(unweighted.utility.variables.some((v) => v.name === "race"));
    assert.ok(!histogram.utility.variables.some((v) => v.name === "race"));

    // The JSON is plain data: it survives a round trip unchanged.
    const json = realFileJson(result);
    assert.equal(JSON.stringify(JSON.parse(json), null, 2) + "\n", json);

    const markdown = realFileMarkdown(result, "---\nfooter");
    for (
      const heading of [
        "# A real public-use file end to end: NHANES 2009–2010",
        "## Releases",
        "## Utility per variable: total variation distance",
        "## Propensity score: pMSE and S_pMSE",
        "## Utility model `hi_chol ~ agecat + gender + race`",
        "## Utility model `hi_chol ~ agecat + gender` (every synthesizer)",
        "## Survey table: hi_chol by agecat × gender, confidential vs synthetic",
        "### hi_chol prevalence (%), confidential vs synthetic",
        "## Findings",
      ]
    ) {
      assert.ok(markdown.includes(`\n${heading}\n`) || markdown.startsWith(heading), heading);
    }
    assert.match(markdown, /public domain/);
    assert.match(markdown, /ignores the PSU clustering \(ids = ~1\)/);
    assert.match(markdown, /every 40th record of the file: a reduced run/);
    assert.match(markdown, /\| LW_final ε = 20 \| race, hi_chol \| 20 \|/);
    assert.ok(markdown.endsWith("---\nfooter\n"));
    assert.doesNotMatch(markdown, /NaN|undefined|Infinity/);
  },
});
