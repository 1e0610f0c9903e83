import assert from "node:assert/strict";
import { jobProgress } from "../../src/jobs/synthesis_job.ts";
import type { JobProgress } from "../../src/jobs/store.ts";

Deno.test("a job's progress: each conditional's fit under its public stage, in tenths of seconds", () => {
  const seen: JobProgress[] = [];
  let clock = 0;
  const update = jobProgress((progress) => seen.push(progress), () => clock);
  update("lw calibration g=-0.3157", 0, 1200, "wage");
  update("lw calibration g=-0.3157", 0, 1800, "smsa");
  clock = 1234;
  update("lw calibration g=-0.3157", 400, 1200, "wage");
  clock = 2000;
  update("reweight k=0.9500", 600, 1800, "smsa");
  const last = seen.at(-1)!;
  assert.equal(seen.length, 4, "one job progress per fit progress (the queue thins the writes)");
  assert.equal(last.stage, "reweight", "the settings found from the data stay out");
  assert.equal(last.fraction, (400 + 600) / (1200 + 1800));
  assert.deepEqual(last.fits, [
    {
      stage: "lw",
      conditional: "wage",
      iteration: 400,
      total: 1200,
      elapsedSeconds: 2,
      // 1.234 s for 400: 2.468 s for 800 more, less the 0.766 s since its last report.
      remainingSeconds: 1.7,
    },
    {
      stage: "reweight",
      conditional: "smsa",
      iteration: 600,
      total: 1800,
      elapsedSeconds: 0,
      remainingSeconds: 0,
    },
  ]);
  assert.ok(!JSON.stringify(seen).includes("="), JSON.stringify(seen));
});

Deno.test("a one-outcome job's progress: its fit without a conditional, fraction as before", () => {
  const seen: JobProgress[] = [];
  const update = jobProgress((progress) => seen.push(progress), () => 0);
  update("unweighted", 250, 1000);
  assert.deepEqual(seen, [{
    stage: "unweighted",
    fraction: 0.25,
    fits: [{
      stage: "unweighted",
      conditional: null,
      iteration: 250,
      total: 1000,
      elapsedSeconds: 0,
      remainingSeconds: 0,
    }],
  }]);
});
