/**
 * Issue 36: `docs/adding-a-study.md` stays true to the registry. It sends a reader to the
 * registry's lines and the contract (`test/architecture/guides_test.ts` checks that each symbol
 * it pairs with a file occurs in that file), and it names every registered study.
 *
 * @module
 */
import assert from "node:assert/strict";
import { SINGLE_RUN_STUDIES, STUDIES } from "../../src/studies/registry.ts";

const GUIDE = new URL("../../docs/adding-a-study.md", import.meta.url);

Deno.test("docs/adding-a-study.md pairs the registry's lines and the contract with their files", async () => {
  const guide = await Deno.readTextFile(GUIDE);
  for (
    const pair of [
      "`STUDIES` in `src/studies/registry.ts`",
      "`SINGLE_RUN_STUDIES` in `src/studies/registry.ts`",
      "`Study` in `src/studies/study.ts`",
      "`SingleRunStudy` in `src/studies/study.ts`",
      "`StudyDocument` (`src/studies/study_document.ts`)",
    ]
  ) assert.ok(guide.includes(pair), `the guide does not say ${pair}`);
});

Deno.test("docs/adding-a-study.md names every registered study", async () => {
  const guide = await Deno.readTextFile(GUIDE);
  const words = new Set(guide.match(/[a-z_]+/g));
  for (const name of Object.keys(STUDIES)) assert.ok(words.has(name), `the guide omits ${name}`);
  for (const run of Object.values(SINGLE_RUN_STUDIES)) {
    assert.ok(guide.includes(`src/studies/${run.name}.ts`), `the guide omits ${run.name}`);
  }
});
