import { studyMarkdown, withDocument } from "../../src/studies/study_report.ts";
import { centringOf, intervalScale } from "../../src/studies/survey_aggregate.ts";
import {
  cellRmse,
  type CoverageEntry,
  coverageOf,
  PAPER_TABLES_4_5,
  paperTableRows,
  populationTruth,
  study,
  SURVEY_METHODS,
  SURVEY_SETTINGS,
  surveyAggregate,
  type SurveySettings,
} from "../../src/studies/survey.ts";
import type { ArmRecord, SurveyRecord } from "../../src/studies/survey_settings.ts";
import { Rng } from "../../src/random/rng.ts";
import { simulatePopulation } from "../../src/survey/population.ts";
import type { SurveyTable } from "../../src/survey/tables.ts";
import { runSerialAndParallel } from "./_quick.ts";
import assert from "node:assert/strict";

/** Quick mode: a small population and sample, few draws, and a Δ* the unweighted fit meets. */
const QUICK: SurveySettings = {
  ...SURVEY_SETTINGS,
  populationSize: 2000,
  n: 150,
  lipschitz: [50, 60],
  sampler: { chains: 2, warmup: 30, draws: 30 },
};

Deno.test("survey quick mode has the documented shape and is byte-identical in workers", async () => {
  const serial = await runSerialAndParallel(study, 3, QUICK);
  for (const record of serial.records) {
    assert.equal(record.truth.count.length, 27);
    assert.equal(record.truth.count[0], QUICK.populationSize);
    assert.deepEqual(record.arms.map((arm) => arm.target), [50, 60]);
    for (const arm of record.arms) {
      for (const method of SURVEY_METHODS) {
        assert.deepEqual(Object.keys(arm.ratios[method]), ["m1", "m3", "m5", "m10"]);
        assert.deepEqual(Object.keys(arm.coverage[method]), ["m1", "m3", "m5", "m10"]);
        assert.equal(arm.ratios[method].m3.count.length, 27);
      }
      for (const method of ["fbs", "fbp"] as const) {
        const fit = arm.fits[method];
        assert.ok(fit.reachedTarget && fit.lipschitz <= arm.target);
      }
    }
    // FBS and FBP scale Σ w* to the sample's Σ w: the all-fields count is that total in every
    // synthetic sample, so its combined estimate is too (the paper's Table 2).
    assert.ok(record.weightTotal > 0);
  }
  // The two replicates share the population but not the sample.
  assert.deepEqual(serial.records[1].truth, serial.records[0].truth);
  assert.notEqual(serial.records[1].sampleCorrelation, serial.records[0].sampleCorrelation);
  const markdown = studyMarkdown(study, withDocument(study, serial), "footer");
  assert.match(markdown, /\| field7 total \| \d+ \| 18131 \|/);
  assert.match(markdown, /R = 2 only/);
});

Deno.test("`populationTruth()` sums the population cell by cell, margins included", () => {
  const population = simulatePopulation(new Rng(5), { size: 600 });
  const truth = populationTruth(population);
  assert.equal(truth.count[0], 600);
  // Row 3·(f + 1) + g + 1 is field f, gender g; its count and mean by a direct filter.
  for (const [f, g] of [[0, 0], [3, 1], [7, 1]]) {
    const salaries = [...population.salary].filter((_, i) =>
      population.field[i] === f && population.gender[i] === g
    );
    const row = 3 * (f + 1) + g + 1;
    assert.equal(truth.count[row], salaries.length);
    const mean = salaries.reduce((s, v) => s + v, 0) / salaries.length;
    assert.ok(Math.abs(truth.mean[row] / mean - 1) < 1e-12);
  }
  const maleRow = 1;
  const males = [...population.gender].filter((g) => g === 0).length;
  assert.equal(truth.count[maleRow], males);
});

Deno.test("`cellRmse()` and `coverageOf()` on a hand-made two-cell table", () => {
  const table: SurveyTable = {
    by: ["a", "b"],
    labels: [["all", "x"], ["all", "all"]],
    count: Float64Array.of(100, 40),
    countSE: Float64Array.of(4, 3),
    mean: Float64Array.of(10, 20),
    meanSE: Float64Array.of(1, 2),
  };
  const truth = { count: [103, 50], mean: [10, 16] };
  const rmse = cellRmse(table, truth);
  assert.deepEqual(rmse.count, [5, Math.sqrt(100 + 9)]);
  assert.deepEqual(rmse.mean, [1, Math.sqrt(16 + 4)]);
  const coverage = coverageOf(table, truth);
  // 100 ± 1.96·4 holds 103; 40 ± 1.96·3 misses 50; 20 ± 1.96·2 misses 16 (|−4| > 3.92).
  assert.deepEqual(coverage.covered.count, [1, 0]);
  assert.deepEqual(coverage.covered.mean, [1, 0]);
  assert.ok(Math.abs(coverage.length.count[0] - 2 * 1.959963984540054 * 4) < 1e-12);
  assert.deepEqual(coverage.cv.mean, [0.1, 0.1]);
});

function entry(covered: number, length: number): CoverageEntry {
  const cells = (v: number) => ({ count: new Array(27).fill(v), mean: new Array(27).fill(v) });
  return { covered: cells(covered), length: cells(length), cv: cells(length / 100) };
}

