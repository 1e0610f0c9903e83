/**
 * Shared pieces of the command tests: running a command of src/cli, and the keys of the public
 * report that `deno task synth` and the API write.
 *
 * @module
 */

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
