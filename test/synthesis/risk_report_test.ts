import assert from "node:assert/strict";
import type { OutputColumn } from "../../src/data/csv.ts";
import { Rng } from "../../src/random/rng.ts";
import { identificationRisk } from "../../src/synthesis/risk.ts";
import { type ReportVariable, riskReport } from "../../src/synthesis/risk_report.ts";

const synthesized: ReportVariable[] = [
  { name: "A", kind: "numeric" },
  { name: "B", kind: "categorical", levels: ["a", "b"] },
];

function dataset(g: string[], a: number[], b: string[]): Map<string, OutputColumn> {
  return new Map<string, OutputColumn>([["g", g], ["A", Float64Array.from(a)], ["B", b]]);
}

Deno.test("`riskReport()` matches the hand count: keys equal, numbers within 10%, ties at the tolerance", () => {
  const confidential = dataset(["u", "u", "v", "v", "u"], [10, 10.5, 20, 100, 50], [
    "a",
    "a",
    "b",
    "a",
    "b",
  ]);
  // Synthetic 1. Record 0 (u, 10, a): (u, a) holds 10.8, 30, 50; [9, 11] holds 10.8 (its own):
  // c = 1, T = 1. Record 1 (u, 10.5, a): [9.45, 11.55] holds 10.8 (record 0's): c = 1, T = 0.
  // Record 2 (v, 20, b): 21 within 2: c = 1, T = 1. Record 3 (v, 100, a): 100: c = 1, T = 1.
  // Record 4 (u, 50, b): no synthetic (u, b): c = 0. EMR = 3, TMR = 3/5.
  // Replicated uniques: (v, 100, a) only.
  const s1 = dataset(["u", "u", "v", "v", "u"], [10.8, 30, 21, 100, 50], ["a", "a", "b", "a", "a"]);
  // Synthetic 2. Record 0: [9, 11] holds 10 and 10.2: c = 2, T = 1. Record 1: [9.45, 11.55] holds
  // both: c = 2, T = 1. Record 2: 20: c = 1, T = 1. Record 3: 95 within 10: c = 1, T = 1.
  // Record 4 (u, 50, b): 55, exactly 5 away (the tolerance): c = 1, T = 1.
  // EMR = ½ + ½ + 1 + 1 + 1 = 4, TMR = 3/5; replicated uniques (u, 10, a) and (v, 20, b).
  const s2 = dataset(["u", "u", "v", "v", "u"], [10, 10.2, 20, 95, 55], ["a", "a", "b", "a", "b"]);
  const report = riskReport({ confidential, synthetic: [s1, s2], synthesized, public: ["g"] });
  assert.deepEqual(report.byDataset, [
    { expectedMatchRisk: 3, trueMatchRate: 0.6, matched: 4, replicatedUniques: 1 },
    { expectedMatchRisk: 4, trueMatchRate: 0.6, matched: 5, replicatedUniques: 2 },
  ]);
  assert.deepEqual(report.mean, {
    expectedMatchRisk: 3.5,
    trueMatchRate: 0.6,
    replicatedUniques: 1.5,
  });
  assert.equal(report.tolerance, 0.1);
  assert.equal(report.toleranceMode, "relative");
  assert.deepEqual(report.keys, ["g"]);
  assert.deepEqual(report.synthesized, ["A", "B"]);
  assert.equal(report.confidentialUniques, 5);
  // A tolerance of 0: only exact numbers match. Synthetic 2: records 0 and 2 (c = 1, T = 1).
  const strict = riskReport({ confidential, synthetic: [s2], synthesized, public: ["g"] }, {
    tolerance: 0,
  });
  assert.deepEqual(strict.byDataset[0], {
    expectedMatchRisk: 2,
    trueMatchRate: 0.4,
    matched: 2,
    replicatedUniques: 2,
  });
});

Deno.test("`riskReport()`: a reproduced record that is not unique in the confidential data is not a replicated unique", () => {
  const confidential = dataset(["u", "u", "v"], [1, 1, 2], ["a", "a", "b"]);
  const synthetic = dataset(["u", "u", "v"], [1, 1, 2], ["a", "a", "b"]);
  const report = riskReport({ confidential, synthetic: [synthetic], synthesized, public: ["g"] });
  assert.equal(report.confidentialUniques, 1);
  assert.equal(report.byDataset[0].replicatedUniques, 1);
  // Records 0 and 1 each match both (c = 2, T = 1); record 2 matches itself alone.
  assert.equal(report.byDataset[0].expectedMatchRisk, 2);
  assert.equal(report.byDataset[0].trueMatchRate, 1 / 3);
});

