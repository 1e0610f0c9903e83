import assert from "node:assert/strict";
import { join } from "node:path";
import { parseFileSchema } from "../../src/data/file_schema.ts";
import { runCliInProcess, runCliOk } from "./_helpers.ts";

Deno.test("`deno task schema` drafts a schema, warns of data-derived levels, refuses bad input", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const csv = join(dir, "f.csv");
    await Deno.writeTextFile(csv, "REGION,SEX,INC\nx,1,5.0\ny,2,N\nx,2,-3.5\n");
    const codebook = join(dir, "c.json");
    await Deno.writeTextFile(codebook, JSON.stringify({ SEX: { values: { "1": "M", "2": "F" } } }));
    const out = join(dir, "s.json");
    const stderr = await runCliOk("schema.ts", [
      "--data",
      csv,
      "--codebook",
      codebook,
      "--out",
      out,
    ]);
    const schema = parseFileSchema(JSON.parse(await Deno.readTextFile(out)), out);
    assert.equal(schema.geography, "REGION");
    assert.deepEqual(schema.columns.map((c) => [c.name, c.kind, c.source]), [
      ["REGION", "categorical", "data"],
      ["SEX", "categorical", "codebook"],
      ["INC", "amount", "data"],
    ]);
    assert.equal(schema.columns[2].notApplicable, "N");
    assert.match(
      stderr,
      /warning: column "REGION": its levels were read from the confidential data/,
    );
    assert.match(stderr, /warning: column "INC": its bounds were read from the confidential data/);
    assert.doesNotMatch(stderr, /column "SEX"/);
    // The refusals run the command's main in-process (issue 36); the draft above is a subprocess.
    const missing = await runCliInProcess("schema.ts", [
      "--data",
      join(dir, "none.csv"),
      "--out",
      out,
    ]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /none\.csv: no such file/);
    await Deno.writeTextFile(codebook, "{");
    const bad = await runCliInProcess("schema.ts", ["--data", csv, "--codebook", codebook]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /c\.json: not valid JSON/);
    assert.equal((await runCliInProcess("schema.ts", ["--out", out])).code, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
