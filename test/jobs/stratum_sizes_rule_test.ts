/**
 * Issue 36: the stratum-size rule of a table request (`missingStratumSizes`,
 * `src/survey/table_methods.ts`) as the API's request rules and the release policy apply it: FBP
 * needs the public sizes for any table, from the request or (registered data) the policy.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import { NEIGHBOURS } from "../../src/mechanisms/privacy.ts";
import { checkTable, type DatasetPolicy } from "../../src/jobs/release_policy.ts";
import { PolicyError } from "../../src/jobs/domain_errors.ts";
import { tableRules, TableSpec } from "../../src/jobs/table_request.ts";

const SPEC = TableSpec.parse({
  by: ["a", "b"],
  method: "fbp",
  epsilon: 1,
  y: "y",
  weight: "w",
  strata: "s",
});

/** The fields `tableRules` flags, in order. */
function flagged(spec: TableSpec, sizesFromPolicy = false): string[] {
  const paths: string[] = [];
  const context = {
    addIssue: (issue: { path?: (string | number)[] }) => paths.push(`${issue.path?.[0]}`),
  } as unknown as z.RefinementCtx;
  tableRules(spec, context, sizesFromPolicy);
  return paths;
}

const POLICY: DatasetPolicy = {
  publicColumns: ["a", "b", "s"],
  bounds: { y: [1, 10], w: [1, 100] },
  stratumSizes: {},
  levels: { a: ["a1", "a2"], b: ["b1", "b2"], s: ["s1", "s2"] },
  sizePublic: true,
  neighbours: NEIGHBOURS,
};

Deno.test("the request rules: fbp needs stratumSizes unless the policy gives them; fbs and laplace do not here", () => {
  assert.deepEqual(flagged(SPEC), ["stratumSizes"]);
  assert.deepEqual(flagged(SPEC, true), []);
  assert.deepEqual(flagged({ ...SPEC, stratumSizes: { s1: 10, s2: 20 } }), []);
  assert.deepEqual(flagged({ ...SPEC, method: "fbs" }), []);
  assert.deepEqual(flagged({ ...SPEC, method: "laplace" }), []);
});

Deno.test("the release policy: an fbp table on data without declared sizes of its strata is refused (422 stratum_sizes_required), with them it runs on the policy's sizes", () => {
  assert.throws(
    () => checkTable(POLICY, SPEC),
    (error: unknown) =>
      error instanceof PolicyError && error.code === "stratum_sizes_required" &&
      error.field === "strata",
  );
  const sizes = { s1: 10, s2: 20 };
  const checked = checkTable({ ...POLICY, stratumSizes: { s: sizes } }, SPEC);
  assert.deepEqual(checked.stratumSizes, sizes);
  assert.deepEqual(checkTable(POLICY, { ...SPEC, method: "fbs" }).stratumSizes, undefined);
});
