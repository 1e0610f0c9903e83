/**
 * Shared pieces of the command tests: running a command of src/cli, and the keys of the public
 * report that `deno task synth` and the API write.
 *
 * @module
 */
import assert from "node:assert/strict";

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

/**
 * Runs `src/cli/synth.ts` with `base`'s flags, each one that `extra` names replaced by extra's,
 * and asserts it exits with `code` (without one: non-zero), names the problem by `pattern` and
 * does not create `out`.
 */
export async function assertSynthRefuses(
  base: string[],
  extra: string[],
  pattern: RegExp,
  out: string,
  code?: number,
): Promise<void> {
  const keys = new Set(extra.map((a) => a.split("=")[0]));
  const result = await runCli("synth.ts", [
    ...base.filter((a) => !keys.has(a.split("=")[0])),
    ...extra,
  ]);
  if (code === undefined) assert.notEqual(result.code, 0, result.stderr);
  else assert.equal(result.code, code, result.stderr);
  assert.match(result.stderr, pattern);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
}
