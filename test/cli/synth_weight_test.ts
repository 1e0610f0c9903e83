/**
 * Issue 24, weights that do not leak: a survey weight given with outcomes of ordinary models is
 * synthesised as the last conditional of the record (log w | x, outcomes, lognormal), its ℓ in
 * the joint record's Δ, and released only as synthesised; no stratum goes with it. Before the
 * fix `--weight` with such models exited 2, so a user released the weight as a covariate.
 *
 * @module
 */
import assert from "node:assert/strict";
import { releaseSettings } from "../../src/synthesis/release_summary.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";
import { PASSING_DRAWS, readJson, runCliOk, synthRefusalTests, writeInput } from "./_helpers.ts";

/** Two outcomes of ordinary models with the survey weight w, at LW. */
const WEIGHTED = ["--y=a,b", "--x=x", "--model=poisson,logistic", "--weight=w", "--mechanism=lw"];

/** 80 records: public x, a count a, a binary b, a weight w that tracks b and a stratum s. */
function surveyFile(dir: string): Promise<string> {
  return writeInput(dir, "x,a,b,w,s", 80, (i) => {
    const a = (i * 7) % 6;
    const b = (i * 5) % 3 === 0 ? 1 : 0;
    const w = (1000 * (1 + b) * (1 + ((i * 11) % 9) / 9)).toFixed(2);
    return `${(i % 10) / 10},${a},${b},${w},${i % 4}`;
  });
}

Deno.test("`--weight` with several outcomes synthesises the weight as the record's last conditional", async () => {
  const dir = await Deno.makeTempDir();
  const data = await surveyFile(dir);
  const flags = [...WEIGHTED, "--epsilon=40", "--m=1", "--seed=4", ...PASSING_DRAWS];
  await runCliOk("synth.ts", [`--data=${data}`, ...flags, `--out=${dir}/out`]);
  const report = await readJson(`${dir}/out/report.json`);
  assert.deepEqual(report.outcomes, [
    { y: "a", model: "poisson" },
    { y: "b", model: "logistic" },
    { y: "w", model: "lognormal" },
  ]);
  assert.deepEqual(report.columns, ["x", "a", "b", "w"]);
  assert.equal(report.epsilon, 2 * report.lipschitz * 1);
  const diagnostics = await readJson(`${dir}/out/diagnostics.json`);
  // Δ is the joint record's, the weight's conditional included: log w given x, a and b.
  assert.equal(Math.max(...diagnostics.recordLipschitz), report.lipschitz);
  assert.ok(diagnostics.fit.summary["w:b"], "the weight's conditional has b as a covariate");
  const confidential = (await Deno.readTextFile(data)).trim().split("\n").slice(1)
    .map((line) => line.split(","));
  const lines = (await Deno.readTextFile(`${dir}/out/synthetic-1.csv`)).trim().split("\n");
  assert.equal(lines[0], "x,a,b,w", "no stratum column is released");
  const rows = lines.slice(1).map((line) => line.split(","));
  assert.equal(rows.length, 80);
  // Every record's public x, in the release's own order (issue 34: not the file's).
  assert.deepEqual(rows.map((row) => row[0]).sort(), confidential.map((row) => row[0]).sort());
  const weights = new Set(confidential.map((row) => Number(row[3])));
  rows.forEach((row, r) => {
    assert.ok(Number(row[3]) > 0, `row ${r + 1}: a positive synthetic weight`);
    assert.ok(!weights.has(Number(row[3])), `row ${r + 1}: not a confidential weight`);
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("report.html's release settings say the weight was synthesised, and FBS's that it was smoothed", () => {
  const setting = (spec: unknown) =>
    releaseSettings(SynthesisSpec.parse(spec)).find((s) => s.label === "synthetic weights")?.value;
  const several = { y: ["a", "b"], model: ["poisson", "logistic"], x: ["x"], mechanism: "lw" };
  assert.match(setting({ ...several, weight: "w" })!, /drawn from the last conditional/);
  assert.equal(setting(several), undefined);
  assert.match(setting({ y: "a", model: "fbs", weight: "w", mechanism: "lw" })!, /not scaled/);
});

const BAD: [string, string[], RegExp][] = [
  ["the weight among the covariates", ["--x=x,w"], /--weight: the survey weight is synthesised/],
  ["the weight among the outcomes", ["--y=a,w", "--model=poisson,normal"], /--weight: /],
  ["a stratum with it", ["--strata=s"], /--strata: strata go with the survey model fbp/],
  [
    "the histogram (one variable)",
    ["--y=a", "--model=poisson", "--mechanism=histogram"],
    /--mechanism: histogram needs one outcome/,
  ],
];

synthRefusalTests(
  "`deno task synth --weight` exits 2, writes nothing",
  BAD,
  surveyFile,
  WEIGHTED,
  2,
);
