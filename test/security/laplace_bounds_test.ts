/**
 * Issue 22, critical: the Laplace table scaled its noise by the data's own local sensitivities
 * (count: the largest weight; mean: a lone record's |y|), so the spread of the noise over many
 * tables, and the secure sampler's grid step 2^(⌊log₂ Δ⌋ − 20) in every released value, told the
 * largest weight and a lone record's salary. On a registered dataset a Laplace table now needs
 * the owner's declared bounds of `y` and `weight`, and its noise scale and grid come from them
 * and ε only.
 */
import assert from "node:assert/strict";
import { laplaceQueryGrid } from "../../src/mechanisms/secure_laplace.ts";
import * as h from "./_helpers.ts";

/** Declared bounds: far above the data's largest weight and salary. */
const W_BOUNDS = [0, 2000] as const;
const Y_BOUNDS = [0, 1_000_000] as const;

/**
 * 400 records in 8 fields × 2 genders, weights 10–50 but one of 300, salaries 30k–90k, and one
 * record of 150,000 alone in its own cell (gender "x").
 */
function records(): Record<string, string | number>[] {
  const rows = Array.from({ length: 399 }, (_, i) => ({
    field: `f${i % 8}`,
    gender: i % 3 === 0 ? "female" : "male",
    salary: 30_000 + ((i * 7919) % 60_000),
    w: 10 + ((i * 37) % 40),
  }));
  rows[17].w = 300;
  rows.push({ field: "f3", gender: "x", salary: 150_000, w: 20 });
  return rows;
}

/** The exponent of the largest power of two dividing a nonzero float. */
function twoAdic(x: number): number {
  let k = Math.floor(Math.log2(Math.abs(x))) + 1;
  while (!Number.isInteger(x / 2 ** k)) k--;
  return k;
}

/**
 * The Laplace scale b of the noise, from the spread of each cell's released values over the
 * tables: the pooled variance within cells is 2b².
 */
function noiseScale(tables: Record<string, number>[][], key: string): number {
  let squares = 0;
  let dof = 0;
  for (let r = 0; r < tables[0].length; r++) {
    const values = tables.map((rows) => rows[r][key]);
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    squares += values.reduce((s, v) => s + (v - mean) ** 2, 0);
    dof += values.length - 1;
  }
  return Math.sqrt(squares / dof / 2);
}

Deno.test("laplace noise scale: 16 tables show the declared bounds' scale and grid, not the largest weight or a lone salary", async () => {
  const t = await h.testApp({}, false);
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: datasetId } = await h.register(t, owner, {
      epsilonTotal: 10,
      records: records(),
      publicColumns: ["field", "gender"],
      bounds: { salary: Y_BOUNDS, w: W_BOUNDS },
    });
    const epsilon = 0.5;
    const tables: Record<string, number>[][] = [];
    for (let k = 0; k < 16; k++) {
      const response = await h.post(t, "/v1/tables", analyst, {
        ...h.SURVEY_COLUMNS,
        datasetId,
        method: "laplace",
        epsilon,
      }, `scale-${k}`);
      const body = await response.json();
      assert.equal(response.status, 200, JSON.stringify(body).slice(0, 300));
      tables.push(body.rows);
    }
    // ε_pc = ε/8: each unit is in 4 cells of each of the 2 tables.
    const perCell = epsilon / 8;
    const countScale = W_BOUNDS[1] / perCell;
    const meanScale = (Y_BOUNDS[1] - Y_BOUNDS[0]) / perCell;
    const counts = noiseScale(tables, "count");
    const means = noiseScale(tables, "mean");
    // The data's local scales would be 300/ε_pc' and 150,000/ε_pc' (ε_pc' = ε/16 before).
    assert.ok(
      counts > 0.75 * countScale && counts < 1.33 * countScale,
      `the counts' noise scale ${counts.toFixed(0)} is not the declared bound's ${countScale}`,
    );
    assert.ok(
      means > 0.75 * meanScale && means < 1.33 * meanScale,
      `the means' noise scale ${means.toFixed(0)} is not the declared bound's ${meanScale}`,
    );
    const grid = (key: string) =>
      Math.min(...tables.flat().map((row) => row[key]).filter((v) => v !== 0).map(twoAdic));
    assert.equal(
      grid("count"),
      laplaceQueryGrid(W_BOUNDS[1], perCell).exponent,
      "the counts' grid step shows a sensitivity other than the declared bound's",
    );
    assert.equal(
      grid("mean"),
      laplaceQueryGrid(Y_BOUNDS[1] - Y_BOUNDS[0], perCell).exponent,
      "the means' grid step shows a sensitivity other than the declared bound's",
    );
  });
});

Deno.test("laplace without declared bounds: refused 422 bounds_required on a registered dataset, nothing charged", async () => {
  const t = await h.testApp({}, false);
  await h.withTenant(t, async ({ owner, analyst }) => {
    const request = { ...h.SURVEY_COLUMNS, method: "laplace", epsilon: 1 };
    for (
      const [bounds, field] of [
        [{}, "y"],
        [{ w: W_BOUNDS }, "y"],
        [{ salary: Y_BOUNDS }, "weight"],
      ] as const
    ) {
      const { id: datasetId } = await h.registerSurvey(t, owner, 10, { bounds });
      const error = await h.assertRefused(
        t,
        await h.post(t, "/v1/tables", analyst, { ...request, datasetId }),
        { status: 422, code: "bounds_required", field },
        analyst,
        `a laplace table with bounds of ${Object.keys(bounds).join(", ") || "nothing"}`,
      );
      assert.match(error.message, new RegExp(`bounds of its ${field} column`));
      const budget = await (await h.get(t, `/v1/datasets/${datasetId}/budget`, analyst)).json();
      assert.equal(budget.spent, 0, "a refused table is not charged");
    }
  });
});
