/**
 * Issue 36: `deno task test`, the whole suite as one type check and two `deno test` runs side by
 * side.
 *
 * - **The type check** — `deno check --doc` of every root both runs take — once, with the
 *   parallel run. The runs themselves take `--no-check`: a `deno test` that checks would check its
 *   roots, and then once more every worker module a test starts (`new Worker`), in every process
 *   and isolate that starts one first — sixteen checks of worker graphs in one run, about 120 CPU
 *   s of the suite's 900 with the two runs' own checks (docs/decisions.md, "One type check for
 *   the suite"). The one check covers them all: its roots include src/, and so every module there.
 * - **The parallel run** — every test file but the serial ones, and the doc tests of src/ and
 *   functions/ ({@link parallelRoots}), one file more than the cores at once (`--parallel`,
 *   {@link PARALLEL_JOBS}) — at the lowest CPU priority (`nice -n 19`, which its servers,
 *   browsers and R inherit).
 * - **The serial run** — the {@link SERIAL_FILES}, whose claims are on the wall clock (a
 *   `/healthz` deadline, a release time, leases) — one file at a time at normal priority.
 *
 * Linux's scheduler gives a nice-0 thread that wakes the core at once over nice-19 work (CPU
 * shares 1024 : 15), so the serial files see the cores as if idle while the parallel run and the
 * check (also at nice 19) take what they leave; the suite's wall time is its CPU time over the
 * cores, not the runs' sum. Where `nice` is absent they go one after the other: the check, the
 * parallel run, the serial run.
 *
 * The parallel run's output streams; the serial run's is kept and printed after it, with a line
 * when it ends; the check's is printed when it fails. The task fails if any of the three fails;
 * all always run to the end. The parallel run's test isolates take {@link V8_FLAGS}; the
 * processes its tests start (servers, CLIs) and the serial run keep V8's defaults, as deployed.
 *
 *     deno run --allow-read --allow-run --allow-env scripts/test_suite.ts
 *
 * @module
 */
import { parallelRoots, SERIAL_FILES } from "./test_quick.ts";

/** The permissions of both runs: the tests' servers listen on loopback only. */
export const PERMISSIONS: readonly string[] = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
  "--allow-net=127.0.0.1,localhost",
  "--allow-sys",
];

/**
 * V8's flags for the parallel run's test isolates: garbage collection on the isolate's own thread.
 * With every core running a test file, each isolate's parallel and concurrent GC helper threads
 * only contend with the other files' work (docs/decisions.md, "One-thread GC in the parallel run's
 * test isolates"). No result depends on it.
 */
export const V8_FLAGS = "--v8-flags=--single-threaded-gc";

/** The type check's and the two runs' arguments after `deno`. */
export async function suiteRuns(): Promise<
  { check: string[]; parallel: string[]; serial: string[] }
> {
  const parallel = await parallelRoots();
  const serial = Object.keys(SERIAL_FILES);
  return {
    check: ["check", "--doc", ...parallel, ...serial],
    parallel: ["test", "--doc", "--no-check", "--parallel", V8_FLAGS, ...PERMISSIONS, ...parallel],
    serial: ["test", "--doc", "--no-check", ...PERMISSIONS, ...serial],
  };
}

/** Whether the `nice` command runs here. */
async function hasNice(): Promise<boolean> {
  try {
    return (await new Deno.Command("nice", { args: ["true"] }).output()).success;
  } catch {
    return false;
  }
}

/**
 * How many test files the parallel run runs at once (`DENO_JOBS`): one more than the cores. With
 * a file per core, the cores idled whenever both files waited (a server starting, a job polled, a
 * subprocess): 1.82–1.84 cores busy in four clean-clone runs; with one more file, 1.94
 * (docs/decisions.md, "One file more than the cores").
 */
export const PARALLEL_JOBS: number = navigator.hardwareConcurrency + 1;

/**
 * Starts `deno` with `args`, at nice 19 when `niced`, its output kept when `keepOutput`, with
 * `env` added to this process's environment.
 */
function start(
  args: string[],
  niced: boolean,
  keepOutput: boolean,
  env: Record<string, string> = {},
): Deno.ChildProcess {
  const deno = Deno.execPath();
  const output = keepOutput ? "piped" : "inherit";
  const [program, programArgs] = niced ? ["nice", ["-n", "19", deno, ...args]] : [deno, args];
  return new Deno.Command(program, { args: programArgs, stdout: output, stderr: output, env })
    .spawn();
}

/** The parallel run's environment: {@link PARALLEL_JOBS} files at once. */
const PARALLEL_ENV = { DENO_JOBS: String(PARALLEL_JOBS) };

/** Whether the type check passed; its output is printed when it failed, dropped otherwise. */
function checkReport(result: Deno.CommandOutput): boolean {
  const text = new TextDecoder();
  if (!result.success) console.error(text.decode(result.stdout) + text.decode(result.stderr));
  return result.success;
}

if (import.meta.main) {
  const runs = await suiteRuns();
  const started = performance.now();
  const seconds = () => Math.round((performance.now() - started) / 1000);
  if (await hasNice()) {
    const serial = start(runs.serial, false, true);
    const serialDone = serial.output().then((result) => {
      console.error(
        `[test_suite] the serial run (${Object.keys(SERIAL_FILES).length} files) ended ` +
          `${result.success ? "ok" : "FAILED"} after ${seconds()} s; its output follows the ` +
          "parallel run's",
      );
      return result;
    });
    const checkDone = start(runs.check, true, true).output().then((result) => {
      console.error(
        `[test_suite] the type check ended ${result.success ? "ok" : "FAILED"} ` +
          `after ${seconds()} s`,
      );
      return result;
    });
    const parallel = await start(runs.parallel, true, false, PARALLEL_ENV).status;
    const serialResult = await serialDone;
    const text = new TextDecoder();
    console.log(text.decode(serialResult.stdout) + text.decode(serialResult.stderr));
    const checked = checkReport(await checkDone);
    const failed = [
      ...checked ? [] : ["the type check"],
      ...parallel.success ? [] : ["the parallel run"],
      ...serialResult.success ? [] : ["the serial run"],
    ];
    console.error(`[test_suite] ${failed.length ? `${failed.join(" and ")} FAILED` : "ok"}`);
    Deno.exit(failed.length ? 1 : 0);
  } else {
    console.error("[test_suite] no `nice` here: the check, then the parallel and serial runs");
    const checked = checkReport(await start(runs.check, false, true).output());
    const parallel = await start(runs.parallel, false, false, PARALLEL_ENV).status;
    const serial = await start(runs.serial, false, false).status;
    Deno.exit(checked && parallel.success && serial.success ? 0 : 1);
  }
}
