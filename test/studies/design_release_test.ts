/**
 * The design-release study (issue 24, `docs/studies/design_release.md`): the committed result's
 * verdicts and internal consistency, the study's pure pieces on small inputs with known answers,
 * and the `--quick` run of its command end to end.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { Rng } from "../../src/random/rng.ts";
import {
  compareShares,
  compareTables,
  DESIGN_RELEASE_SETTINGS,
  designReleaseJson,
  type DesignReleaseResult,
  designTables,
  heldOutCheck,
  QUICK_DESIGN_RELEASE,
  weightSummary,
} from "../../src/studies/design_release.ts";
import {
  designReleaseMarkdown,
  type DesignReleaseReport,
  withDesignReleaseDocument,
} from "../../src/studies/design_release_document.ts";
import type { FrontierResult } from "../../src/studies/frontier.ts";

const COMMITTED = new URL("../../docs/studies/design_release.json", import.meta.url);
const COMMITTED_MD = new URL("../../docs/studies/design_release.md", import.meta.url);
const FRONTIER = new URL("../../docs/studies/frontier.json", import.meta.url);

/** The checks every result passes, whatever its settings. */
function checkConsistency(result: DesignReleaseResult): void {
  const { release, verdicts, table, heldOut, weights, race, design } = result;
  assert.equal(result.study, "design_release");
  // The released columns: no stratum or PSU, the weight synthesised as the last outcome.
  for (const name of [design.strata, design.psu]) {
    assert.ok(!release.columns.includes(name), `${name} is not released`);
  }
  assert.ok(release.columns.includes(design.weight));
  assert.deepEqual(release.outcomes.at(-1), { y: design.weight, model: "lognormal" });
  assert.equal(
    verdicts.noUnsynthesisedDesignColumn,
    release.columns.every((c) => c !== design.strata && c !== design.psu) &&
      release.outcomes.some((o) => o.y === design.weight) && release.weightRowsEqual === 0,
  );
  assert.equal(verdicts.finalFitFlagged, release.finalFit?.flagged ?? false);
  // ε = 2Δm, at most the target.
  assert.ok(Math.abs(release.epsilon - 2 * release.lipschitz! * release.m) < 1e-9);
  assert.ok(release.epsilon <= release.targetEpsilon * (1 + 1e-9));
  assert.equal(release.n, result.records.used);
  assert.equal(result.records.used + result.records.dropped, result.records.file);
  // The held-out verdict is the comparison of its own numbers.
  assert.equal(heldOut.noBetter, heldOut.syntheticWeight <= heldOut.publicOnly + heldOut.margin);
  assert.equal(verdicts.heldOutNoBetter, heldOut.noBetter);
  // The table's summary counts its cells.
  const compared = table.cells.filter((c) => c.prevalenceCovered !== null);
  for (const cell of compared) {
    const { lower, upper } = cell.confidential.prevalence;
    const value = cell.synthetic.prevalence.estimate;
    assert.equal(cell.prevalenceCovered, lower <= value && value <= upper);
    assert.ok(
      Math.abs(
        cell.prevalenceDifference -
          (cell.synthetic.prevalence.estimate - cell.confidential.prevalence.estimate),
      ) < 1e-12,
    );
  }
  const covered = compared.filter((c) => c.prevalenceCovered).length;
  assert.equal(table.summary.cells, compared.length);
  assert.equal(table.summary.covered, covered);
  assert.equal(table.summary.coverage, covered / compared.length);
  assert.equal(verdicts.tableCoverage, table.summary.coverage);
  assert.equal(
    table.summary.maxAbsPrevalenceDifference,
    Math.max(...compared.map((c) => Math.abs(c.prevalenceDifference))),
  );
  assert.equal(
    table.summary.countCovered,
    table.cells.filter((c) => c.countCovered === true).length,
  );
  // The population estimate is the sum of the weights, both ways.
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.abs(b);
  assert.ok(close(table.summary.totalConfidential, weights.confidential.sum));
  if (release.m === 1) assert.ok(close(table.summary.totalSynthetic, weights.synthetic.sum));
  // The race shares add up to one, both ways.
  for (const side of ["confidential", "synthetic"] as const) {
    assert.ok(Math.abs(race.reduce((s, r) => s + r[side].share.estimate, 0) - 1) < 1e-9);
  }
}

