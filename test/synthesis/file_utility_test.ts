/**
 * The owner's utility measures of a whole file (`file_utility.ts`): a file scored against itself
 * is perfect on every measure, including a count whose ties at 0 fill the lowest percentile bins
 * (SDNist's rule would leave the synthetic zeros in no bin and report a large TVD for a perfect
 * copy; the CRC feature sets keep SDNist's rule, `test/stats/file_metrics_test.ts`).
 */
import assert from "node:assert/strict";
import { parseFileSchema } from "../../src/data/file_schema.ts";
import { fileUtility } from "../../src/synthesis/file_utility.ts";
import { fileCsv, SCHEMA } from "./_file_fixture.ts";

Deno.test("fileUtility() of a file against itself: k-marginal 1000, every column TVD 0", () => {
  const lines = fileCsv(300).trim().split("\n");
  const names = lines[0].split(",");
  const rows = lines.slice(1).map((line) => line.split(","));
  // KIDS has most of its mass at 0 once its N/A rows are set aside: zeros share the bottom rank.
  const cells = new Map(names.map((name, j) => [name, rows.map((row) => row[j])]));
  const kids = cells.get("KIDS")!.map((cell, i) => cell === "N" ? cell : i % 5 === 0 ? "1" : "0");
  cells.set("KIDS", kids);
  const utility = fileUtility(cells, cells, parseFileSchema(SCHEMA, "schema.json"));
  assert.equal(utility.kMarginal, 1000);
  for (const [column, tvd] of Object.entries(utility.columnTvd)) assert.equal(tvd, 0, column);
  assert.equal(utility.threeWay.meanTvd, 0);
});
