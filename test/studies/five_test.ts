import { studyMarkdown, withDocument } from "../../src/studies/study_report.ts";
import assert from "node:assert/strict";
import { betaMedian } from "../../src/stats/incomplete_beta.ts";
import {
  FIVE_MECHANISMS,
  FIVE_SETTINGS,
  fiveAggregate,
  type FiveSettings,
  study,
} from "../../src/studies/five.ts";
import type { FiveEntry, FiveRecord } from "../../src/studies/five_settings.ts";
import { runSerialAndParallel } from "./_quick.ts";

const QUICK: FiveSettings = {
  ...FIVE_SETTINGS,
  n: 150,
  sampler: { chains: 2, warmup: 80, draws: 80 },
};

Deno.test("five quick mode has the documented shape and is byte-identical in workers", async () => {
  const serial = await runSerialAndParallel(study, 4, QUICK);
  for (const record of serial.records) {
    assert.deepEqual(record.epsilons.map((e) => e.epsilon), [5, 4, 3]);
    for (const { epsilon, mechanisms } of record.epsilons) {
      assert.deepEqual(Object.keys(mechanisms), [...FIVE_MECHANISMS]);
      for (const name of ["censored", "censored-w"] as const) {
        const censored = mechanisms[name]!;
        assert.ok(censored.lipschitz! <= epsilon / 2);
        assert.ok(censored.unclamped! >= censored.lipschitz!);
        assert.ok(censored.epsilon <= epsilon);
      }
      const histogram = mechanisms.histogram!;
      assert.equal(histogram.lipschitz, null);
      assert.equal(histogram.epsilon, epsilon);
      if (mechanisms.lw !== null) assert.ok(mechanisms.lw.lipschitz! <= epsilon / 2);
      for (const entry of Object.values(mechanisms)) {
        if (entry === null) continue;
        assert.ok(entry.ecdfMax > 0 && entry.ecdfMax <= 1);
        assert.ok(entry.ecdfMeanSquared <= entry.ecdfMax ** 2);
        assert.ok(entry.synthetic.median > 0 && entry.synthetic.median < 1);
      }
    }
  }
  assert.ok(Math.abs(serial.summary.analyticMedian - 0.079032767076173016) < 1e-13);
  const markdown = studyMarkdown(study, withDocument(study, serial), "footer");
  assert.match(markdown, /## ε = 3 \(Δ target ε\/2 = 1.5\)/);
  assert.match(
    markdown,
    /## Verdict against the slides\n\n.*\n\n\| paper reports \| paper \| ppsynth \|/,
  );
  assert.match(
    markdown,
    /\| Censor w and Censor uw: .* \| agrees by construction: every contribution is clamped/,
  );
});

function entry(lipschitz: number | null, ecdfMax: number, median: number): FiveEntry {
  return {
    lipschitz,
    epsilon: 5,
    unclamped: null,
    g: null,
    zeroWeights: 2,
    synthetic: { mean: 0.14, median, q15: 0.01, q90: 0.4 },
    ecdfMax,
    ecdfMeanSquared: ecdfMax ** 2 / 10,
  };
}

Deno.test("`fiveAggregate()` on hand-made records: Δ share above ε/2, median bias and RMSE, ranking", () => {
  const truth = betaMedian(0.5, 3);
  const records: FiveRecord[] = [0, 1].map((r) => ({
    r,
    data: { mean: 0.14, median: 0.08, q15: 0.01, q90: 0.4 },
    epsilons: [{
      epsilon: 5,
      mechanisms: {
        lw: entry(2.4, 0.05, truth + 0.01),
        "weighted-e": entry(r === 0 ? 2.6 : 2.5, 0.07, truth - 0.01 * (r + 1)),
        "censored-w": entry(2.5, 0.06, truth),
        censored: entry(2.5, 0.09, truth),
        histogram: r === 0 ? entry(null, 0.2, truth + 0.05) : null,
      },
      retuned: {
        lw: r === 0 ? entry(2.7, 0.06, truth) : null,
        "weighted-e": entry(2.4, 0.05, truth),
        "censored-w": entry(2.5, 0.055, truth),
      },
    }],
    fits: { fits: 1, flagged: 0, flaggedLikelihood: 0, divergences: 0 },
  }));
  const summary = fiveAggregate(records, { ...QUICK, epsilons: [5] });
  const [five] = summary.epsilons;
  assert.equal(five.mechanisms["weighted-e"]!.shareAbove, 0.5); // 2.6 > 2.5, 2.5 is not
  assert.equal(five.mechanisms.lw!.shareAbove, 0);
  assert.equal(five.mechanisms.histogram!.replicates, 1);
  assert.equal(five.mechanisms.histogram!.lipschitz, null);
  assert.ok(Math.abs(five.mechanisms["weighted-e"]!.medianBias + 0.015) < 1e-12);
  assert.ok(Math.abs(five.mechanisms["weighted-e"]!.medianRmse - Math.sqrt(0.00025)) < 1e-12);
  assert.deepEqual(five.rankEcdfMax, ["lw", "censored-w", "weighted-e", "censored", "histogram"]);
  assert.deepEqual(five.rankEcdfMeanSquared, five.rankEcdfMax);
  // The other tuning is summarised alike: the fixed-rule Weighted released once, above ε/2.
  assert.equal(five.retuned.lw!.replicates, 1);
  assert.equal(five.retuned.lw!.shareAbove, 1);
  assert.equal(five.retuned["censored-w"]!.replicates, 2);
});
