/**
 * Issue 24, "weights that do not leak": a survey file's weight, strata and PSU columns predict
 * confidential variables (in NHANES, race on held-out records from age group and gender alone,
 * then adding the exam weight's ventile, then stratum and PSU), so an owner who names them in
 * `publicColumns` must also declare `discloseDesign: true`. The attack: register the NHANES file
 * with its design declared and the weight public, then read race off the released weights.
 */
import assert from "node:assert/strict";
import { readCsv } from "../../src/data/csv.ts";
import { type Dataset, getColumn } from "../../src/data/dataset.ts";
import { PolicyError } from "../../src/jobs/domain_errors.ts";
import {
  createPolicy,
  type DatasetPolicy,
  type PolicyDeclaration,
  surveyDesignOf,
} from "../../src/jobs/release_policy.ts";
import { policyOf } from "../../src/jobs/sqlite_datasets.ts";
import { heldOutAccuracy, type Predictor } from "../../src/stats/held_out.ts";

const NHANES = new URL("../../examples/nhanes.csv", import.meta.url).pathname;
const DESIGN = { weight: "weight", strata: "stratum", psu: "psu" } as const;
const ATTACK: PolicyDeclaration = {
  surveyDesign: DESIGN,
  publicColumns: ["agecat", "gender", "weight"],
};

/** Asserts that registering `declaration` on `data` is refused as an invalid policy at `field`. */
function assertInvalid(
  data: Dataset,
  declaration: PolicyDeclaration,
  field: string,
  message?: RegExp,
): void {
  assert.throws(
    () => createPolicy(declaration, data),
    (error: unknown) => {
      assert.ok(error instanceof PolicyError, String(error));
      assert.equal(error.status, 400);
      assert.equal(error.code, "invalid_policy");
      assert.equal(error.field, field);
      if (message !== undefined) assert.match(error.message, message);
      return true;
    },
  );
}

/** A column's cells as text (the held-out classifier's text predictors). */
function text(data: Dataset, name: string): string[] {
  const column = getColumn(data, name);
  return column.kind === "numeric"
    ? Array.from(column.values, String)
    : Array.from(column.codes, (code) => column.levels[code]);
}

Deno.test("the attack's premise: NHANES's weight, strata and PSU predict race on held-out records", async () => {
  const data = await readCsv(NHANES);
  const race = text(data, "race");
  const known: Predictor[] = ["agecat", "gender"].map((name) => ({
    kind: "text",
    values: text(data, name),
  }));
  const weight = getColumn(data, "weight");
  assert.equal(weight.kind, "numeric");
  const ventile: Predictor = { kind: "numeric", values: weight.values, bins: 20 };
  const design: Predictor[] = ["stratum", "psu"].map((name) => ({
    kind: "text",
    values: text(data, name),
  }));
  const accuracy = (predictors: Predictor[]) => heldOutAccuracy(race, predictors, { seed: 1 });
  const publicOnly = accuracy(known);
  const withWeight = accuracy([...known, ventile]);
  const withDesign = accuracy([...known, ventile, ...design]);
  assert.ok(publicOnly < 0.55, `agecat and gender alone: ${publicOnly}`);
  assert.ok(withWeight > publicOnly + 0.15, `adding the weight: ${publicOnly} → ${withWeight}`);
  assert.ok(withDesign >= withWeight, `adding stratum and PSU: ${withWeight} → ${withDesign}`);
});

Deno.test("a declared design column named public is refused without discloseDesign", async () => {
  const data = await readCsv(NHANES);
  assertInvalid(
    data,
    ATTACK,
    "publicColumns.2",
    /"weight" is a survey design column.*predict confidential variables.*NHANES.*discloseDesign: true/,
  );
  assertInvalid(data, { ...ATTACK, discloseDesign: false }, "publicColumns.2");
  // The first public design column is named, whichever role it has.
  assertInvalid(
    data,
    { surveyDesign: DESIGN, publicColumns: ["agecat", "psu", "stratum"] },
    "publicColumns.1",
    /"psu" is a survey design column \(surveyDesign\.psu\)/,
  );
  assertInvalid(
    data,
    { surveyDesign: { strata: "stratum" }, publicColumns: ["stratum"] },
    "publicColumns.0",
  );
  // The design columns stay usable as confidential columns: declared, not public, accepted.
  const policy = createPolicy({ surveyDesign: DESIGN, publicColumns: ["agecat", "gender"] }, data);
  assert.deepEqual(policy.surveyDesign, DESIGN);
  assert.equal(policy.designDisclosed, false);
  assert.equal(policy.levels.weight, undefined, "a confidential column's levels are not read");
});

Deno.test("with discloseDesign: true the owner may publish design columns, and the policy records it", async () => {
  const data = await readCsv(NHANES);
  const policy = createPolicy({ ...ATTACK, discloseDesign: true }, data);
  assert.deepEqual(policy.publicColumns, ["agecat", "gender", "weight"]);
  assert.deepEqual(policy.surveyDesign, DESIGN);
  assert.equal(policy.designDisclosed, true);
  // Stored as JSON and read back (the SQLite and PostgreSQL stores keep the policy so).
  const stored = policyOf(JSON.stringify(policy));
  assert.deepEqual(stored, policy);
  assert.deepEqual(surveyDesignOf(stored), { surveyDesign: DESIGN, designDisclosed: true });
  // The acknowledgment alone discloses nothing: no design column public, none disclosed.
  const unused = createPolicy({ surveyDesign: DESIGN, discloseDesign: true }, data);
  assert.equal(unused.designDisclosed, false);
});

Deno.test("design columns must be columns of the dataset, each named once", async () => {
  const data = await readCsv(NHANES);
  assertInvalid(
    data,
    { surveyDesign: { ...DESIGN, psu: "sdmvpsu" } },
    "surveyDesign.psu",
    /no column "sdmvpsu"/,
  );
  assertInvalid(data, { surveyDesign: { weight: "wtmec2yr" } }, "surveyDesign.weight");
  assertInvalid(
    data,
    { surveyDesign: { weight: "weight", strata: "stratum", psu: "stratum" } },
    "surveyDesign.psu",
    /"stratum" is named twice/,
  );
  // An unknown role (a typo) is refused, not ignored: it would leave the weight unprotected.
  assert.throws(() =>
    createPolicy(
      { surveyDesign: { weights: "weight" } } as unknown as PolicyDeclaration,
      data,
    )
  );
});

Deno.test("a policy without the new fields behaves as before; older stored policies still load", async () => {
  const data = await readCsv(NHANES);
  // Without a declared design nothing is known to be a design column (the owner's declaration).
  const plain = createPolicy({ publicColumns: ["agecat", "gender", "weight"] }, data);
  assert.deepEqual(plain.publicColumns, ["agecat", "gender", "weight"]);
  assert.deepEqual(plain.surveyDesign, {});
  assert.equal(plain.designDisclosed, false);
  assert.equal(plain.guarantee, "aDP");
  assert.equal(plain.minEpsilon, 0.01);
  assert.deepEqual(plain.levels.gender, ["female", "male"]);
  // A policy stored before the fields existed reads as no design declared, none disclosed.
  const { surveyDesign: _, designDisclosed: __, ...older } = plain;
  const loaded: DatasetPolicy = policyOf(JSON.stringify(older));
  assert.equal(loaded.surveyDesign, undefined);
  assert.deepEqual(surveyDesignOf(loaded), { surveyDesign: {}, designDisclosed: false });
  assert.deepEqual(surveyDesignOf(policyOf(null)), { surveyDesign: {}, designDisclosed: false });
});
