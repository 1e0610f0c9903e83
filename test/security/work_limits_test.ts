/**
 * Issue 22, unbounded work: one analyst request could ask for 10⁶ draws in 64 chains and hold the
 * only worker for hours, so that no other job ran. A request of more sampler iterations
 * (chains·warmup + draws) than PPSYNTH_MAX_ITERATIONS is now refused before anything runs or is
 * charged, and a job that runs past PPSYNTH_JOB_TIME_LIMIT_MS is stopped, failed (on registered
 * data the analyst sees only `data_rejected`; its ε stays charged) and the worker runs the next.
 */
import assert from "node:assert/strict";
import { DATA_REJECTED } from "../../src/jobs/domain_errors.ts";
import * as h from "./_helpers.ts";

/** The attack: a million draws in 64 NUTS chains (the most NUTS takes). */
const HOURS = { draws: 1_000_000, chains: 64 };

Deno.test("unbounded work: 10⁶ draws in 64 chains is refused (422 too_much_work), uncharged", async () => {
  // No worker pool: on code without the limit the accepted job stays queued instead of running.
  const t = await h.testApp({}, false);
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: datasetId } = await h.registerConfidential(t, owner, 10, 40);
    const spent = async () =>
      (await (await h.get(t, `/v1/datasets/${datasetId}/budget`, analyst)).json()).spent;
    const refusedWith = async (response: Response, what: string) => {
      const body = await response.json();
      assert.equal(response.status, 422, `${what}: accepted? ${JSON.stringify(body)}`);
      assert.equal(body.error.code, "too_much_work", what);
      assert.equal(body.error.field, "draws", what);
      assert.match(body.error.message, /400000/, `${what}: the message names the limit`);
    };

    await refusedWith(
      await h.post(t, "/v1/syntheses", analyst, {
        ...h.QUICK,
        ...HOURS,
        mechanism: "lw",
        epsilon: 1,
        datasetId,
      }),
      "a registered-dataset synthesis",
    );
    assert.equal(await spent(), 0, "a refused request is not charged");
    await refusedWith(
      await h.post(t, "/v1/syntheses", analyst, {
        ...h.QUICK,
        ...HOURS,
        csv: h.confidentialCsv(40),
      }),
      "an inline synthesis",
    );

    // The same through a survey table that synthesises (fbs).
    // (fbs takes log y and log w: positive declared lower bounds, issue 34.)
    const { id: survey } = await h.registerSurvey(t, owner, 10, {
      bounds: { salary: [1, 600_000], w: [0.5, 1000] },
    });
    await refusedWith(
      await h.post(t, "/v1/tables", analyst, {
        ...h.SURVEY_COLUMNS,
        datasetId: survey,
        method: "fbs",
        epsilon: 5,
        m: 1,
        ...HOURS,
      }),
      "an fbs table",
    );

    // What the README and the examples ask for is still accepted: the defaults, GPU HMC's 64.
    const ordinary = await h.post(t, "/v1/syntheses", analyst, {
      ...h.QUICK,
      chains: undefined,
      draws: 4000,
      warmup: 1000,
      sampler: "gpu-hmc",
      prior: "paper",
      csv: h.confidentialCsv(40),
    });
    assert.equal(ordinary.status, 202, JSON.stringify(await ordinary.json()));
  });
});

/** The time limit of the second test's app, in milliseconds. */
const LIMIT_MS = 3000;

Deno.test("unbounded work: a registered-dataset job past the time limit is stopped, shows data_rejected, stays charged, and the worker runs the next job", async () => {
  // One worker: the next job runs only once the long one has let go of it.
  const settings: Record<string, number> = { workers: 1, jobTimeLimitMs: LIMIT_MS };
  const t = await h.testApp(settings);
  await h.withTenant(t, async ({ owner, analyst }) => {
    const { id: datasetId } = await h.registerCounts(t, owner, 1e9, 4000);
    // Within the iteration cap (300 + 100,000), but minutes in its chain worker (the negative
    // binomial visits every record per gradient), so the limit stops a running fit. The length is
    // in the draws: a long warmup would be skipped by the first fit's short warmup. One chain
    // (issue 36; two before): the fit still runs in a chain worker that the limit terminates, and
    // the 3 s until the limit burn one core, not two.
    const started = performance.now();
    const long = await h.post(t, "/v1/syntheses", analyst, {
      ...h.SLOW_SYNTHESIS,
      model: "negbin",
      datasetId,
      m: 1,
      chains: 1,
      draws: 100_000,
    });
    const longBody = await long.json();
    assert.equal(long.status, 202, JSON.stringify(longBody));
    // A short job whose final fit passes its diagnostics (seeded: inline data).
    const next = await h.post(t, "/v1/syntheses", analyst, {
      ...h.QUICK,
      draws: 2000,
      warmup: 200,
      seed: 3,
      csv: h.confidentialCsv(40),
    });
    const nextBody = await next.json();
    assert.equal(next.status, 202, JSON.stringify(nextBody));

    const stopped = await h.waitFor(t, longBody.location, analyst, 30_000);
    const elapsed = performance.now() - started;
    assert.equal(stopped.status, "failed", JSON.stringify(stopped));
    assert.deepEqual(stopped.error, DATA_REJECTED, "the analyst sees only the fixed failure");
    assert.ok(elapsed >= LIMIT_MS - 100, `failed after ${elapsed} ms, before the limit`);
    assert.ok(elapsed < LIMIT_MS + 15_000, `failed after ${elapsed} ms`);

    // The owner's diagnostics hold the reason; the ε charged at acceptance is not refunded.
    const diagnostics = await (await h.get(t, `${longBody.location}/diagnostics`, owner)).json();
    assert.equal(diagnostics.failure?.code, "time_limit", JSON.stringify(diagnostics));
    const budget = await (await h.get(t, `/v1/datasets/${datasetId}/budget`, owner)).json();
    assert.equal(budget.spent, h.SLOW_SYNTHESIS.epsilon, "still charged");

    // The worker was freed: the next job ran and succeeded.
    const ran = await h.waitFor(t, nextBody.location, analyst, 30_000);
    assert.equal(ran.status, "succeeded", JSON.stringify(ran.error));
    const finished = t.logs.map((line) => JSON.parse(line)).filter((line) =>
      line.event === "job_finished"
    );
    assert.deepEqual(finished.map((line) => [line.job, line.outcome]), [
      [longBody.id, "time_limit"],
      [nextBody.id, "released"],
    ]);
  });
});
