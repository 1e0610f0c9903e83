/**
 * Shared pieces of the command tests: running a command of src/cli, the refusals of
 * `deno task synth`, its input files, and the keys of the public report that it and the API
 * write.
 *
 * @module
 */
import assert from "node:assert/strict";
import { commandFailure } from "../../src/cli/run_command.ts";

/** Enough draws for the final fit to pass its diagnostics, without which nothing is written. */
export const PASSING_DRAWS = ["--draws=4000", "--chains=4", "--warmup=300"];

/**
 * Fewer draws for a seeded run whose claims are on the release, not the fit: at the seeds that use
 * them the final fit passes its diagnostics with a margin (issue 36: R̂ ≤ 1.005, bulk ESS ≥ 1,200,
 * no divergence), and a seeded run is the same on every machine.
 */
export const SEEDED_DRAWS = ["--draws=1600", "--chains=4", "--warmup=300"];

/** The keys of the public report, sorted. */
export const REPORT_FIELDS = [
  "backend",
  "coefficientPrior",
  "columns",
  "epsilon",
  "epsilonPerDataset",
  "guarantee",
  "lipschitz",
  "lipschitzOverDraws",
  "m",
  "mechanism",
  "model",
  "n",
  "neighbours",
  "seedPolicy",
  "software",
];

/**
 * Runs `src/cli/<script>` with `args` (read, write and sys permissions) in a subprocess.
 *
 * @returns Its exit code and standard error.
 */
export async function runCli(
  script: string,
  args: string[],
): Promise<{ code: number; stderr: string }> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-sys", `src/cli/${script}`, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: result.code, stderr: new TextDecoder().decode(result.stderr) };
}

/** How a test runs a command: its exit code and standard error. */
export type CliRunner = (
  script: string,
  args: string[],
) => Promise<{ code: number; stderr: string }>;

/**
 * Runs `src/cli/<script>`'s exported `main(args)` in this process, as `runCommand` would: exit 0
 * when it returns, else `commandFailure`'s code, its line last on standard error; the run's
 * `console.error` lines are its standard error, its `console.log` lines its standard output (a
 * fit's progress would go to this process's stderr: for runs that fit nothing). Issue 36: a
 * subprocess costs about 0.2 CPU s of start-up; a refusal's code, message and files are the
 * command's, not its process's. Each command keeps real subprocesses for its flags, exit codes and
 * output.
 */
export async function runCliInProcess(
  script: string,
  args: string[],
): Promise<{ code: number; stderr: string; stdout: string }> {
  const { main } = await import(new URL(`../../src/cli/${script}`, import.meta.url).href);
  const stderr: string[] = [];
  const stdout: string[] = [];
  const { error, log } = console;
  console.error = (...data: unknown[]) => stderr.push(data.join(" "));
  console.log = (...data: unknown[]) => stdout.push(data.join(" "));
  let code = 0;
  try {
    await (main as (args: string[]) => Promise<void>)(args);
  } catch (thrown) {
    const failure = commandFailure(script.replace(/\.ts$/, ""), thrown);
    stderr.push(failure.line);
    code = failure.exit;
  } finally {
    console.error = error;
    console.log = log;
  }
  const text = (lines: string[]) => lines.map((line) => `${line}\n`).join("");
  return { code, stderr: text(stderr), stdout: text(stdout) };
}

/**
 * Runs `src/cli/<script>` with `args` as {@linkcode runCli} does and asserts it exits 0 (its
 * standard error the message).
 *
 * @returns Its standard error.
 */
export async function runCliOk(script: string, args: string[]): Promise<string> {
  const { code, stderr } = await runCli(script, args);
  assert.equal(code, 0, stderr);
  return stderr;
}

/** The JSON file at `path`, parsed. */
export async function readJson(path: string): Promise<ReturnType<typeof JSON.parse>> {
  return JSON.parse(await Deno.readTextFile(path));
}

/**
 * Runs `src/cli/synth.ts` with `base`'s flags, each one that `extra` names replaced by extra's,
 * by `run` (default in-process), and asserts it exits with `code` (without one: non-zero), names
 * the problem by `pattern` and does not create `out`.
 */
export async function assertSynthRefuses(
  base: string[],
  extra: string[],
  pattern: RegExp,
  out: string,
  code?: number,
  run: CliRunner = runCliInProcess,
): Promise<void> {
  const keys = new Set(extra.map((a) => a.split("=")[0]));
  const result = await run("synth.ts", [
    ...base.filter((a) => !keys.has(a.split("=")[0])),
    ...extra,
  ]);
  if (code === undefined) assert.notEqual(result.code, 0, result.stderr);
  else assert.equal(result.code, code, result.stderr);
  assert.match(result.stderr, pattern);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
}

/**
 * Registers one test per `[label, extra, pattern]` case, titled `<title>: <label>`: synth on the
 * file `data(dir)` gives, with `flags` and {@linkcode PASSING_DRAWS} (those `extra` names
 * replaced by its), is refused as {@linkcode assertSynthRefuses} asserts, exit `code` included,
 * run by `run` (default in-process).
 */
export function synthRefusalTests(
  title: string,
  cases: readonly [string, string[], RegExp][],
  data: (dir: string) => string | Promise<string>,
  flags: string[],
  code?: number,
  run: CliRunner = runCliInProcess,
): void {
  for (const [label, extra, pattern] of cases) {
    Deno.test(`${title}: ${label}`, async () => {
      const dir = await Deno.makeTempDir();
      const base = [`--data=${await data(dir)}`, ...flags, `--out=${dir}/out`, ...PASSING_DRAWS];
      await assertSynthRefuses(base, extra, pattern, `${dir}/out`, code, run);
      await Deno.remove(dir, { recursive: true });
    });
  }
}

/** Writes `<dir>/in.csv`: `header`, then `row(i)` for i = 0, …, n − 1; returns its path. */
export async function writeInput(
  dir: string,
  header: string,
  n: number,
  row: (i: number) => string,
): Promise<string> {
  const rows = [header, ...Array.from({ length: n }, (_, i) => row(i))];
  await Deno.writeTextFile(`${dir}/in.csv`, rows.join("\n") + "\n");
  return `${dir}/in.csv`;
}
