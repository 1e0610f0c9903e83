import { studyMarkdown, withDocument } from "../../src/studies/study_report.ts";
import {
  CONTRACTION_RULES,
  CONTRACTION_SETTINGS,
  contractionAggregate,
  type ContractionRule,
  type ContractionSettings,
  fixedRuleBound,
  study,
} from "../../src/studies/contraction.ts";
import type {
  ContractionEntry,
  ContractionRecord,
} from "../../src/studies/contraction_settings.ts";
import { runSerialAndParallel } from "./_quick.ts";
import assert from "node:assert/strict";

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
    assert.deepEqual(record.generators.map((g) => g.name), ["poisson", "nb-mixture"]);
    for (const [i, generator] of record.generators.entries()) {
      const global = QUICK.generators[i].global;
      assert.deepEqual(generator.sizes.map((s) => s.n), [40, 160]);
      for (const size of generator.sizes) {
        const { unweighted } = size.rules;
        const fixed = size.rules["lw-fixed"]!;
        const weightedE = size.rules["weighted-e"]!;
        assert.equal(size.fMax, unweighted!.lipschitz);
        assert.ok(size.fMin > 0 && size.fMin < size.fMax);
        // The fixed rule zeroes the riskiest record and leaves the bound far below Δ_x.
        assert.ok(fixed.lipschitz < unweighted!.lipschitz);
        assert.ok(fixed.zeroWeights >= 1 && unweighted!.zeroWeights === 0);
        assert.ok(weightedE.zeroWeights >= fixed.zeroWeights);
        if (fixed.lipschitz <= global) assert.deepEqual(weightedE, fixed);
        // The calibrated rules never end above the global value; LW_final's k is below 1.
        const calibrated = size.rules["lw-calibrated"];
        const final = size.rules["lw-final"];
        if (calibrated !== null) assert.ok(calibrated.lipschitz <= global);
        if (final !== null) {
          assert.ok(final.lipschitz <= global);
          if (final.k !== null) assert.ok(final.k < 1);
        }
      }
    }
  }
  const { summary } = serial;
  assert.deepEqual(summary.generators.map((g) => g.global), [3.5, 6]);
  for (const generator of summary.generators) {
    assert.deepEqual(generator.sizes.map((s) => s.n), [40, 160]);
    assert.deepEqual(Object.keys(generator.trends), [...CONTRACTION_RULES]);
    for (const size of generator.sizes) {
      assert.equal(size.rules["lw-final"]?.above ?? 0, 0);
    }
  }
  assert.ok(summary.fits.fits >= 2 * 2 * 2 * 3);
  const markdown = studyMarkdown(study, withDocument(study, serial), "footer");
  assert.match(
    markdown,
    /## Verdict against the papers\n\n\| paper reports \| paper \| ppsynth \|/,
  );
  assert.match(markdown, /\| 160 \| Weighted-e \|/);
  assert.match(markdown, /## NB mixture \(global Δ_α = 6, ε = 12\)/);
  assert.match(markdown, /footer/);
});

function entry(lipschitz: number, extra: Partial<ContractionEntry> = {}): ContractionEntry {
  return { lipschitz, muMean: 100, zeroWeights: 1, g: null, k: null, ...extra };
}

/** A record whose rule r has Δ = bounds[j][r index] at the j-th size, for one generator. */
function record(r: number, bounds: number[][]): ContractionRecord {
  const sizes = bounds.map((perRule, j) => ({
    n: [100, 400][j],
    fMin: 3,
    fMax: 10 + j,
    rules: Object.fromEntries(
      CONTRACTION_RULES.map((rule, m) => [
        rule,
        rule === "lw-calibrated" && r === 2 ? null : entry(perRule[m], {
          k: rule === "lw-final" || rule === "lw-fixed-final" ? 0.95 : null,
          g: rule === "lw-final" || rule === "lw-calibrated" ? -0.1 : null,
          zeroWeights: rule === "unweighted" ? 0 : 1,
        }),
      ]),
    ) as Record<ContractionRule, ContractionEntry | null>,
  }));
  return {
    r,
    generators: [{
      name: "poisson",
      sizes,
      fits: { fits: 5, flagged: r, flaggedLikelihood: 0, divergences: 0 },
    }],
  };
}

