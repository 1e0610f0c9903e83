import assert from "node:assert/strict";
import { renderStudy, type StudyDocument } from "../../src/studies/study_document.ts";

const DOCUMENT: StudyDocument = { verdicts: [], values: { n: "100" }, tables: {}, figures: {} };

Deno.test("renderStudy: the filled template, a blank line and the footer", () => {
  assert.equal(renderStudy("R = {{n}}\n", DOCUMENT, "---\nfooter"), "R = 100\n\n---\nfooter\n");
});

Deno.test("renderStudy: with no footer, the filled template alone, ending in one newline", () => {
  assert.equal(renderStudy("R = {{n}}\n", DOCUMENT, ""), "R = 100\n");
  assert.equal(renderStudy("R = {{n}}", DOCUMENT, ""), "R = 100\n");
});
