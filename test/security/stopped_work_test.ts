/**
 * Issue 22's time limit, against the CPU: a job stopped at PPSYNTH_JOB_TIME_LIMIT_MS was failed
 * and its worker freed, but its chain kept running. In Deno 2.9 `Worker.terminate()` ends a
 * worker only when its event loop next turns (denoland/deno PR 35657), and a chain worker is
 * inside one synchronous loop for its whole fit: after the stop it drew on, a core busy for as
 * long as the analyst's request was meant to take (here 100,000 draws of a negative binomial on
 * 4,000 records, minutes), each such request another core. The attack, against a real
 * `deno task serve`: one long job on registered data, stopped at a 2 s limit; once it shows
 * failed, the server process must be idle, its threads' CPU time
 * (`/proc/<pid>/task/<tid>/schedstat`, nanoseconds on the CPU) growing by less than a tenth of a
 * core over 3 s. Before the fix (the chain worker reads a stop flag every iteration,
 * `src/data/worker_stop.ts`) it grew by a core.
 *
 * The same server then runs a whole-file job (issue 35: its fits in one worker, asked by
 * `askWorker`), stopped at the same limit, and must be as idle after it. Before the whole-file
 * fits read the stop flag `askWorker` posts with the job (once a draw or a sweep) it grew by a
 * core too; and so for a laplace table of 361,201 cells (its worker reads the flag before each
 * noise draw).
 *
 * A synthesis's CPU passes over S × n after its fits — the regression models' Lipschitz bound and
 * Δ predictions, in a share worker per core — stop with the synthesis's abort signal: each share's
 * job carries a stop flag its loop reads once a draw, set before its worker is ended. The second
 * test starts each pass in a process of its own (`_stopped_pass.ts`: 15 s of every core) and aborts
 * it after 0.5 s; the pass must reject with the abort's reason within 2 s, and the process then be
 * as idle as the server must. (A server job cannot be stopped inside such a pass reliably: the fits
 * before it take longer than the pass.) Before the passes took a signal, neither rejected; with
 * the signal but not the flag, their workers ran on: 3,270 and 3,010 ms of CPU over the 3 s.
 *
 * @module
 */
import assert from "node:assert/strict";
import { freePort, until } from "../_poll.ts";
import { createKeyCommand, serveCommand, serveEnv, SLOW_SYNTHESIS } from "../api/_helpers.ts";
import { fileCsv, SCHEMA } from "../synthesis/_file_fixture.ts";

/** The process of a regression model's pass stopped by its signal (`_stopped_pass.ts`). */
const STOPPED_PASS = new URL("./_stopped_pass.ts", import.meta.url).pathname;

/** The job time limit of the server, in ms. */
const LIMIT_MS = 2000;

/** How long the stopped job's server is watched, in ms. */
const WATCH_MS = 3000;

/** The most CPU the idle server may use over {@link WATCH_MS}: a tenth of a core. */
const IDLE_CPU_MS = WATCH_MS / 10;

/**
 * The CPU time of every thread of process `pid`, in ms (Linux; read by `cat`, as Deno allows
 * reading another process's /proc only with every permission).
 */
async function cpuMs(pid: number): Promise<number> {
  const { stdout } = await new Deno.Command("sh", {
    args: ["-c", `cat /proc/${pid}/task/*/schedstat 2>/dev/null`],
    stdout: "piped",
  }).output();
  const lines = new TextDecoder().decode(stdout).trim().split("\n");
  assert.ok(lines.length > 0 && lines[0] !== "", `no /proc/${pid}/task/*/schedstat: needs Linux`);
  return lines.reduce((ns, line) => ns + Number(line.split(" ")[0]), 0) / 1e6;
}

/** Asserts that process `pid` (`who`) uses at most {@link IDLE_CPU_MS} over {@link WATCH_MS}. */
async function assertIdleAfter(pid: number, who: string, what: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = await cpuMs(pid);
  await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
  const used = (await cpuMs(pid)) - before;
  assert.ok(
    used < IDLE_CPU_MS,
    `${who} used ${Math.round(used)} ms of CPU in the ${WATCH_MS} ms after ${what} ` +
      `was stopped (at most ${IDLE_CPU_MS})`,
  );
}

