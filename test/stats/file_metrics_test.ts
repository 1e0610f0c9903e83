import assert from "node:assert/strict";
import { CRC_FEATURE_SETS, sdnistAcsBinnings } from "../../src/stats/crc_feature_sets.ts";
import { kMarginal } from "../../src/stats/k_marginal.ts";
import { columnTvds, threeWayTvd } from "../../src/stats/marginal_tvd.ts";
import { propensityMse } from "../../src/stats/pmse.ts";
import { binFilePair, densityBins, percentileBins } from "../../src/stats/sdnist_binning.ts";
import { weightedTotals } from "../../src/stats/weighted_totals.ts";
import { Rng } from "../../src/random/rng.ts";

const file = (columns: Record<string, string[]>) => new Map(Object.entries(columns));

Deno.test("`percentileBins()` ranks ties by their average, keeps N apart and bins synthetic values by the confidential edges", () => {
  // Non-N confidential values sorted: 1, 2, 3, 3, 3, 5, 7, 9, 10 (n = 9). Ranks 1, 2, (3+4+5)/3 = 4,
  // 6, 7, 8, 9; r/n·20 = 2.2, 4.4, 8.9, 13.3, 15.6, 17.8, 20 → bins 2, 4, 8, 13, 15, 17, 19 (r/n = 1).
  const conf = ["5", "1", "3", "3", "N", "7", "9", "3", "2", "10"];
  // Synthetic values truncate (3.7 → 3). Edges: bin 2 ≤ 1, 4 ≤ 2, 8 ≤ 3, 13 ≤ 5, 15 ≤ 7, 17 ≤ 9,
  // 19 above 9. The first bin is 2, not 0, so (SDNist's loop starting from 0) only 0 < v ≤ 1 goes
  // to bin 2 and 0 and −2 keep their own values.
  const syn = ["0", "1", "4", "3.7", "N", "100", "-2", "6"];
  const binned = percentileBins(conf, syn);
  assert.deepEqual(binned.confidential, ["13", "2", "8", "8", "N", "15", "17", "8", "4", "19"]);
  assert.deepEqual(binned.synthetic, ["0", "2", "13", "8", "N", "19", "-2", "15"]);
});

Deno.test("`percentileBins()` gives an own-bin code (POVPIP's 501) its bin, last in order", () => {
  // Ranked: 10 (r/n = ½ → bin 10), 20 (r/n = 1 → 19); 501 is bin 501 with edge 501, the last bin.
  const binned = percentileBins(["501", "10", "20", "501", "N"], ["501", "15", "499", "5", "N"], {
    ownBins: ["501"],
  });
  assert.deepEqual(binned.confidential, ["501", "10", "19", "501", "N"]);
  // 5 ≤ 10 → bin 10; 10 < 15 ≤ 20 → 19; 499 and 501 > 20 → 501.
  assert.deepEqual(binned.synthetic, ["501", "19", "501", "10", "N"]);
  assert.throws(() => percentileBins(["1", "x"], ["1"], { column: "AGEP" }), /AGEP at row 2/);
});

Deno.test("`densityBins()` uses SDNist's log edges from the codebook maximum", () => {
  // max + 500 = 53364.7, log10 = 4.72727, step 0.186363; edges 0, 150, 10^2.4909 = 309.7,
  // 10^2.6773 = 475.6, 730.5, 1122.0, 1723.3, 2647.0, 4065.6, …, 53364.7.
  const bins = densityBins(
    ["100", "200", "1457.2", "2195.3", "3683.9", "-3", "60000", "N"],
    52864.7,
  );
  // −3 → 0, outside (0, 150]: no cell; 60000 → 53264.7, the last of 14 bins.
  assert.deepEqual(bins, ["0", "1", "5", "6", "7", null, "13", "N"]);
});

// The k-marginal hand case. Geography G ∈ {A, B}; features X, Y, Z (categories).
//   confidential (N = 4)          synthetic (N = 4)
//   G X Y Z                       G X Y Z
//   A 1 u p                       A 1 u p
//   A 2 u q                       A 1 u q
//   B 1 v p                       B 1 v p
//   B 1 v q                       B 1 v p
// Pairs (X,Y), (X,Z), (Y,Z) over (G, f1, f2), densities count/4:
//   (X,Y): t = {A1u ¼, A2u ¼, B1v ½}, s = {A1u ½, B1v ½}: d = ¼ + ¼ + 0 = ½.
//   (X,Z): t = {A1p ¼, A2q ¼, B1p ¼, B1q ¼}, s = {A1p ¼, A1q ¼, B1p ½}: d = 0 + ¼ + ¼ + ¼ + ¼ = 1.
//   (Y,Z): t = {Aup ¼, Auq ¼, Bvp ¼, Bvq ¼}, s = {Aup ¼, Auq ¼, Bvp ½}: d = ¼ + ¼ = ½.
// mean d = 2/3, score = (2 − 2/3)·500 = 666.67, reported 666.
// Per geography (N_A = N_B = 2, scale N/N_g = 2): A: (X,Y) min(½, ½)·2 = 1, (X,Z) min(½, ½)·2 = 1,
// (Y,Z) 0 → mean 2/3 → (1 − 2/3)·1000 = 333.3; B: 0, 1, min(½, ½)·2 = 1 → 333.3.
const handConf = file({
  G: ["A", "A", "B", "B"],
  X: ["1", "2", "1", "1"],
  Y: ["u", "u", "v", "v"],
  Z: ["p", "q", "p", "q"],
});
const handSyn = file({
  G: ["A", "A", "B", "B"],
  X: ["1", "1", "1", "1"],
  Y: ["u", "u", "v", "v"],
  Z: ["p", "q", "p", "p"],
});

