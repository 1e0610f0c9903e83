/**
 * Issue 25: a study's report is a function of its committed JSON, and the verdicts a reviewer
 * rejected are decided again from it. `deno task study NAME --render` writes the markdown from the
 * JSON; these tests render every committed study and compare.
 *
 * @module
 */
import assert from "node:assert/strict";
import { STUDIES } from "../../src/studies/registry.ts";
import type { Study } from "../../src/studies/study_types.ts";

const DIR = new URL("../../docs/studies/", import.meta.url).pathname;

/** The committed report of a study and the report rendered again from its committed JSON. */
async function reports(
  name: keyof typeof STUDIES,
): Promise<{ committed: string; rendered: string }> {
  const committed = await Deno.readTextFile(`${DIR}${name}.md`);
  const result = JSON.parse(await Deno.readTextFile(`${DIR}${name}.json`));
  const footer = committed.slice(committed.lastIndexOf("---\nWall time")).trimEnd();
  const study = STUDIES[name].study as Study<unknown, unknown, unknown>;
  const rendered = study.markdown(result, footer);
  return { committed, rendered };
}

for (const name of Object.keys(STUDIES) as (keyof typeof STUDIES)[]) {
  Deno.test(`docs/studies/${name}.md is what its committed JSON renders to`, async () => {
    const { committed, rendered } = await reports(name);
    assert.equal(rendered, committed);
  });
}

/** The verdict cell of the verdict-table row whose first cell starts with `quantity`. */
function verdict(markdown: string, quantity: string): string {
  const row = markdown.split("\n").find((line) => line.startsWith(`| ${quantity}`));
  assert.ok(row !== undefined, `no row "${quantity}"`);
  return row.split(" | ").at(-1)!.replace(/ \|$/, "");
}

Deno.test("survey, Figure 7: FBS's means do not improve when the pooled ratio rises (was 'agrees')", async () => {
  const { rendered } = await reports("survey");
  const result = JSON.parse(await Deno.readTextFile(`${DIR}survey.json`));
  assert.ok(result.summary.arms.length > 1, "the study has the wide-target arm of Figure 7");
  assert.match(
    verdict(rendered, "Figure 7"),
    /^differs: FBS's means do not improve: the pooled median ratio rises by 0\.015 \(FBP's by 0\.063\)$/,
  );
});

Deno.test("survey: FBP's unweighted Δ_x is not comparable with the paper's, whatever the range", async () => {
  const { rendered } = await reports("survey");
  assert.match(verdict(rendered, "FBP unweighted Δ_x"), /^differs: not comparable: /);
});
