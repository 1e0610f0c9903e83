/**
 * Issue 34, F1 (high): every synthetic CSV listed the public `x` values in the stored order of the
 * confidential file, so on a file sorted by a confidential column the release's row numbers gave
 * every record's rank (400 of 400 salary ranks from one ε = 0.01 histogram release), whatever the
 * mechanism and ε.
 *
 * The attack here: the confidential file is sorted by its confidential outcome `salary`, and its
 * public covariate `id` is distinct per record (so each released row names its record). The
 * analyst reads, for release row r, the record its `id` names; under the stored order that record
 * is the r-th smallest salary, so the Spearman correlation between row number and the salary
 * rank of the named record is 1. A release in an order that depends on no confidential value has
 * |ρ| < 0.1 (its standard deviation is 1/√(n − 1) under a uniform order: 0.032 at n = 1000 and
 * 0.022 at n = 2000, so 0.1 is more than 3 and 4.5 standard deviations).
 *
 * Three paths: `synthesize` itself for every mechanism of the registry (seeded), `deno task synth`
 * (the CLI), and the API on a registered dataset (the release's secret CSPRNG seed).
 */
import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { MECHANISM_NAMES, type MechanismName } from "../../src/mechanisms/mechanism.ts";
import { correlation } from "../../src/stats/correlation.ts";
import { synthesize } from "../../src/synthesis/synthesize.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";
import { runCliOk } from "../cli/_helpers.ts";
import * as h from "./_helpers.ts";

/** A fixed pseudo-random permutation of 0..n−1 (public ids uncorrelated with salary). */
function publicIds(n: number): number[] {
  const ids = Array.from({ length: n }, (_, i) => i);
  let state = 12345;
  for (let i = n - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return ids;
}

/** The confidential file, sorted by salary: record i has the (i+1)-th smallest salary. */
function sortedCsv(n: number): string {
  const ids = publicIds(n);
  const rows = ids.map((id, i) => `${id},${(30000 + 40 * i + (i % 7) * 3).toFixed(2)}`);
  return ["id,salary", ...rows].join("\n") + "\n";
}

/**
 * The attack's Spearman ρ between release row number and the salary rank of the record each
 * row's public id names (ranks are the record indices: the file is sorted by salary).
 */
function rankCorrelation(releasedIds: ArrayLike<number | string>, n: number): number {
  const rankOfId = new Map(publicIds(n).map((id, i) => [id, i]));
  const ranks = Float64Array.from(releasedIds, (id) => {
    const rank = rankOfId.get(Number(id));
    assert.ok(rank !== undefined, `released id ${id} is not a record's`);
    return rank;
  });
  return correlation(Float64Array.from(ranks, (_, r) => r), ranks);
}

/** Settings that let each mechanism run on the sorted file (ε caps it meets at n = 1000). */
function mechanismSettings(mechanism: MechanismName): Record<string, unknown> {
  switch (mechanism) {
    case "unweighted":
      return {};
    case "histogram":
      return { epsilon: 1, lower: 0, upper: 100_000, bins: 20 };
    default:
      return { epsilon: 60 };
  }
}

const N = 1000;

for (const mechanism of MECHANISM_NAMES) {
  Deno.test(`row order (F1): ${mechanism} releases rows in an order unrelated to the sorted confidential column`, async () => {
    const data = parseCsv(sortedCsv(N), "sorted.csv");
    const spec = SynthesisSpec.parse({
      y: "salary",
      x: ["id"],
      model: "normal",
      mechanism,
      m: 2,
      seed: 7,
      draws: 400,
      chains: 2,
      warmup: 150,
      allowFlagged: true,
      ...mechanismSettings(mechanism),
    });
    const result = await synthesize(data, spec);
    assert.equal(result.datasets.length, 2);
    for (const [j, columns] of result.datasets.entries()) {
      const rho = rankCorrelation(columns.get("id")!, N);
      assert.ok(Math.abs(rho) < 0.1, `${mechanism}, dataset ${j + 1}: row-rank ρ = ${rho}`);
    }
  });
}

Deno.test("row order (F1): `deno task synth` writes rows in an order unrelated to the sorted confidential column", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_row_order_" });
  try {
    await Deno.writeTextFile(`${dir}/sorted.csv`, sortedCsv(N));
    await runCliOk("synth.ts", [
      `--data=${dir}/sorted.csv`,
      "--y=salary",
      "--x=id",
      "--model=normal",
      "--mechanism=histogram",
      "--epsilon=1",
      "--lower=0",
      "--upper=100000",
      "--bins=20",
      "--m=2",
      `--out=${dir}/out`,
    ]);
    for (const k of [1, 2]) {
      const file = parseCsv(await Deno.readTextFile(`${dir}/out/synthetic-${k}.csv`), "out");
      const id = file.columns.get("id")!;
      assert.equal(id.kind, "numeric");
      const rho = rankCorrelation(id.values, N);
      assert.ok(Math.abs(rho) < 0.1, `synthetic-${k}.csv: row-rank ρ = ${rho}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("row order (F1): an API release on a registered sorted file gives the analyst no ranks", async () => {
  const n = 2000;
  const t = await h.testApp();
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: datasetId } = await h.register(t, owner, {
      epsilonTotal: 10,
      csv: sortedCsv(n),
      publicColumns: ["id"],
      bounds: { salary: [0, 200_000] },
    });
    for (
      const request of [
        { mechanism: "histogram", epsilon: 0.01, bins: 20 },
        { mechanism: "sw", epsilon: 4 },
      ]
    ) {
      const job = await h.succeededSynthesis(t, analyst, {
        y: "salary",
        x: ["id"],
        model: "normal",
        datasetId,
        m: 1,
        ...request,
      });
      const csv = await (await h.get(t, `/v1/syntheses/${job.id}/datasets/1`, analyst)).text();
      const id = parseCsv(csv, "release").columns.get("id")!;
      assert.equal(id.kind, "numeric");
      const rho = rankCorrelation(id.values, n);
      assert.ok(Math.abs(rho) < 0.1, `${request.mechanism}: row-rank ρ = ${rho}`);
    }
  });
});
