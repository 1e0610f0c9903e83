import { studyMarkdown, withDocument } from "../../src/studies/study_report.ts";
import {
  PAPER_TABLE_1,
  REWEIGHT_MECHANISMS,
  REWEIGHT_SETTINGS,
  reweightAggregate,
  type ReweightSettings,
  study,
  TABLE_STATISTICS,
} from "../../src/studies/reweight.ts";
import type { ReweightEntry, ReweightRecord } from "../../src/studies/reweight_settings.ts";
import { runSerialAndParallel } from "./_quick.ts";
import assert from "node:assert/strict";

const QUICK: ReweightSettings = {
  ...REWEIGHT_SETTINGS,
  n: 150,
  datasets: 5,
  bootstrap: 50,
  sampler: { chains: 2, warmup: 80, draws: 80 },
};

Deno.test("reweight quick mode has the documented shape and is byte-identical in workers", async () => {
  const serial = await runSerialAndParallel(study, 2, QUICK);
  for (const record of serial.records) {
    assert.deepEqual(Object.keys(record.mechanisms), [...REWEIGHT_MECHANISMS]);
    const { lw, sw } = record.mechanisms;
    assert.ok(lw !== null && sw !== null);
    assert.ok(lw.lipschitz <= QUICK.epsilon / 2, `LW Δ = ${lw.lipschitz}`);
    assert.equal(lw.epsilon, 2 * lw.lipschitz);
    // SW aims at LW's bound with one scalar weight (a few refits lower it when it lands above;
    // with these few draws it can stay a little above).
    assert.ok(sw.alphaMean < 1 && Math.abs(sw.lipschitz / lw.lipschitz - 1) < 0.1);
    assert.ok(record.mechanisms.unweighted!.lipschitz > lw.lipschitz);
    for (const final of [record.mechanisms["lw-final"], record.mechanisms["cw-final"]]) {
      if (final !== null) assert.ok(final.lipschitz <= QUICK.epsilon / 2);
    }
    // Algorithm 3's accepted k is below 1 (the paper's 0.95 first).
    for (const name of ["lw-final", "cw-final", "cw-final-g0"] as const) {
      const k = record.mechanisms[name]?.k;
      if (k !== null && k !== undefined) assert.ok(k < 1 && k >= 0.95 ** 8, `${name} k = ${k}`);
    }
    // The unshifted CW keeps g = 0 and no cap: its weights are far lower than the calibrated CW's.
    const cw0 = record.mechanisms["cw-g0"]!;
    assert.equal(cw0.g, 0);
    assert.ok(cw0.alphaMean < record.mechanisms.cw!.alphaMean);
    // The averaged statistics differ from the release's; Table 1's bootstrap intervals bracket
    // the release's own statistics.
    assert.notDeepEqual(lw.synthetic, lw.first);
    for (const stat of TABLE_STATISTICS) {
      assert.ok(lw.ci[stat][0] <= lw.first[stat] && lw.first[stat] <= lw.ci[stat][1], stat);
      assert.ok(record.dataCi[stat][0] <= record.data[stat]);
      assert.ok(record.data[stat] <= record.dataCi[stat][1]);
    }
  }
  const { summary } = serial;
  for (const stat of TABLE_STATISTICS) {
    const [lo, hi] = summary.data[stat].interval;
    assert.ok(lo <= hi);
  }
  assert.ok(summary.mechanisms.lw !== null && summary.mechanisms.lw.replicates === 2);
  const markdown = studyMarkdown(study, withDocument(study, serial), "footer");
  assert.match(markdown, /\| median \(paper\) \| \[96\.0, 101\.0\] \| – \| \[95\.6, 99\.7\]/);
  assert.match(
    markdown,
    /## Verdict against the paper\n\n.*\n\n\| paper reports \| paper \| ppsynth \|/,
  );
  assert.match(
    markdown,
    /\| Table 1, 15th quantile, CW \(ours: CW \(g = 0\)\) \| \[77\.2, 80\.8\] \|/,
  );
});