Deno.test("design release: the committed result's verdicts hold and agree with its numbers", async () => {
  const result = JSON.parse(await Deno.readTextFile(COMMITTED)) as DesignReleaseResult;
  assert.deepEqual(result.settings, DESIGN_RELEASE_SETTINGS);
  checkConsistency(result);
  const { verdicts, release, heldOut, table } = result;
  assert.equal(release.mechanism, "sw");
  assert.equal(release.autoPicks, "sw", "SW is what auto picks where aDP is allowed");
  assert.equal(release.n, 7846);
  assert.ok(verdicts.noUnsynthesisedDesignColumn);
  assert.ok(verdicts.heldOutNoBetter, "the synthetic weight does not predict race");
  // The confidential weight does: the leak the synthesis removes.
  assert.ok(heldOut.confidentialWeight > heldOut.publicOnly + 0.1);
  assert.equal(table.cells.length, 15);
  // The held-out split is the frontier's design-leakage check's (same records, seed and bins).
  const frontier = JSON.parse(await Deno.readTextFile(FRONTIER)) as FrontierResult;
  const leakage = frontier.baselines.find((b) => b.file === "nhanes")?.designLeakage;
  if (leakage !== undefined) {
    assert.equal(heldOut.publicOnly, leakage.publicOnly);
    assert.equal(heldOut.confidentialWeight, leakage.withWeight);
  }
  // The markdown opens with the verdicts, in the JSON's numbers.
  const markdown = await Deno.readTextFile(COMMITTED_MD);
  const verdictSection = markdown.split("\n## ")[1];
  assert.match(verdictSection, /^Verdicts/);
  for (const share of [heldOut.publicOnly, heldOut.syntheticWeight, heldOut.confidentialWeight]) {
    assert.ok(verdictSection.includes(`${(100 * share).toFixed(1)} %`), `${share} in the verdicts`);
  }
  assert.ok(verdictSection.includes(`${(100 * verdicts.tableCoverage).toFixed(1)} %`));
});

Deno.test("design release: the committed report is what its committed JSON renders to, the document decided again", async () => {
  const committed = JSON.parse(await Deno.readTextFile(COMMITTED)) as DesignReleaseReport;
  const report = withDesignReleaseDocument(committed);
  assert.deepEqual(report, committed);
  assert.equal(designReleaseJson(report), await Deno.readTextFile(COMMITTED));
  const markdown = await Deno.readTextFile(COMMITTED_MD);
  const footer = markdown.slice(markdown.lastIndexOf("\n---\n") + 1).trimEnd();
  assert.equal(designReleaseMarkdown(report, footer), markdown);
  // Without a footer the report ends after the held-out verdict; a flagged fit is bold.
  const flagged = {
    ...committed,
    release: { ...committed.release, finalFit: { ...committed.release.finalFit!, flagged: true } },
  };
  const bare = designReleaseMarkdown(withDesignReleaseDocument(flagged), "");
  assert.ok(bare.endsWith(`Verdict: (b) ≤ (a) + ${committed.heldOut.margin}.\n`));
  assert.match(
    bare,
    /; final fit \*\*flagged\*\* \(R̂ [0-9.]+, bulk ESS [0-9]+, \d+ divergences\)\.\n/,
  );
});

/** A small survey file: two strata, known weighted prevalences and race shares. */
const SMALL = parseCsv(
  [
    "agecat,gender,race,hi_chol,weight,stratum",
    "a,m,x,1,10,1",
    "a,m,y,0,30,1",
    "a,f,x,0,20,1",
    "a,f,y,1,20,2",
    "b,m,x,1,5,2",
    "b,m,y,1,15,2",
    "b,f,x,0,40,1",
    "b,f,x,0,60,2",
  ].join("\n") + "\n",
  "small.csv",
);
const SMALL_LEVELS = { race: ["x", "y"], agecat: ["a", "b", "c"], gender: ["m", "f"] };