Deno.test("`contractionAggregate()` on hand-made records: quantiles, P(Δ > Δ_α), trends", () => {
  const settings: ContractionSettings = {
    ...QUICK,
    sizes: [100, 400],
    generators: [{ name: "poisson", global: 3.5 }],
  };
  // Rules in order: unweighted, lw-fixed, lw-calibrated, lw-final, lw-fixed-final, weighted-e.
  const records = [
    record(0, [[9, 3.0, 3.4, 3.2, 2.9, 3.0], [9, 3.4, 3.45, 3.3, 3.3, 3.45]]),
    record(1, [[8, 3.8, 3.3, 3.4, 3.7, 3.6], [12, 3.6, 3.44, 3.31, 3.55, 3.5]]),
    record(2, [[7, 3.2, 3.5, 3.1, 3.1, 3.2], [9.5, 3.7, 3.4, 3.29, 3.6, 3.48]]),
  ];
  const summary = contractionAggregate(records, settings);
  const [poisson] = summary.generators;
  const [small, large] = poisson.sizes;
  const fixed = small.rules["lw-fixed"]!;
  assert.deepEqual([fixed.lipschitz.min, fixed.lipschitz.median, fixed.lipschitz.max], [
    3,
    3.2,
    3.8,
  ]);
  // Type-7 5% and 95% of 3.0, 3.2, 3.8: h = 1.1 → 3.02; h = 2.9 → 3.2 + 0.9·0.6 = 3.74.
  assert.ok(Math.abs(fixed.q05 - 3.02) < 1e-12 && Math.abs(fixed.q95 - 3.74) < 1e-12);
  assert.equal(fixed.above, 1);
  assert.equal(fixed.shareAbove, 1 / 3);
  assert.equal(large.rules["weighted-e"]!.above, 0); // 3.5 is not above 3.5
  assert.equal(small.rules["lw-calibrated"]!.replicates, 2);
  assert.deepEqual(small.rules["lw-final"]!.k!.accepted!.median, 0.95);
  assert.equal(small.rules["lw-final"]!.k!.none, 0);
  assert.equal(small.rules["lw-fixed"]!.k, null);
  // The fixed rule with Algorithm 3: its k is summarised, and it ends above 3.5 on one database
  // at n = 100 and two at n = 400 (3.55, 3.6).
  assert.equal(small.rules["lw-fixed-final"]!.k!.accepted!.median, 0.95);
  assert.deepEqual(poisson.trends["lw-fixed-final"]!.sharesAbove, [1 / 3, 2 / 3]);
  assert.equal(small.rules.unweighted!.g, null);
  const trend = poisson.trends["lw-final"]!;
  assert.equal(trend.q95Falls, true); // 3.38 → 3.3095
  assert.equal(trend.spreadFalls, true); // 0.3 → 0.02
  assert.equal(poisson.trends["lw-fixed"]!.q95Falls, true); // 3.74 → 3.69
  assert.equal(poisson.trends["lw-fixed"]!.spreadFalls, true); // 0.8 → 0.3
  assert.equal(poisson.trends.unweighted!.spreadFalls, false); // 2 → 3
  assert.deepEqual(poisson.trends.unweighted!.sharesAbove, [1, 1]);
  assert.equal(small.fMax.median, 10);
  assert.ok(Math.abs(small.fixedRulePredicted.median - 100 / 28) < 1e-12);
  assert.equal(summary.fits.flagged, 3);
  assert.equal(summary.fits.flaggedShare, 3 / 15);
});

Deno.test("`fixedRuleBound()` is f_max²/(4(f_max − f_min)) for c = 1, g = 0 and falls with g", () => {
  for (const [lo, hi] of [[3, 10], [3.2, 11], [4.4, 19.6]]) {
    assert.ok(Math.abs(fixedRuleBound(lo, hi, 1, 0) - hi ** 2 / (4 * (hi - lo))) < 1e-12);
  }
  // The bound rises with f_max: the fixed rule's drift with n.
  assert.ok(fixedRuleBound(3.2, 11, 1, 0) > fixedRuleBound(3.2, 9, 1, 0));
  assert.ok(fixedRuleBound(3, 10, 1, -0.1) < fixedRuleBound(3, 10, 1, 0));
  assert.throws(() => fixedRuleBound(5, 5, 1, 0), RangeError);
});
