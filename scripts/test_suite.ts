/**
 * Issue 36: `deno task test`, the whole suite as two `deno test` runs side by side.
 *
 * - **The parallel run** — every test file but the serial ones, and the doc tests of src/ and
 *   functions/ ({@link parallelRoots}), a file per core (`--parallel`) — at the lowest CPU
 *   priority (`nice -n 19`, which its servers, browsers and R inherit).
 * - **The serial run** — the {@link SERIAL_FILES}, whose claims are on the wall clock (a
 *   `/healthz` deadline, a release time, leases) — one file at a time at normal priority.
 *
 * Linux's scheduler gives a nice-0 thread that wakes the core at once over nice-19 work (CPU
 * shares 1024 : 15), so the serial files see the cores as if idle while the parallel run takes
 * what they leave; the suite's wall time is its CPU time over the cores, not the two runs' sum.
 * Where `nice` is absent the runs go one after the other, the serial run last.
 *
 * The parallel run's output streams; the serial run's is kept and printed after it, with a line
 * when it ends. The task fails if either run fails; both always run to the end. The parallel
 * run's test isolates take {@link V8_FLAGS}; the processes its tests start (servers, CLIs) and the
 * serial run keep V8's defaults, as deployed.
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
 * With a file per core, each isolate's parallel and concurrent GC helper threads only contend with
 * the other file's work (docs/decisions.md, "One-thread GC in the parallel run's test isolates"). No result
 * depends on it.
 */
export const V8_FLAGS = "--v8-flags=--single-threaded-gc";

/** The two runs' arguments after `deno`. */
export async function suiteRuns(): Promise<{ parallel: string[]; serial: string[] }> {
  return {
    parallel: [
      "test",
      "--doc",
      "--parallel",
      V8_FLAGS,
      ...PERMISSIONS,
      ...await parallelRoots(),
    ],
    serial: ["test", "--doc", ...PERMISSIONS, ...Object.keys(SERIAL_FILES)],
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

/** Starts `deno` with `args`, at nice 19 when `niced`, its output kept when `keepOutput`. */
function start(args: string[], niced: boolean, keepOutput: boolean): Deno.ChildProcess {
  const deno = Deno.execPath();
  const output = keepOutput ? "piped" : "inherit";
  const [program, programArgs] = niced ? ["nice", ["-n", "19", deno, ...args]] : [deno, args];
  return new Deno.Command(program, { args: programArgs, stdout: output, stderr: output }).spawn();
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
    const parallel = await start(runs.parallel, true, false).status;
    const serialResult = await serialDone;
    const text = new TextDecoder();
    console.log(text.decode(serialResult.stdout) + text.decode(serialResult.stderr));
    const failed = [
      ...parallel.success ? [] : ["the parallel run"],
      ...serialResult.success ? [] : ["the serial run"],
    ];
    console.error(`[test_suite] ${failed.length ? `${failed.join(" and ")} FAILED` : "ok"}`);
    Deno.exit(failed.length ? 1 : 0);
  } else {
    console.error("[test_suite] no `nice` here: the serial run follows the parallel run");
    const parallel = await start(runs.parallel, false, false).status;
    const serial = await start(runs.serial, false, false).status;
    Deno.exit(parallel.success && serial.success ? 0 : 1);
  }
}
