/**
 * Issue 37: the API's job `progress` carries the stages a terminal shows: each running fit, one
 * per conditional of a several-outcome synthesis, with its public stage, iteration of total, and
 * seconds run and left, beside the `stage` and `fraction` that clients already read.
 */
import assert from "node:assert/strict";
import { JobProgress } from "../../src/api/schemas.ts";
import * as h from "./_helpers.ts";

/** Inline data: a public z, a count a and an amount b. */
function csv(n: number): string {
  const rows = ["z,a,b"];
  for (let i = 0; i < n; i++) {
    const a = (i * 7) % 5;
    rows.push(`${(i % 10) / 10},${a},${(3 + 0.4 * a + ((i * 11) % 9) / 9).toFixed(4)}`);
  }
  return rows.join("\n") + "\n";
}

Deno.test("a running two-outcome synthesis shows each conditional's fit in its progress", async () => {
  const t = await h.testApp();
  await h.closing(t, async () => {
    // The job is over in about a second, and on loaded cores the polls below can all miss the
    // part of it where both fits run (CI, once). So the job is held at the first progress with
    // both conditionals, once written, until a client has read it from the API.
    const store = t.context.store;
    const write = store.progress.bind(store);
    let read = () => {};
    const readByClient = new Promise<void>((resolve) => read = resolve);
    let held = false;
    store.progress = async (lease, progress) => {
      await write(lease, progress);
      if (held || (progress.fits?.length ?? 0) < 2) return;
      held = true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        readByClient,
        new Promise((resolve) => timer = setTimeout(resolve, 60_000)),
      ]);
      clearTimeout(timer);
    };
    const accepted = await h.postJson(t, "/v1/syntheses", t.keys.all, {
      csv: csv(200),
      y: ["a", "b"],
      model: ["poisson", "normal"],
      x: ["z"],
      mechanism: "lw",
      epsilon: 40,
      draws: 8000,
      chains: 4,
      warmup: 300,
      seed: 3,
    });
    assert.equal(accepted.status, 202, await accepted.clone().text());
    const { id } = await accepted.json();
    const seen: Record<string, unknown>[] = [];
    for (const deadline = Date.now() + 120_000;;) {
      assert.ok(Date.now() < deadline, "the job never finished");
      const response = await t.app.request(`/v1/syntheses/${id}`, {
        headers: { Authorization: `Bearer ${t.keys.all}` },
      });
      const job = await response.json();
      if (job.status === "succeeded" || job.status === "failed") break;
      if (job.progress !== null) seen.push(job.progress);
      if (job.progress?.fits?.length === 2) read();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(seen.length > 0, "progress seen while the job ran");
    for (const progress of seen) {
      // The OpenAPI schema describes what is served; the old fields are all still there.
      assert.deepEqual(JobProgress.parse(progress), progress);
      const { stage, fraction, fits } = progress as {
        stage: string;
        fraction: number;
        fits: {
          stage: string;
          conditional: string | null;
          iteration: number;
          total: number;
          elapsedSeconds: number;
          remainingSeconds: number | null;
        }[];
      };
      assert.ok(fraction >= 0 && fraction <= 1, JSON.stringify(progress));
      assert.match(stage, /^[a-z-]+$/, "a public stage: no settings found from the data");
      assert.ok(fits.length >= 1 && fits.length <= 2, JSON.stringify(progress));
      for (const fit of fits) {
        assert.match(fit.stage, /^[a-z-]+$/);
        assert.ok(fit.conditional === "a" || fit.conditional === "b", JSON.stringify(fit));
        assert.ok(fit.iteration >= 0 && fit.iteration <= fit.total && fit.total > 0);
        assert.ok(fit.elapsedSeconds >= 0);
        assert.ok(fit.remainingSeconds === null || fit.remainingSeconds >= 0);
      }
    }
    const both = seen.filter((progress) =>
      (progress.fits as { conditional: string }[]).map((fit) => fit.conditional).sort().join() ===
        "a,b"
    );
    assert.ok(both.length > 0, `both conditionals in one progress: ${JSON.stringify(seen.at(-1))}`);
    const stages = new Set(
      seen.flatMap((p) => (p.fits as { stage: string }[]).map((f) => f.stage)),
    );
    assert.ok(stages.has("unweighted"), [...stages].join());
  });
});