Deno.test("design release: the design tables give the weighted prevalence, count and race share", () => {
  const stratified = designTables(SMALL, { weight: "weight", strata: "stratum" }, SMALL_LEVELS);
  const oneStage = designTables(SMALL, { weight: "weight", strata: null }, SMALL_LEVELS);
  for (const tables of [stratified, oneStage]) {
    const { hiChol, race } = tables;
    // Grand total: Σw = 200, Σw·y = 10 + 20 + 5 + 15 = 50.
    assert.equal(hiChol.count[0], 200);
    assert.equal(hiChol.mean[0], 50 / 200);
    // a × m (row 1·3 + 1 = 4): weights 10, 30, hi_chol 1, 0.
    assert.deepEqual([hiChol.labels[0][4], hiChol.labels[1][4]], ["a", "m"]);
    assert.equal(hiChol.count[4], 40);
    assert.equal(hiChol.mean[4], 0.25);
    // The empty level c: count 0, mean NaN.
    assert.equal(hiChol.count[9], 0);
    assert.ok(Number.isNaN(hiChol.mean[9]));
    // Race x: 10 + 20 + 5 + 40 + 60 = 135 of 200.
    assert.equal(race[0].mean[0], 135 / 200);
    assert.equal(race[1].mean[0], 65 / 200);
  }
  // The strata change the SEs, not the estimates.
  assert.notEqual(stratified.hiChol.meanSE[0], oneStage.hiChol.meanSE[0]);

  // Against itself every cell is covered; the empty cells are not counted.
  const same = compareTables(stratified.hiChol, [stratified.hiChol]);
  assert.equal(same.cells.length, 12);
  assert.equal(same.summary.cells, 9);
  assert.equal(same.summary.covered, 9);
  assert.equal(same.summary.coverage, 1);
  assert.equal(same.summary.maxAbsPrevalenceDifference, 0);
  assert.equal(same.cells[9].prevalenceCovered, null);
  assert.equal(same.summary.totalConfidential, 200);
  // The 95 % interval is the estimate ± 1.96 SE.
  const total = same.cells[0].confidential.prevalence;
  assert.ok(Math.abs(total.upper - total.estimate - 1.959963984540054 * total.se) < 1e-12);

  // Every record with hi_chol = 1: the prevalence is 1 in every cell, outside the intervals.
  const ones = parseCsv(
    (SMALL.names.join(",") + "\n") +
      Array.from({ length: SMALL.n }, (_, i) =>
        SMALL.names.map((name) => {
          const column = SMALL.columns.get(name)!;
          if (name === "hi_chol") return "1";
          return column.kind === "numeric"
            ? String(column.values[i])
            : column.levels[column.codes[i]];
        }).join(",")).join("\n") +
      "\n",
    "ones.csv",
  );
  const shifted = designTables(ones, { weight: "weight", strata: null }, SMALL_LEVELS);
  const apart = compareTables(stratified.hiChol, [shifted.hiChol]);
  assert.equal(apart.cells[0].synthetic.prevalence.estimate, 1);
  assert.equal(apart.cells[0].prevalenceDifference, 0.75);
  assert.equal(apart.cells[0].prevalenceCovered, false);
  assert.equal(apart.summary.maxAbsPrevalenceDifference, 1); // b × f: 0 against 1
  assert.deepEqual(apart.summary.maxAt, { agecat: "b", gender: "f" });
  assert.equal(apart.summary.coverage, apart.summary.covered / apart.summary.cells);
  // Counts are the same weights: every count covered.
  assert.equal(apart.summary.countCoverage, 1);

  const shares = compareShares(["x", "y"], stratified.race, [stratified.race]);
  assert.deepEqual(shares.map((s) => [s.level, s.shareCovered, s.shareDifference]), [
    ["x", true, 0],
    ["y", true, 0],
  ]);
  assert.equal(shares[0].confidential.count, 135);
});