function entry(value: number, lipschitz: number, k: number | null = null): ReweightEntry {
  const synthetic = { mean: value, median: value - 2, q15: value - 30, q90: value + 35 };
  return {
    lipschitz,
    epsilon: 2 * lipschitz,
    g: 0.1,
    k,
    alphaMean: 0.9,
    finalFit: k === null ? "lw" : `reweight k=${k.toFixed(4)}`,
    fits: 3,
    synthetic,
    first: { ...synthetic, mean: value + 1 },
    ci: {
      mean: [value - 2, value + 2],
      median: [value - 4, value],
      q15: [value - 32, value - 28],
      q90: [value + 30, value + 40],
    },
    ecdfMax: 0.05,
    ecdfMeanSquared: 0.001,
  };
}

Deno.test("`reweightAggregate()` on hand-made records: Table 1 intervals, Δ, k and failures", () => {
  const records: ReweightRecord[] = [0, 1, 2, 3, 4].map((r) => ({
    r,
    data: { mean: 100 + r, median: 98 + r, q15: 70 + r, q90: 135 + r },
    dataCi: {
      mean: [98 + r, 102 + r],
      median: [96 + r, 100 + r],
      q15: [68 + r, 72 + r],
      q90: [131 + r, 139 + r],
    },
    unweightedLipschitz: 14 + r,
    mechanisms: {
      unweighted: entry(100 + 10 * r, 14 + r),
      lw: entry(100, 5.9),
      "lw-final": entry(100, 5.8, r === 0 ? null : 0.95),
      cw: r === 4 ? null : entry(100, 5.7),
      "cw-final": null,
      sw: entry(100, 5.9),
      "cw-g0": entry(102, 1.2),
      "cw-final-g0": entry(101, 1.2, r < 2 ? 0.95 : 0.9025),
    },
    fits: { fits: 10, flagged: 0, flaggedLikelihood: 0, divergences: 0 },
  }));
  const summary = reweightAggregate(records);
  // Type-7 2.5% of 100..104: h = 1 + 4·0.025 = 1.1 → 100.1; 97.5%: h = 4.9 → 103.9.
  assert.deepEqual(
    summary.data.mean.interval.map((v) => Math.round(v * 1e9) / 1e9),
    [100.1, 103.9],
  );
  assert.deepEqual(
    summary.mechanisms.unweighted!.intervals.mean.interval.map((v) => Math.round(v * 1e9) / 1e9),
    [101, 139],
  );
  // The one-dataset intervals come from `first` (mean + 1).
  assert.deepEqual(
    summary.mechanisms.unweighted!.intervalsOneDataset.mean.map((v) => Math.round(v * 1e9) / 1e9),
    [102, 140],
  );
  assert.ok(summary.data.mean.errors.every((e) => e >= 0 && Number.isFinite(e)));
  // Per-database bootstrap intervals: the endpoints' 2.5/50/97.5% over databases and the median
  // width ratio to the same database's Data interval (4/4 for the mean).
  assert.deepEqual(summary.dataBootstrap.mean.lower.map((v) => Math.round(v * 1e9) / 1e9), [
    98.1,
    100,
    101.9,
  ]);
  assert.equal(summary.mechanisms.lw!.bootstrap.mean.widthRatio, 1);
  // LW's mean interval [98, 102] against the Data interval [98 + r, 102 + r]: moves −r.
  assert.deepEqual(
    summary.mechanisms.lw!.bootstrap.mean.lowerFromData.map((v) => Math.round(v * 1e9) / 1e9),
    [-3.9, -2, -0.1],
  );
  assert.deepEqual(summary.dataBootstrap.mean.upperFromData, [0, 0, 0]);
  assert.equal(summary.mechanisms.lw!.bootstrap.q90.widthRatio, 10 / 8);
  assert.equal(summary.mechanisms.cw!.replicates, 4);
  assert.equal(summary.mechanisms["cw-final"], null);
  assert.deepEqual(
    [summary.mechanisms["lw-final"]!.k!.none, summary.mechanisms["lw-final"]!.k!.accepted!.median],
    [1, 0.95],
  );
  assert.equal(summary.mechanisms["lw-final"]!.k!.paper, 4);
  assert.equal(summary.mechanisms["cw-final-g0"]!.k!.paper, 2);
  assert.equal(summary.mechanisms["cw-final-g0"]!.k!.towardTarget, 0);
  assert.equal(summary.mechanisms.lw!.k, null);
  assert.equal(summary.unweightedLipschitz.median, 16);
  assert.deepEqual(PAPER_TABLE_1.median.data, [96.0, 101.0]);
});