Deno.test("`surveyAggregate()` on hand-made records: replicate 0 ratios, pooled ratios, coverage", () => {
  const keys = ["m1", "m3", "m5", "m10"];
  const ratios = (base: number) =>
    Object.fromEntries(keys.map((m, k) => [m, {
      count: Array.from({ length: 27 }, (_, c) => base + k + c / 26),
      mean: Array.from({ length: 27 }, (_, c) => (c === 5 ? NaN : base + c)),
    }]));
  const perM = (e: CoverageEntry) => Object.fromEntries(keys.map((m) => [m, e]));
  const arm = (r: number, target: number): ArmRecord => ({
    target,
    fits: {
      fbs: {
        lipschitz: 1.7,
        unweightedLipschitz: 9,
        cap: target,
        reachedTarget: true,
        finalFit: "reweight k=0.9000",
        refits: 5,
      },
      fbp: {
        lipschitz: r === 0 ? 1.95 : 1.8,
        unweightedLipschitz: 10,
        cap: r === 0 ? 1.96 : target,
        reachedTarget: r !== 0,
        finalFit: "x",
        refits: 9,
      },
    },
    ratios: { fbs: ratios(r), fbp: ratios(2 * r), laplace: ratios(10) },
    coverage: {
      fbs: perM(entry(r, 20)),
      fbp: perM(entry(1, 40 + 20 * r)),
      laplace: perM(entry(0, 100)),
    },
  });
  const records: SurveyRecord[] = [0, 1].map((r) => ({
    r,
    truth: { count: new Array(27).fill(10), mean: new Array(27).fill(5) },
    sampleCorrelation: -0.5 - 0.1 * r,
    weightTotal: 100_000,
    sample: entry(1, 10),
    arms: [arm(r, 1.8), arm(r, 3.4)],
    fitStats: { fits: 10, flagged: r, flaggedLikelihood: 0, divergences: 0 },
  }));
  const summary = surveyAggregate(records, SURVEY_SETTINGS);
  const main = summary.arms[0];
  // Replicate 0, FBS, m = 3: counts 1 + c/26 for c = 0..26 → min 1, median 1.5, max 2.
  const fbs3 = main.ratios.fbs.m3.count;
  assert.deepEqual([fbs3.min, fbs3.median, fbs3.max, fbs3.count], [1, 1.5, 2, 27]);
  // The NaN mean ratio (cell 5) is skipped: 26 values.
  assert.equal(main.ratios.fbs.m1.mean.count, 26);
  // Pooled over replicates 0 and 1: 54 count ratios, 0 + 1 + c/26 and 1 + 1 + c/26 (m3).
  const pooled = main.ratiosPooled.fbs.m3.count;
  assert.deepEqual([pooled.count, pooled.min, pooled.max], [54, 1, 3]);
  assert.equal(main.coverage.fbs.m3.coverage.count[7], 0.5);
  assert.equal(main.coverage.fbp.m10.length.mean[3], 50);
  assert.equal(main.coverage.laplace.m1.coverage.mean[0], 0);
  assert.equal(summary.sample.coverage.count[4], 1);
  assert.equal(main.fits.fbp.missedTarget, 1);
  assert.equal(main.fits.fbp.lipschitz.max, 1.95);
  assert.deepEqual(summary.arms.map((a) => a.target), [1.8, 3.4]);
  assert.equal(summary.fitStats.flagged, 1);
  assert.equal(summary.fitStats.fits, 20);
  const markdown = studyMarkdown(
    study,
    withDocument(study, {
      study: "survey",
      seed: 1,
      replicates: 2,
      settings: SURVEY_SETTINGS,
      summary,
      records,
    }),
    "footer",
  );
  assert.match(markdown, /\*\*Target not reached:\*\* FBP missed Δ\* = 1\.8 on 1 of 2/);
  // The verdict table opens the report: FBS's mean count coverage is (0 + 1)/2 = 0.5 ± 0.5
  // against the paper's 0.947.
  assert.match(markdown, /\| paper reports \| paper \| ppsynth \| verdict \|/);
  assert.match(
    markdown,
    /FBS mean coverage of counts, 24 cells \(Table 4, m = 3\) \| 0\.947 \| 0\.500 ± 0\.500 \|/,
  );
});

Deno.test("the transcribed Tables 4–5 reproduce the paper's CI-length ratio for counts (1.38)", () => {
  assert.equal(paperTableRows().length, 24);
  for (const rows of Object.values(PAPER_TABLES_4_5)) assert.equal(rows.length, 24);
  const ratio = (rows: readonly (readonly number[])[]) =>
    rows.reduce((s, row) => s + row[4] / row[2], 0) / rows.length;
  assert.equal(ratio(PAPER_TABLES_4_5.count).toFixed(2), "1.38");
});

Deno.test("`centringOf()` and `intervalScale()`: an unbiased interval of ±1.96 spreads covers 0.95, one centred 1.96 spreads off covers half", () => {
  const cells = (value: number) => ({
    count: new Array(27).fill(value),
    mean: new Array(27).fill(value),
  });
  const base = { coverage: cells(0.9), length: cells(2 * 1.959963984540054 * 3), cv: cells(0.1) };
  const unbiased = { ...base, bias: cells(0), spread: cells(3) };
  assert.ok(Math.abs(intervalScale(unbiased, "count")! - 1) < 1e-12);
  const c0 = centringOf(unbiased, "count", 100)!;
  assert.equal(c0.off, 0);
  assert.equal(c0.cells, 24);
  assert.ok(Math.abs(c0.withBias - 0.95) < 1e-6 && Math.abs(c0.withoutBias - 0.95) < 1e-6);
  const shifted = centringOf({ ...unbiased, bias: cells(1.959963984540054 * 3) }, "count", 100)!;
  assert.equal(shifted.off, 24);
  assert.ok(Math.abs(shifted.withBias - (0.5 - 0.0000443)) < 1e-5, `${shifted.withBias}`);
  assert.ok(Math.abs(shifted.withoutBias - 0.95) < 1e-6);
  // Results without errors measure nothing.
  assert.equal(centringOf({ ...base, bias: null, spread: null }, "count", 100), null);
  assert.equal(intervalScale({ ...base, bias: null, spread: null }, "count"), null);
});
