/**
 * Issue 34, F6 (moved from `public_shapes_test.ts` so that it runs alone, issue 36: its claim is
 * on the wall clock, and another file's work beside it on 2 cores delays the jobs past their
 * release time): the time from acceptance to the analyst's terminal state told the owner-only
 * refit count and the kind of failure. A job on registered data is now shown to an analyst as
 * running until a release time fixed from the request at acceptance (`PPSYNTH_RELEASE_DELAY_MS`).
 */
import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

/** Confidential data whose sw calibration needs more refits than `confidentialCsv`'s. */
function outlierCsv(n: number): string {
  return h.confidentialCsv(n).replace(/\n2\.0\d+,/g, "\n40.5,");
}

Deno.test("F6: an analyst sees jobs whose fits took different refits finish at the same request-fixed time", async () => {
  // 15 s, not the default 30 s: the claim needs only that both jobs end before it with time to
  // poll them while held (they ran 3.9–4.4 s on 2 cores at load 7–9 at 1,000 draws, 4.8–6.5 s at
  // 4,000; QUICK's 2,000 lie between).
  // Without the hold an analyst sees each job at its own end, before this time whatever its
  // length: with `releaseTime` broken to return the acceptance time, this test failed (seen
  // 3,893 and 4,307 ms); a longer delay only waits longer.
  const releaseDelayMs = 15_000;
  const t = await h.testApp({ workers: 2, releaseDelayMs });
  await h.withTenant(t, async ({ owner, analyst }) => {
    const datasets = [
      (await h.registerConfidential(t, owner, 100, 200)).id,
      (await h.register(t, owner, {
        epsilonTotal: 100,
        csv: outlierCsv(200),
        publicColumns: ["z"],
      }))
        .id,
    ];
    // The same request on both: the release time depends on it alone.
    // QUICK's 2,000 draws (4,000 before issue 36): shorter jobs; a job that fails its final
    // fit's diagnostics is held the same way, which is the point.
    const request = { ...h.QUICK, mechanism: "sw", epsilon: 10, m: 2 };
    const jobs = await Promise.all(datasets.map(async (datasetId) => {
      const submitted = Date.now();
      const response = await h.post(t, "/v1/syntheses", analyst, { ...request, datasetId });
      const body = await response.json();
      assert.equal(response.status, 202, JSON.stringify(body));
      return { id: body.id as string, submitted, finished: NaN, seen: NaN, heldDatasets: 0 };
    }));
    const terminal = (job: { status: string }) =>
      job.status !== "queued" && job.status !== "running";
    for (
      const deadline = Date.now() + 120_000;
      jobs.some((job) => Number.isNaN(job.seen + job.finished));
    ) {
      assert.ok(Date.now() < deadline, "the jobs never finished");
      for (const job of jobs) {
        const path = `/v1/syntheses/${job.id}`;
        if (Number.isNaN(job.finished)) {
          if (terminal(await (await h.get(t, path, owner)).json())) job.finished = Date.now();
        }
        if (Number.isNaN(job.seen)) {
          const seen = await (await h.get(t, path, analyst)).json();
          if (terminal(seen)) {
            job.seen = Date.now();
          } else if (!Number.isNaN(job.finished)) {
            // Finished, not yet released: nothing of it shows, its datasets neither.
            assert.deepEqual([seen.status, seen.report, seen.error], [
              "running",
              undefined,
              undefined,
            ]);
            const csv = await h.get(t, `${path}/datasets/1`, analyst);
            const body = await csv.text();
            if (csv.status === 409) {
              job.heldDatasets++;
            } else {
              // The release time passed between the two requests (the server's is at least
              // submitted + releaseDelayMs): served before it would be the leak.
              assert.ok(Date.now() >= job.submitted + releaseDelayMs, `${csv.status}: ${body}`);
            }
          }
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // What the owner sees: the fits' refits and run times (the audit saw 0.9–1.1 s for 3 fits,
    // 1.7 s for 5); both ended before the release time. A job may also fail (its final fit
    // flagged on its secret seed): it is held the same way, which is the point.
    const refits = await Promise.all(jobs.map(async ({ id }) => {
      const found = await (await h.get(t, `/v1/syntheses/${id}/diagnostics`, owner)).json();
      return Array.isArray(found.refits) ? found.refits.length : "a failure";
    }));
    const ran = jobs.map((job) => job.finished - job.submitted);
    assert.ok(Math.max(...ran) < releaseDelayMs, `a job ran past the release time: ${ran} ms`);
    // What the analyst sees of it: both finish at the release time fixed by the request.
    const seen = jobs.map((job) => job.seen - job.submitted);
    assert.ok(
      Math.abs(seen[0] - seen[1]) < 400,
      `the analyst saw the jobs finish after ${seen} ms; they ran ${ran} ms, refits ${refits}`,
    );
    for (const ms of seen) assert.ok(ms >= releaseDelayMs, `released after ${ms} ms`);
    // A job that finished with a second to spare was polled while held (a loaded machine can
    // leave less: then the held window is too short to poll, which is no leak).
    const early = jobs.filter((job) => job.finished < job.submitted + releaseDelayMs - 1000);
    assert.ok(early.every((job) => job.heldDatasets > 0), "the analyst polled the held jobs");
  });
});
