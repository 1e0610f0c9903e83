/**
 * Issue 22, medium: an earlier categorical outcome was coded for the later conditionals over the
 * levels present in the data, in order of appearance, so a rare level's presence (and which
 * record came first) changed the released model outside the Δ accounting. Every text column,
 * outcome or covariate, is now coded over its declared levels in declared order, and a value
 * outside them is the owner's error.
 */
import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { DataError } from "../../src/data/data_error.ts";
import { checkSynthesis, createPolicy } from "../../src/jobs/release_policy.ts";
import type { JointModel } from "../../src/models/joint.ts";
import { synthesisPlan } from "../../src/synthesis/plan.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";
import { synthesisModel } from "../../src/synthesis/synthesis_model.ts";

/** 30 records: sex (public text), race (confidential text, level c only when `rare`), y. */
function csv(rare: boolean, firstLevel: string): string {
  const lines = ["sex,race,y"];
  for (let i = 0; i < 30; i++) {
    const race = i === 0 ? firstLevel : rare && i === 17 ? "c" : i % 2 === 0 ? "a" : "b";
    lines.push(`${i % 3 === 0 ? "m" : "f"},${race},${(i * 0.37) % 5}`);
  }
  return lines.join("\n") + "\n";
}

const SPEC = {
  y: ["race", "y"],
  model: ["categorical", "normal"],
  x: ["sex"],
  mechanism: "unweighted",
  levels: { race: ["a", "b", "c"], sex: ["f", "m"] },
};

/** The coefficient names of every conditional of the model a spec builds on a file. */
function shape(text: string, spec: Record<string, unknown> = SPEC): string[][] {
  const model = synthesisModel(parseCsv(text, "in.csv"), SynthesisSpec.parse(spec)) as JointModel;
  return model.components.map((c) => [...c.model.design.coefficientNames]);
}

Deno.test("declared levels: a rare level's presence or order never changes the model", () => {
  const expected = [
    ["intercept", "sex=m"],
    ["intercept", "sex=m", "race=b", "race=c"],
  ];
  assert.deepEqual(shape(csv(false, "a")), expected);
  assert.deepEqual(shape(csv(true, "a")), expected, "a rare level present");
  assert.deepEqual(shape(csv(false, "b")), expected, "another level first in the file");
});

Deno.test("declared levels: a value outside the declared set is the owner's error, naming its row", () => {
  const outside = csv(false, "a").replace("\nm,b,", "\nm,z,");
  assert.throws(() => shape(outside), (error: unknown) => {
    assert.ok(error instanceof DataError);
    assert.match(error.message, /race/);
    assert.match(error.message, /row/);
    return true;
  });
  const sexOutside = csv(false, "a").replace("\nf,", "\nx,");
  assert.throws(() => shape(sexOutside), DataError);
});

Deno.test("declared levels: on a registered dataset the policy codes outcomes and public covariates", () => {
  const data = parseCsv(csv(true, "b"), "in.csv");
  const policy = createPolicy({
    publicColumns: ["sex"],
    levels: { race: ["a", "b", "c"], sex: ["m", "f"] },
    allowUnweighted: true,
  }, data);
  const { levels: _levels, ...request } = SPEC;
  const run = checkSynthesis(
    policy,
    synthesisPlan(SynthesisSpec.parse({ ...request, epsilon: 1 })),
  );
  assert.deepEqual(run.levels, { sex: ["m", "f"], race: ["a", "b", "c"] });
  const model = synthesisModel(data, run) as JointModel;
  assert.deepEqual([...model.components[1].model.design.coefficientNames], [
    "intercept",
    "sex=f",
    "race=b",
    "race=c",
  ]);
});