Deno.test("`riskReport()` with one numeric variable and no keys equals `identificationRisk()` (relative)", () => {
  const rng = new Rng(20240615);
  const n = 400;
  // Integer values with many ties, as counts have.
  const y = Float64Array.from({ length: n }, () => Math.floor(rng.uniform() * 60));
  const ystar = Float64Array.from({ length: n }, () => Math.floor(rng.uniform() * 60));
  for (const tolerance of [0, 0.05, 0.1, 0.3]) {
    const report = riskReport({
      confidential: new Map([["y", y]]),
      synthetic: [new Map([["y", ystar]])],
      synthesized: [{ name: "y", kind: "numeric" }],
      public: [],
    }, { tolerance });
    const single = identificationRisk(y, ystar, { radius: tolerance, relative: true });
    const { expectedMatchRisk, trueMatchRate } = report.byDataset[0];
    assert.ok(Math.abs(expectedMatchRisk - single.expectedMatchRisk) < 1e-9, `r = ${tolerance}`);
    assert.equal(trueMatchRate, single.trueMatchRate);
  }
});

/** The definitions record by record: O(n²). */
function naive(
  conf: { g: number[]; a: number[]; z: number[]; b: string[] },
  syn: { g: number[]; a: number[]; z: number[]; b: string[] },
  tolerance: number,
) {
  const n = conf.g.length;
  const matches = (i: number, j: number) =>
    conf.g[i] === syn.g[j] && conf.b[i] === syn.b[j] &&
    Math.abs(syn.a[j] - conf.a[i]) <= tolerance * Math.abs(conf.a[i]) &&
    Math.abs(syn.z[j] - conf.z[i]) <= tolerance * Math.abs(conf.z[i]);
  let expected = 0;
  let unique = 0;
  let matched = 0;
  for (let i = 0; i < n; i++) {
    let c = 0;
    for (let j = 0; j < n; j++) if (matches(i, j)) c++;
    if (c > 0) matched++;
    if (c > 0 && matches(i, i)) (expected += 1 / c, unique += c === 1 ? 1 : 0);
  }
  const key = (d: typeof conf, i: number) => `${d.g[i]}|${d.a[i]}|${d.z[i]}|${d.b[i]}`;
  const counts = new Map<string, number>();
  for (let i = 0; i < n; i++) counts.set(key(conf, i), (counts.get(key(conf, i)) ?? 0) + 1);
  let replicated = 0;
  for (let j = 0; j < n; j++) if (counts.get(key(syn, j)) === 1) replicated++;
  return {
    expectedMatchRisk: expected,
    trueMatchRate: unique / n,
    matched,
    replicatedUniques: replicated,
  };
}

Deno.test("`riskReport()` equals the O(n²) definitions on random data with ties (two numeric variables)", () => {
  const seed = crypto.getRandomValues(new Uint32Array(1))[0];
  const rng = new Rng(seed);
  const n = 300;
  const draw = () => ({
    g: Array.from({ length: n }, () => Math.floor(rng.uniform() * 3)),
    a: Array.from({ length: n }, () => Math.floor(rng.uniform() * 20) - 5),
    z: Array.from({ length: n }, () => Math.round(rng.uniform() * 40) / 4),
    b: Array.from({ length: n }, () => rng.uniform() < 0.5 ? "a" : "b"),
  });
  const toColumns = (d: ReturnType<typeof draw>) =>
    new Map<string, OutputColumn>([
      ["g", Float64Array.from(d.g)],
      ["A", Float64Array.from(d.a)],
      ["Z", Float64Array.from(d.z)],
      ["B", d.b],
    ]);
  const conf = draw();
  const syn = draw();
  for (const tolerance of [0, 0.1, 0.25]) {
    const report = riskReport({
      confidential: toColumns(conf),
      synthetic: [toColumns(syn)],
      synthesized: [
        { name: "A", kind: "numeric" },
        { name: "Z", kind: "numeric" },
        { name: "B", kind: "categorical", levels: ["a", "b"] },
      ],
      public: ["g"],
    }, { tolerance });
    const want = naive(conf, syn, tolerance);
    const got = report.byDataset[0];
    assert.ok(
      Math.abs(got.expectedMatchRisk - want.expectedMatchRisk) < 1e-9,
      `seed ${seed}, r = ${tolerance}: ${got.expectedMatchRisk} vs ${want.expectedMatchRisk}`,
    );
    assert.deepEqual(
      { ...got, expectedMatchRisk: 0 },
      { ...want, expectedMatchRisk: 0 },
      `seed ${seed}, r = ${tolerance}`,
    );
  }
});

Deno.test("`riskReport()`: bad inputs are clear errors", () => {
  const confidential = dataset(["u", "v"], [1, 2], ["a", "b"]);
  const short = dataset(["u"], [1], ["a"]);
  assert.throws(
    () => riskReport({ confidential, synthetic: [short], synthesized, public: ["g"] }),
    /Invalid synthetic dataset 1: column "g" has 1 rows, expected 2/,
  );
  assert.throws(
    () =>
      riskReport({ confidential, synthetic: [confidential], synthesized, public: ["g"] }, {
        tolerance: -1,
      }),
    /Invalid tolerance/,
  );
  assert.throws(
    () => riskReport({ confidential, synthetic: [confidential], synthesized, public: ["h"] }),
    /no column "h"/,
  );
});
