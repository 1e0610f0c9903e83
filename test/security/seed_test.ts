/**
 * Attack 1 of issue 11, chosen seeds: two Laplace tables with the same seed at ε = 1 and ε = 2
 * share their noise, so v = 2·r₂ − r₁ recovers every cell; two syntheses with the same seed give
 * the same bytes. On a registered dataset a seed is refused, and unseeded noise is fresh.
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

type Row = Record<string, string | number | null>;

const cellOf = (row: Row) => `${row.field}/${row.gender}`;

Deno.test("seed differencing: a seed on registered data is refused and unseeded noise does not cancel", async () => {
  const t = await h.testApp({}, false);
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: datasetId } = await h.registerSurvey(t, owner, 20, { bounds: h.SURVEY_BOUNDS });
    const table = { ...h.SURVEY_COLUMNS, datasetId, method: "laplace" };

    // The attack: the same seed at ε = 1 and ε = 2.
    for (const epsilon of [1, 2]) {
      await h.assertRefused(
        t,
        await h.post(t, "/v1/tables", analyst, { ...table, epsilon, seed: 7 }, `seeded-${epsilon}`),
        { status: 422, code: "seed_not_allowed", field: "seed" },
        analyst,
        `a seeded laplace table at ε=${epsilon}`,
      );
    }
    // The same with syntheses.
    for (const k of [1, 2]) {
      await h.assertRefused(
        t,
        await h.post(t, "/v1/syntheses", analyst, {
          ...h.QUICK,
          y: "salary",
          x: ["field"],
          model: "lognormal",
          datasetId,
          epsilon: 5,
          seed: 11,
        }, `seeded-synthesis-${k}`),
        { status: 422, code: "seed_not_allowed", field: "seed" },
        analyst,
        `seeded synthesis ${k}`,
      );
    }
    // And with a table synthesis (fbs runs as a job).
    await h.assertRefused(
      t,
      await h.post(t, "/v1/tables", analyst, {
        ...table,
        method: "fbs",
        epsilon: 5,
        m: 1,
        draws: 20,
        chains: 1,
        warmup: 20,
        seed: 5,
      }, "seeded-fbs"),
      { status: 422, code: "seed_not_allowed", field: "seed" },
      analyst,
      "a seeded fbs table",
    );
    const afterRefusals = await (await h.get(t, `/v1/datasets/${datasetId}/budget`, analyst))
      .json();
    assert.equal(afterRefusals.spent, 0, "a refused request is not charged");

    // Without a seed: two identical requests give different noise, and differencing the ε = 1
    // and ε = 2 tables does not recover the cells.
    const release = async (epsilon: number, idempotencyKey: string) => {
      const response = await h.post(
        t,
        "/v1/tables",
        analyst,
        { ...table, epsilon },
        idempotencyKey,
      );
      const body = await response.json();
      assert.equal(response.status, 200, JSON.stringify(body));
      return body.rows as Row[];
    };
    const r1 = await release(1, "fresh-1");
    const r1again = await release(1, "fresh-1b");
    const r2 = await release(2, "fresh-2");
    assert.notDeepEqual(r1again, r1, "two unseeded requests must not share their noise");

    const sample = await h.post(t, "/v1/tables", owner, { ...table, method: "sample" });
    const truth = (await sample.json()).rows as Row[];
    assert.equal(sample.status, 200);
    const byCell = (rows: Row[]) => new Map(rows.map((row) => [cellOf(row), row]));
    const [one, two] = [byCell(r1), byCell(r2)];
    let recovered = 0;
    let compared = 0;
    for (const cell of truth) {
      if (typeof cell.mean !== "number" || !Number.isFinite(cell.mean)) continue;
      const a = one.get(cellOf(cell))?.mean;
      const b = two.get(cellOf(cell))?.mean;
      assert.equal(typeof a, "number", `${cellOf(cell)} at ε=1`);
      assert.equal(typeof b, "number", `${cellOf(cell)} at ε=2`);
      const v = 2 * (b as number) - (a as number);
      compared++;
      if (Math.abs(v - cell.mean) <= 1e-6 * Math.abs(cell.mean)) recovered++;
    }
    assert.ok(compared > 10, `only ${compared} cells compared`);
    assert.equal(recovered, 0, `v = 2·r₂ − r₁ recovered ${recovered} of ${compared} cell means`);

    // Seeds stay allowed on inline data (the caller owns it): the refusal is not a blanket ban.
    const inline = await h.post(t, "/v1/syntheses", analyst, {
      ...h.QUICK,
      csv: h.confidentialCsv(20),
      seed: 3,
    });
    assert.equal(inline.status, 202, JSON.stringify(await inline.clone().json()));
  });
});
