/**
 * Issue 35: a whole file in one release, end to end — `synthesizeFile` and `synth --schema`. The
 * synthetic file keeps the input's header and order, its cells re-encode under the declared
 * schema (declared levels, bounds, N/A markers), the declared rules hold, the weights sum to the
 * declared total, ε stays within its target; bad input exits 2 naming column and row, writing
 * nothing.
 */
import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { encodeFile } from "../../src/data/file_encoding.ts";
import { ruleViolations } from "../../src/data/file_rules.ts";
import { parseFileSchema } from "../../src/data/file_schema.ts";
import { synthesizeFile } from "../../src/synthesis/file_synthesis.ts";
import { runCli } from "../cli/_helpers.ts";
import { fileCsv, SCHEMA } from "./_file_fixture.ts";

const SETTINGS = { chains: 2, warmup: 100, draws: 150, classes: 4, seed: 5 } as const;

Deno.test("synthesizeFile: every column released under the declared schema and rules, ε within its target", async () => {
  const data = parseCsv(fileCsv(300), "file.csv");
  const schema = parseFileSchema(SCHEMA, "schema.json");
  const result = await synthesizeFile(data, schema, {
    ...SETTINGS,
    mechanism: "sw",
    epsilon: 20,
    m: 2,
    allowFlagged: true,
  });
  assert.equal(result.report.model, "latent-class");
  assert.equal(result.report.sampling, undefined, "the latent class model draws i.i.d.");
  assert.deepEqual(result.report.columns, data.names);
  assert.ok(result.report.epsilon <= 20, `ε = ${result.report.epsilon}`);
  assert.equal(result.report.epsilon, 2 * result.report.lipschitz! * 2);
  assert.equal(result.datasets.length, 2);
  for (const cells of result.datasets) {
    assert.deepEqual([...cells.keys()], data.names);
    // The cells re-encode: declared levels, bounds and N/A markers only.
    const csv = [
      data.names.join(","),
      ...cells.get("REGION")!.map((_, i) =>
        data.names.map((name) => cells.get(name)![i]).join(",")
      ),
    ].join("\n");
    const released = parseCsv(csv, "synthetic.csv");
    assert.equal(encodeFile(released, schema).n, 300);
    assert.deepEqual(ruleViolations(cells, schema), [{
      rule: "no income under 15",
      violations: 0,
    }]);
    const total = cells.get("WT")!.reduce((sum, w) => sum + Number(w), 0);
    assert.ok(Math.abs(total - 50_000) <= 300, `Σ WT = ${total}, declared 50,000`);
    assert.ok(cells.get("INCOME")!.every((cell) => cell === "N" || /^-?\d+\.0$/.test(cell)));
  }
});

Deno.test("synthesizeFile with given columns (x): kept as they are, the rest drawn given them, in a random order", async () => {
  // The attack: a file stored sorted by a confidential column (INCOME). Were record r of the
  // release drawn from confidential record r's given values and left in place, its row number
  // would give the record's income rank, and its given values would link to it.
  const text = fileCsv(300).trim().split("\n");
  const income = (row: string) => {
    const cell = row.split(",")[4];
    return cell === "N" ? -Infinity : Number(cell);
  };
  const sorted = [text[0], ...text.slice(1).sort((a, b) => income(a) - income(b))].join("\n");
  const data = parseCsv(sorted, "file.csv");
  const schema = parseFileSchema(SCHEMA, "schema.json");
  const result = await synthesizeFile(data, schema, {
    model: "bayes-net",
    given: ["REGION", "AGE"],
    mechanism: "sw",
    epsilon: 20,
    m: 1,
    chains: 2,
    warmup: 0,
    draws: 500,
    seed: 5,
  });
  assert.deepEqual(result.report.given, ["REGION", "AGE"]);
  assert.equal(result.report.sampling, "balanced");
  assert.ok(result.report.epsilon <= 20);
  const [cells] = result.datasets;
  const confidential = (name: string) => {
    const column = data.columns.get(name)!;
    return column.kind === "numeric"
      ? Array.from(column.values, String)
      : Array.from(column.codes, (code) => column.levels[code]);
  };
  for (const name of ["REGION", "AGE"]) {
    // Each confidential record's given values appear once: the same multiset …
    assert.deepEqual([...cells.get(name)!].sort(), confidential(name).sort(), name);
  }
  // … but not in the confidential (income-sorted) order.
  const ages = cells.get("AGE")!;
  const inPlace = confidential("AGE").filter((age, i) => age === ages[i]).length;
  assert.ok(inPlace < 60, `${inPlace} of 300 records in their confidential place`);
  assert.deepEqual(ruleViolations(cells, schema), [{ rule: "no income under 15", violations: 0 }]);
});

Deno.test("synthesizeFile's network draws i.i.d. records when asked, and the manifest says how", async () => {
  const data = parseCsv(fileCsv(60), "file.csv");
  const schema = parseFileSchema(SCHEMA, "schema.json");
  const run = (sampling?: "iid" | "balanced") =>
    synthesizeFile(data, schema, {
      ...SETTINGS,
      model: "bayes-net",
      mechanism: "unweighted",
      m: 1,
      draws: 500,
      ...(sampling === undefined ? {} : { sampling }),
    });
  const [iid, balanced] = [await run("iid"), await run()];
  assert.equal(iid.report.sampling, "iid");
  assert.equal(balanced.report.sampling, "balanced");
  // The same draw, another way of drawing records from it.
  assert.deepEqual(iid.diagnostics.drawIndices, balanced.diagnostics.drawIndices);
  assert.notDeepEqual(iid.datasets[0], balanced.datasets[0]);
});

Deno.test("synthesizeFile refuses given columns the network cannot take, naming the column", async () => {
  const data = parseCsv(fileCsv(60), "file.csv");
  const schema = parseFileSchema(SCHEMA, "schema.json");
  const run = (given: string[], model: "bayes-net" | "latent-class") =>
    synthesizeFile(data, schema, { ...SETTINGS, model, given, mechanism: "unweighted", m: 1 });
  await assert.rejects(() => run(["REGION"], "latent-class"), /Invalid x: .*Bayesian network/);
  await assert.rejects(() => run(["HEIGHT"], "bayes-net"), /no column "HEIGHT"/);
  await assert.rejects(() => run(["AGE", "AGE"], "bayes-net"), /"AGE" is named twice/);
});

Deno.test("`synth --schema`: a cell outside the declared schema exits 2 naming column and row, writing nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_file_" });
  try {
    await Deno.writeTextFile(`${dir}/schema.json`, JSON.stringify(SCHEMA));
    const bad = fileCsv(50).replace("\nr2,", "\nr9,");
    await Deno.writeTextFile(`${dir}/in.csv`, bad);
    const args = [
      `--data=${dir}/in.csv`,
      `--schema=${dir}/schema.json`,
      "--y=all",
      "--epsilon=10",
      `--out=${dir}/out`,
    ];
    const refused = await runCli("synth.ts", args);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /row 3.*column "REGION"|column "REGION".*row 3/);
    assert.doesNotMatch(refused.stderr, /r9/, "the message names no confidential value");
    await assert.rejects(Deno.stat(`${dir}/out`), Deno.errors.NotFound);
    const noEpsilon = await runCli("synth.ts", args.filter((a) => !a.startsWith("--epsilon")));
    assert.equal(noEpsilon.code, 2);
    assert.match(noEpsilon.stderr, /--epsilon: required/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