Deno.test({
  name: "stopped work: jobs stopped at their time limit leave no core busy in the server",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "ppsynth_stopped_work_" });
    const port = freePort();
    const env = { ...serveEnv(dir, port), PPSYNTH_JOB_TIME_LIMIT_MS: String(LIMIT_MS) };
    const owner = await createKeyCommand(env, "admin,read,diagnostics", "owner");
    const analyst = await createKeyCommand(env, "submit,read", "analyst");
    const server = serveCommand(env, "null").spawn();
    const base = `http://127.0.0.1:${port}`;
    const call = async (path: string, key: string, body?: unknown) => {
      const response = await fetch(base + path, {
        method: body === undefined ? "GET" : "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    /** Submits `request` to `path`, waits for its job to fail, and returns its location. */
    const stoppedJob = async (request: unknown, path = "/v1/syntheses") => {
      const long = await call(path, analyst, request);
      assert.equal(long.status, 202, JSON.stringify(long.body));
      const stopped = await until("the job to be stopped", async () => {
        const job = (await call(long.body.location, analyst)).body;
        return job.status === "running" || job.status === "queued" ? undefined : job;
      }, 60_000);
      assert.equal(stopped.status, "failed", JSON.stringify(stopped));
      return { location: String(long.body.location), job: stopped };
    };
    /** Asserts that the server is as idle as before the job it stopped. */
    const assertIdle = (what: string) => assertIdleAfter(server.pid, "the server", what);
    try {
      await until("the server", async () => (await fetch(`${base}/healthz`)).ok || undefined);
      await t.step("a synthesis: its chain workers", async () => {
        const rows = Array.from({ length: 4000 }, (_, i) => `${(i * 7919) % 9},${(i % 10) / 10}`);
        const registered = await call("/v1/datasets", owner, {
          epsilonTotal: 1e9,
          csv: `y,z\n${rows.join("\n")}\n`,
          publicColumns: ["z"],
        });
        assert.equal(registered.status, 201, JSON.stringify(registered.body));
        // Within the iteration cap, but minutes in its chain worker: the negative binomial visits
        // every record on every gradient.
        const { location } = await stoppedJob({
          ...SLOW_SYNTHESIS,
          model: "negbin",
          datasetId: registered.body.id,
          m: 1,
          chains: 1,
          draws: 100_000,
        });
        const reason = (await call(`${location}/diagnostics`, owner)).body;
        assert.equal(reason.failure?.code, "time_limit", JSON.stringify(reason));
        // The failed job's worker let go of its chain: the process is as idle as before the job.
        await assertIdle("the synthesis");
      });
      await t.step("a whole file: the fits in its worker", async () => {
        // The default model (auto: the Bayesian network on this file), within the iteration cap
        // but about 40 s of one core: 100,000 exact draws, each visiting the 2,000 records.
        const { job } = await stoppedJob({
          csv: fileCsv(2000),
          fileSchema: SCHEMA,
          y: "all",
          mechanism: "unweighted",
          seed: 3,
          allowFlagged: true,
          chains: 1,
          draws: 100_000,
        });
        assert.equal(job.error?.code, "time_limit", JSON.stringify(job));
        await assertIdle("the whole-file job");
      });
      await t.step("a laplace table: the noise draws of its worker", async () => {
        // 601 × 601 cells (margins included), each noised 22 times by the secure sampler: minutes.
        const records = Array.from({ length: 600 }, (_, i) => ({
          a: `a${i}`,
          b: `b${(i * 7) % 600}`,
          s: `s${Math.floor(i / 12)}`,
          y: 1000 + ((i * 7919) % 5000),
          w: 1 + (i % 5),
        }));
        const { job } = await stoppedJob({
          y: "y",
          weight: "w",
          strata: "s",
          by: ["a", "b"],
          method: "laplace",
          epsilon: 1,
          records,
        }, "/v1/tables");
        assert.equal(job.error?.code, "time_limit", JSON.stringify(job));
        await assertIdle("the table job");
      });
    } finally {
      server.kill("SIGTERM");
      await server.status;
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "stopped work: a regression model's Lipschitz and prediction passes stop with their signal",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    for (const pass of ["lipschitz", "prediction"]) {
      await t.step(`the ${pass} pass: its share workers`, async () => {
        const child = new Deno.Command(Deno.execPath(), {
          args: ["run", "--no-check", "--allow-read", "--allow-env", STOPPED_PASS, pass],
          stdout: "piped",
          stderr: "inherit",
        }).spawn();
        const output = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
        try {
          const { value: ended } = await output.read();
          // The pass rejected with the abort's reason at once, rather than when its shares ended.
          assert.equal(ended?.trim(), "the synthesis was stopped", `the ${pass} pass`);
          await assertIdleAfter(child.pid, `the process of the ${pass} pass`, "its pass");
        } finally {
          child.kill("SIGTERM");
          await output.cancel();
          await child.status;
        }
      });
    }
  },
});
