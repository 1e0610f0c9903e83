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
