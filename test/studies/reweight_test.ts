import assert from "node:assert/strict";
import {
  PAPER_TABLE_1,
  REWEIGHT_MECHANISMS,
  REWEIGHT_SETTINGS,
  reweightAggregate,
  type ReweightEntry,
  type ReweightRecord,
  type ReweightSettings,
  study,
  TABLE_STATISTICS,
} from "../../src/studies/reweight.ts";
import { runSerialAndParallel } from "./_quick.ts";

const QUICK: ReweightSettings = {
  ...REWEIGHT_SETTINGS,
  n: 150,
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
  }
  const { summary } = serial;
  for (const stat of TABLE_STATISTICS) {
    const [lo, hi] = summary.data[stat];
    assert.ok(lo <= hi);
  }
  assert.ok(summary.mechanisms.lw !== null && summary.mechanisms.lw.replicates === 2);
  const markdown = study.markdown(serial, "footer");
  assert.match(markdown, /\| median \(paper\) \| \[96\.0, 101\.0\] \| – \| \[95\.6, 99\.7\]/);
});

function entry(value: number, lipschitz: number, k: number | null = null): ReweightEntry {
  return {
    lipschitz,
    epsilon: 2 * lipschitz,
    g: 0.1,
    k,
    alphaMean: 0.9,
    synthetic: { mean: value, median: value - 2, q15: value - 30, q90: value + 35 },
    ecdfMax: 0.05,
    ecdfMeanSquared: 0.001,
  };
}

Deno.test("`reweightAggregate()` on hand-made records: Table 1 intervals, Δ, k and failures", () => {
  const records: ReweightRecord[] = [0, 1, 2, 3, 4].map((r) => ({
    r,
    data: { mean: 100 + r, median: 98 + r, q15: 70 + r, q90: 135 + r },
    unweightedLipschitz: 14 + r,
    mechanisms: {
      unweighted: entry(100 + 10 * r, 14 + r),
      lw: entry(100, 5.9),
      "lw-final": entry(100, 5.8, r === 0 ? null : 0.95),
      cw: r === 4 ? null : entry(100, 5.7),
      "cw-final": null,
      sw: entry(100, 5.9),
    },
    fits: { fits: 10, flagged: 0, flaggedLikelihood: 0, divergences: 0 },
  }));
  const summary = reweightAggregate(records);
  // Type-7 2.5% of 100..104: h = 1 + 4·0.025 = 1.1 → 100.1; 97.5%: h = 4.9 → 103.9.
  assert.deepEqual(summary.data.mean.map((v) => Math.round(v * 1e9) / 1e9), [100.1, 103.9]);
  assert.deepEqual(
    summary.mechanisms.unweighted!.intervals.mean.map((v) => Math.round(v * 1e9) / 1e9),
    [101, 139],
  );
  assert.equal(summary.mechanisms.cw!.replicates, 4);
  assert.equal(summary.mechanisms["cw-final"], null);
  assert.deepEqual(
    [summary.mechanisms["lw-final"]!.k!.none, summary.mechanisms["lw-final"]!.k!.accepted!.median],
    [1, 0.95],
  );
  assert.equal(summary.mechanisms.lw!.k, null);
  assert.equal(summary.unweightedLipschitz.median, 16);
  assert.deepEqual(PAPER_TABLE_1.median.data, [96.0, 101.0]);
});