Deno.test("design release: the weight summary's quantiles, sum and mean per race", () => {
  const weights = Array.from({ length: 20 }, (_, i) => i + 1);
  const race = weights.map((w) => (w % 2 === 0 ? "even" : "odd"));
  const summary = weightSummary(weights, race, ["odd", "even", "none"]);
  assert.equal(summary.n, 20);
  assert.equal(summary.sum, 210);
  assert.equal(summary.mean, 10.5);
  // Type 7: h = 1 + 19p.
  [1.95, 5.75, 10.5, 15.25, 19.05].forEach((value, k) => {
    assert.ok(Math.abs(summary.quantiles[k].value - value) < 1e-12, `${summary.quantiles[k].p}`);
  });
  assert.equal(summary.meanByRace.odd, 10);
  assert.equal(summary.meanByRace.even, 11);
  assert.ok(Number.isNaN(summary.meanByRace.none));
  assert.throws(() => weightSummary([1, 2], ["x"], ["x"]), RangeError);
});

Deno.test("design release: the held-out check tells a post-stratified weight from a synthetic one", () => {
  const rng = new Rng(7);
  const n = 4000;
  const levels = ["hispanic", "white", "black", "other"];
  const group = Array.from({ length: n }, () => (rng.uniform() < 0.5 ? "m" : "f"));
  // Race depends a little on the public group; the confidential weight is post-stratified by
  // race (its own band per level), the synthetic one is drawn without looking at race.
  const target = group.map((g) => {
    const u = rng.uniform();
    return g === "m" ? (u < 0.4 ? "white" : levels[Math.floor(rng.uniform() * 4)]) : levels[
      Math.floor(u * 4)
    ];
  });
  const confidentialWeight = target.map((r) => 1000 * (1 + levels.indexOf(r)) + rng.uniform());
  const syntheticWeight = target.map(() => 1000 + 4000 * rng.uniform());
  const input = {
    target,
    public: [group],
    syntheticWeight,
    confidentialWeight,
    syntheticOutcomes: [],
  };
  const options = { seed: 1, bins: 20, margin: 0.02 };
  const check = heldOutCheck(input, options);
  // Ventiles that straddle two bands cost a little.
  assert.ok(check.confidentialWeight > 0.95, "the post-stratified weight gives race away");
  assert.ok(check.publicOnly > 0.25 && check.publicOnly < 0.5, `${check.publicOnly}`);
  assert.ok(check.syntheticWeight <= check.publicOnly + 0.02, `${check.syntheticWeight}`);
  assert.equal(check.noBetter, true);
  assert.equal(check.allReleased, check.syntheticWeight, "no other released column here");
  // Released as it is, the weight fails the verdict.
  const leaky = heldOutCheck({ ...input, syntheticWeight: confidentialWeight }, options);
  assert.equal(leaky.syntheticWeight, check.confidentialWeight);
  assert.equal(leaky.noBetter, false);
});

Deno.test("design release: `--quick` writes a consistent JSON and markdown", async () => {
  const dir = await Deno.makeTempDir();
  const run = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-sys",
      "--allow-env=XDG_RUNTIME_DIR",
      "src/cli/design_release.ts",
      "--quick",
      "--out",
      dir,
    ],
    cwd: new URL("../..", import.meta.url),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
  const result = JSON.parse(
    await Deno.readTextFile(`${dir}/design_release.json`),
  ) as DesignReleaseResult;
  assert.deepEqual(result.settings, QUICK_DESIGN_RELEASE);
  checkConsistency(result);
  assert.ok(result.verdicts.noUnsynthesisedDesignColumn);
  assert.deepEqual(result.release.columns, ["agecat", "gender", "race", "hi_chol", "weight"]);
  const markdown = await Deno.readTextFile(`${dir}/design_release.md`);
  assert.match(markdown, /^# Design release/);
  assert.ok(markdown.indexOf("## Verdicts") < markdown.indexOf("## The release"));
  await Deno.remove(dir, { recursive: true });
});
