/**
 * What the benchmarks share: `--name VALUE` flags with defaults (all strings) and timed
 * subprocesses (the peers: Rscript, `deno task`).
 *
 * @module
 */
import { parseArgs } from "node:util";

/**
 * Parses the benchmark's flags.
 *
 * @param defaults Every flag the benchmark takes, with its default value.
 * @param args The command line (default `Deno.args`).
 * @returns The values, by flag name.
 */
export function benchArgs<K extends string>(
  defaults: Record<K, string>,
  args: string[] = Deno.args,
): Record<K, string> {
  const options = Object.fromEntries(
    Object.entries(defaults).map(([name, value]) => [name, { type: "string", default: value }]),
  ) as Record<string, { type: "string"; default: string }>;
  return parseArgs({ args, options }).values as Record<K, string>;
}

/**
 * Runs a command and times it; a failure throws with its stderr.
 *
 * @param command The program.
 * @param args Its arguments.
 * @param cwd Its working directory (default: this process's).
 * @returns The wall time in seconds and the standard output.
 */
export async function timed(
  command: string,
  args: string[],
  cwd?: string,
): Promise<{ seconds: number; stdout: string }> {
  const started = performance.now();
  const result = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const seconds = (performance.now() - started) / 1000;
  const stdout = new TextDecoder().decode(result.stdout);
  if (!result.success) {
    throw new Error(
      `${command} ${args.join(" ")} failed:\n${new TextDecoder().decode(result.stderr)}`,
    );
  }
  return { seconds, stdout };
}
