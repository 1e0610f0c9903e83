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
 * when it ends; the check's is printed when it fails. Both runs get {@link DRIVER_ENV}, and a
 * parallel run whose process crashed after reporting every test passed is run once more
 * ({@link crashedAfterPassing}). The task fails if any of the three fails;
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
 * The WebGPU environment of both runs and of every process their tests start:
 *
 * - **WebGPU without its GL backend** (`DENO_WEBGPU_BACKEND`, the value the GPU tasks of
 *   deno.json set): wgpu otherwise opens an EGL display beside the Vulkan instance in every
 *   isolate that asks for an adapter, which loads Mesa's GL driver (swrast_dri, LLVM) and gives
 *   the thread EGL state. The suite's abort at exit was threads tearing that down while the
 *   process ran the GL libraries' exit handlers (docs/decisions.md, "An abort at exit after every
 *   test passed"). The adapter is lavapipe's Vulkan one either way.
 * - **Lavapipe without its rasterizer threads** (`LP_NUM_THREADS=0`): compute dispatches run on
 *   the calling thread, and a process ends without two llvmpipe-N workers. Its disk cache stays
 *   on: without it every process compiles every shader again (two GPU files: 3.4 → 31.8 s).
 *
 * No result depends on either.
 */
export const DRIVER_ENV: Readonly<Record<string, string>> = {
  DENO_WEBGPU_BACKEND: "vulkan,metal,dx12",
  LP_NUM_THREADS: "0",
};

/**
 * Whether a run whose process did not exit cleanly had reported every test passed: its output's
 * last summary line is `ok | N passed … | 0 failed …` and the process died of SIGABRT or
 * SIGSEGV (a crash in the runtime's teardown after the report, never a test's failure, which
 * exits 1 after a `FAILED` summary).
 *
 * @param status How the process ended.
 * @param output The end of its output (colours and all).
 * @returns True only for that crash after a report of every test passed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { crashedAfterPassing } from "./test_suite.ts";
 * const abort = { success: false, code: 134, signal: "SIGABRT" } as const;
 * const ok = "\x1b[32mok\x1b[0m | 1251 passed (3 steps) | 0 failed (4m21s)\n\ncorrupted size\n";
 * assert.equal(crashedAfterPassing(abort, ok), true);
 * assert.equal(crashedAfterPassing(abort, "FAILED | 1250 passed | 1 failed (4m)\n"), false);
 * assert.equal(crashedAfterPassing({ success: false, code: 1, signal: null }, ok), false);
 * ```
 */
export function crashedAfterPassing(status: Deno.CommandStatus, output: string): boolean {
  const crashed = status.signal === "SIGABRT" || status.signal === "SIGSEGV" ||
    status.code === 134 || status.code === 139;
  // deno-lint-ignore no-control-regex
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  const summaries = plain.match(/^(ok|FAILED) \| \d+ passed.*\| \d+ failed.*$/gm) ?? [];
  return !status.success && crashed &&
    /^ok \| \d+ passed.*\| 0 failed/.test(summaries.at(-1) ?? "");
}

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

/** The parallel run's environment: {@link PARALLEL_JOBS} files at once, lavapipe unthreaded. */
const PARALLEL_ENV = { DENO_JOBS: String(PARALLEL_JOBS), ...DRIVER_ENV };

/**
 * Runs the parallel run with its output passed through as it comes; its status, and the end of
 * its output.
 */
async function runParallel(args: string[], niced: boolean): Promise<Deno.CommandStatus> {
  const child = start(args, niced, true, PARALLEL_ENV);
  let tail = "";
  const pass = async (stream: ReadableStream<Uint8Array>, to: typeof Deno.stdout) => {
    for await (const chunk of stream) {
      await to.write(chunk);
      tail = (tail + new TextDecoder().decode(chunk)).slice(-4096);
    }
  };
  const [status] = await Promise.all([
    child.status,
    pass(child.stdout, Deno.stdout),
    pass(child.stderr, Deno.stderr),
  ]);
  if (!crashedAfterPassing(status, tail)) return status;
  // Every test passed and then the process crashed at exit (docs/decisions.md): not a test's
  // failure, but not a clean run either, so the run is repeated once and that run decides.
  console.error(
    `[test_suite] the parallel run reported every test passed, then its process died ` +
      `(${status.signal ?? status.code}) at exit; running it once more`,
  );
  return await start(args, niced, false, PARALLEL_ENV).status;
}

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
    const serial = start(runs.serial, false, true, DRIVER_ENV);
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
    const parallel = await runParallel(runs.parallel, true);
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
    const parallel = await runParallel(runs.parallel, false);
    const serial = await start(runs.serial, false, false, DRIVER_ENV).status;
    Deno.exit(checked && parallel.success && serial.success ? 0 : 1);
  }
}
