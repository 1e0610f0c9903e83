import assert from "node:assert/strict";
import {
  CONTRACTION_MECHANISMS,
  CONTRACTION_SETTINGS,
  contractionAggregate,
  type ContractionRecord,
  type ContractionSettings,
  study,
} from "../../src/studies/contraction.ts";
import { runSerialAndParallel } from "./_quick.ts";

const QUICK: ContractionSettings = {
  ...CONTRACTION_SETTINGS,
  sizes: [40, 160],
  sampler: { chains: 2, warmup: 100, draws: 100 },
};

Deno.test("contraction quick mode has the documented shape and is byte-identical in workers", async () => {
  const serial = await runSerialAndParallel(study, 5, QUICK);
  assert.equal(serial.study, "contraction");
  assert.equal(serial.records.length, 2);
  for (const [r, record] of serial.records.entries()) {
    assert.equal(record.r, r);
    assert.deepEqual(record.sizes.map((s) => s.n), [40, 160]);
    for (const size of record.sizes) {
      const { unweighted, lw } = size.mechanisms;
      const weightedE = size.mechanisms["weighted-e"];
      // The LW rule zeroes the riskiest record and leaves the bound far below Δ_x.
      assert.ok(lw.lipschitz < unweighted.lipschitz);
      assert.ok(lw.zeroWeights >= 1 && unweighted.zeroWeights === 0);
      assert.ok(weightedE.zeroWeights >= lw.zeroWeights);
      if (lw.lipschitz <= 3.5) assert.deepEqual(weightedE, lw);
      assert.ok(Math.abs(unweighted.muMean - 100) < 10);
    }
  }
  const { summary } = serial;
  assert.equal(summary.target, 3.5);
  assert.deepEqual(summary.sizes.map((s) => s.n), [40, 160]);
  assert.deepEqual(Object.keys(summary.contraction), [...CONTRACTION_MECHANISMS]);
  assert.ok(summary.fits.fits >= 2 * 2 * 2);
  const markdown = study.markdown(serial, "footer");
  assert.match(markdown, /\| 160 \| Weighted-e \|/);
  assert.match(markdown, /footer/);
});

function record(r: number, bounds: number[][]): ContractionRecord {
  return {
    r,
    sizes: bounds.map((perMechanism, j) => ({
      n: [100, 400][j],
      mechanisms: {
        unweighted: { lipschitz: perMechanism[0], muMean: 100 + r, zeroWeights: 0, refits: 1 },
        lw: { lipschitz: perMechanism[1], muMean: 100, zeroWeights: 1, refits: 1 },
        "weighted-e": { lipschitz: perMechanism[2], muMean: 100, zeroWeights: 3 + r, refits: 2 },
      },
    })),
    fits: { fits: 5, flagged: r, flaggedLikelihood: 0, divergences: 0 },
  };
}

Deno.test("`contractionAggregate()` on hand-made records: summaries, spreads, share above ε/2", () => {
  const settings = { ...QUICK, sizes: [100, 400] };
  const records = [
    record(0, [[9, 3.0, 3.0], [9, 3.4, 3.45]]),
    record(1, [[8, 3.8, 3.6], [12, 3.6, 3.5]]),
    record(2, [[7, 3.2, 3.2], [9.5, 3.5, 3.48]]),
  ];
  const summary = contractionAggregate(records, settings);
  const [small, large] = summary.sizes;
  assert.deepEqual(
    [
      small.mechanisms.lw.lipschitz.min,
      small.mechanisms.lw.lipschitz.median,
      small.mechanisms.lw.lipschitz.max,
    ],
    [3.0, 3.2, 3.8],
  );
  assert.ok(Math.abs(small.mechanisms.lw.spread - 0.8) < 1e-12);
  assert.ok(Math.abs(large.mechanisms.lw.spread - 0.2) < 1e-12);
  assert.equal(small.mechanisms.lw.shareAbove, 1 / 3);
  assert.equal(large.mechanisms["weighted-e"].shareAbove, 0); // 3.5 is not above 3.5
  assert.equal(large.mechanisms.lw.shareAbove, 1 / 3);
  assert.equal(small.mechanisms.unweighted.muMean.median, 101);
  assert.equal(small.mechanisms["weighted-e"].zeroWeights.mean, 4);
  assert.equal(small.mechanisms["weighted-e"].allWeightsZero, 0);
  assert.ok(Math.abs(small.mechanisms.lw.iqr - 0.4) < 1e-12); // q25 = 3.1, q75 = 3.5
  assert.equal(summary.contraction.lw.contracts, true);
  assert.equal(summary.contraction.lw.monotone, true);
  assert.deepEqual(summary.contraction.unweighted, {
    spreads: [2, 3],
    iqrs: [1, 1.5], // q25/q75 of 7, 8, 9 and of 9, 9.5, 12
    contracts: false,
    monotone: false,
  });
  assert.equal(summary.fits.flagged, 3);
  assert.equal(summary.fits.flaggedShare, 3 / 15);
});