Deno.test("`kMarginal()` matches the hand-computed case: pooled d over (geography, f1, f2), ⌊(2 − mean d)·500⌋", () => {
  const result = kMarginal(handConf, handSyn, { features: ["G", "X", "Y", "Z"], geography: "G" });
  assert.deepEqual(result.pairs.map((p) => [p.features.join(","), p.distance]), [
    ["X,Y", 0.5],
    ["X,Z", 1],
    ["Y,Z", 0.5],
  ]);
  assert.ok(Math.abs(result.score - 2000 / 3) < 1e-9);
  assert.equal(result.reported, 666);
  assert.ok(Math.abs(result.geographyScores.get("A")! - 1000 / 3) < 1e-9);
  assert.ok(Math.abs(result.geographyScores.get("B")! - 1000 / 3) < 1e-9);
  // Without the geography the same pairs are pooled over (f1, f2): (X,Y) t = {1u ¼, 2u ¼, 1v ½},
  // s = {1u ½, 1v ½}: ½; (X,Z) t = {1p ½, 2q ¼, 1q ¼}, s = {1p ¾, 1q ¼}: ¼ + ¼ = ½; (Y,Z) ½ as
  // above (u and v never share a geography). mean ½ → 750.
  assert.equal(kMarginal(handConf, handSyn, { features: ["X", "Y", "Z"] }).reported, 750);
});

Deno.test("`kMarginal()` is 1000 for identical files, 0 for disjoint ones, and leaves INDP out", () => {
  const withIndp = new Map([...handConf, ["INDP", ["1", "2", "3", "4"]]]);
  const features = ["G", "X", "Y", "Z", "INDP"];
  assert.equal(kMarginal(withIndp, withIndp, { features, geography: "G" }).reported, 1000);
  const other = new Map([...handSyn, ["INDP", ["9", "9", "9", "9"]]]);
  assert.equal(kMarginal(withIndp, other, { features, geography: "G" }).reported, 666);
  const disjoint = file({ G: ["A"], X: ["7"], Y: ["w"], Z: ["r"] });
  const result = kMarginal(handConf, disjoint, { features: ["G", "X", "Y", "Z"], geography: "G" });
  assert.equal(result.score, 0);
  // Every group's Σ|t − s| exceeds its Σt, so the clamp leaves N_g/N·N/N_g = 1: score 0.
  assert.equal(result.geographyScores.get("A"), 0);
  assert.equal(result.geographyScores.get("B"), 0);
});

Deno.test("`columnTvds()` and `threeWayTvd()` match hand values", () => {
  const binned = binFilePair(
    handConf,
    handSyn,
    new Map(["X", "Y", "Z"].map((c) => [c, { kind: "category" }])),
  );
  // X: t = (¾, ¼), s = (1, 0): ½(¼ + ¼) = ¼. Y: identical, 0. Z: t = (½, ½), s = (¾, ¼): ¼.
  assert.deepEqual(
    columnTvds(binned.confidential, binned.synthetic, ["X", "Y", "Z"]).map((m) => m.tvd),
    [0.25, 0, 0.25],
  );
  // (X,Y,Z): t = {1up ¼, 2uq ¼, 1vp ¼, 1vq ¼}, s = {1up ¼, 1uq ¼, 1vp ½}: ½(0 + ¼ + ¼ + ¼ + ¼) = ½.
  const three = threeWayTvd(binned.confidential, binned.synthetic, ["X", "Y", "Z"]);
  assert.equal(three.count, 1);
  assert.equal(three.mean, 0.5);
  assert.deepEqual(three.worst, [{ columns: ["X", "Y", "Z"], tvd: 0.5 }]);
});

Deno.test("`propensityMse()` is 0 for identical files and the cell-proportion closed form for one binary column", () => {
  const same = new Map([["A", ["x", "y", "y", "z"]], ["B", ["1", "1", "2", "2"]]]);
  assert.ok(propensityMse(same, same, ["A", "B"]).pmse < 1e-20);
  // One binary column: conf (a, a, a, b), syn (a, b, b, b). The saturated logistic fit gives each
  // level its synthetic share: p̂_a = 1/4, p̂_b = 3/4; c = ½, N = 8.
  // pMSE = (4·(¼ − ½)² + 4·(¾ − ½)²)/8 = 1/16; null (k − 1)(1 − c)²c/N = 1·¼·½/8 = 1/64; ratio 4.
  const result = propensityMse(
    new Map([["A", ["a", "a", "a", "b"]]]),
    new Map([["A", ["a", "b", "b", "b"]]]),
    ["A"],
  );
  // (The ridge λ = 1e-8 moves p̂ by O(λ·|β|/(n·p̂(1 − p̂))), a few 1e-8 here.)
  assert.equal(result.parameters, 2);
  assert.ok(Math.abs(result.pmse - 1 / 16) < 1e-7);
  assert.equal(result.nullExpectation, 1 / 64);
  assert.ok(Math.abs(result.ratio - 4) < 1e-5);
  // A level in the synthetic file only separates the files: its p̂ → 1. conf (a, a), syn (a, b):
  // p̂_a = 1/3, p̂_b → 1, c = ½: pMSE → (3·(1/3 − ½)² + (1 − ½)²)/4 = (1/12 + 1/4)/4 = 1/12.
  const separated = propensityMse(new Map([["A", ["a", "a"]]]), new Map([["A", ["a", "b"]]]), [
    "A",
  ]);
  assert.ok(Math.abs(separated.pmse - 1 / 12) < 1e-6);
});

Deno.test("`weightedTotals()` sums the weights and each level's weights in both files", () => {
  const conf = file({ W: ["10", "20", "30"], SEX: ["1", "2", "2"] });
  const syn = file({ W: ["5", "50"], SEX: ["1", "1"] });
  const totals = weightedTotals(conf, syn, { weight: "W", columns: ["SEX"] });
  assert.deepEqual(totals.total, { confidential: 60, synthetic: 55 });
  assert.deepEqual(totals.levels, [
    { column: "SEX", level: "1", confidential: 10, synthetic: 55 },
    { column: "SEX", level: "2", confidential: 50, synthetic: 0 },
  ]);
  assert.throws(
    () => weightedTotals(file({ W: ["N"], SEX: ["1"] }), syn, { weight: "W", columns: [] }),
    /row 1/,
  );
});

// NIST's published 40 % subsample baselines on ma2019 (SDNist v2.3.0 reports in the CRC archive,
// bundle 1.0, `…/k_marginal_synopsys/subsample_error_comparison.csv`): all 24 features 936
// (Genetic SD e = 10 report), simple 945 (Genetic SD simple report; the issue quotes ≈ 949),
// demographic-focused 976, family-focused 942, industry-focused 939 (rsynthpop CART reports).
// Each is one random draw; over 10 of our draws the spread is 1.4–1.9 points (SD), so a
// mean of 3 draws within ±10 of the published draw allows 5 SD. Including INDP in the pairs
// would give 926 on all 24 features (measured), outside its band.
Deno.test("`kMarginal()` on ma2019 against 40 % subsamples of itself reproduces NIST's published baselines", async () => {
  const lines = (await Deno.readTextFile(new URL("../../examples/crc/ma2019.csv", import.meta.url)))
    .trim().split(/\r?\n/);
  const header = lines[0].split(",");
  const rows = lines.slice(1).map((line) => line.split(","));
  const data = new Map(header.map((h, j) => [h, rows.map((r) => r[j])]));
  const binnings = sdnistAcsBinnings(52864.7); // data_dictionary.json: DENSITY max
  const subsample = (seed: number) => {
    const n = rows.length;
    const k = Math.round(0.4 * n);
    const order = Array.from({ length: n }, (_, i) => i);
    const rng = new Rng(seed);
    for (let i = 0; i < k; i++) {
      const j = i + Math.floor(rng.uniform() * (n - i));
      [order[i], order[j]] = [order[j], order[i]];
    }
    return new Map(header.map((h) => [h, order.slice(0, k).map((i) => data.get(h)![i])]));
  };
  const draws = [subsample(1), subsample(2), subsample(3)];
  const published: Record<string, number> = {
    "all-features": 936,
    "simple-features": 945,
    "demographic-focused": 976,
    "family-focused": 942,
    "industry-focused": 939,
  };
  for (const [set, expected] of Object.entries(published)) {
    const features = CRC_FEATURE_SETS[set];
    const mean = draws.reduce(
      (sum, draw) => sum + kMarginal(data, draw, { features, geography: "PUMA", binnings }).score,
      0,
    ) / draws.length;
    assert.ok(Math.abs(mean - expected) <= 10, `${set}: ${mean.toFixed(1)} against ${expected}`);
  }
});
