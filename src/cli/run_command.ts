/**
 * Runs a command's main function: a known input error prints one line and exits 2, a target ε
 * that cannot be met exits 3, anything else prints its message and exits 1 (the exit codes of
 * the one error table, `src/jobs/domain_errors.ts`). Stack traces are not printed (they can
 * carry values).
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { ZodError } from "zod";
import { closeIdleWorkers } from "../data/worker_pool.ts";
import { workerTeardownsWaited } from "../data/worker_threads.ts";
import { classifyError } from "../jobs/domain_errors.ts";

/** An invalid command-line option, named in the message. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * Parses `--name VALUE` flags, every one a string (the command's zod schema converts them); an
 * unknown flag or a missing value is a {@linkcode UsageError}.
 *
 * @param args The command line.
 * @param names The flags the command takes.
 * @returns The values given, by flag name.
 */
export function stringFlags(args: string[], names: readonly string[]): Record<string, string> {
  return parseFlags({
    args,
    options: Object.fromEntries(names.map((name) => [name, { type: "string" as const }])),
  }).values as Record<string, string>;
}

/**
 * `parseArgs` of `node:util`, its errors (an unknown flag, a missing value) thrown as
 * {@linkcode UsageError}s.
 *
 * @param config The command line and the flags the command takes.
 * @returns What `parseArgs` returns.
 */
export function parseFlags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Formats a zod error as `--field: message` lines. */
export function formatZodError(error: ZodError): string {
  return error.issues.map((issue) => {
    const field = issue.path.length === 0 ? "options" : `--${issue.path.join(".")}`;
    return `${field}: ${issue.message}`;
  }).join("; ");
}

/**
 * Runs `main`, mapping errors to exit codes by the one error table (`classifyError`): 2 for
 * bad input (usage, data, settings), 3 for an unreachable ε, 1 otherwise. Either way the pool's
 * idle workers are ended at once and the process exits only after the workers' teardown time
 * (`workerTeardownsWaited`: a worker that used the GPU unloads the driver as its thread ends,
 * which must not overlap the exit).
 *
 * @param name The command's name, printed before the message.
 * @param main The command body.
 */
export async function runCommand(name: string, main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    const { exit, line } = commandFailure(name, error);
    console.error(line);
    await workersEnded();
    Deno.exit(exit);
  }
  await workersEnded();
}

/** Ends the pool's idle workers and waits out the teardown of every worker ended. */
async function workersEnded(): Promise<void> {
  closeIdleWorkers();
  await workerTeardownsWaited();
}

/**
 * What {@linkcode runCommand} does with a command's error: its exit code by the one error table
 * and the line it prints on stderr (the tests run a command's main in-process with it).
 *
 * @param name The command's name, printed before the message.
 * @param error What the command body threw.
 */
export function commandFailure(name: string, error: unknown): { exit: number; line: string } {
  const exit = error instanceof UsageError ? 2 : classifyError(error).exit;
  const message = error instanceof ZodError
    ? formatZodError(error)
    : error instanceof Error
    ? error.message
    : String(error);
  return { exit, line: `${name}: ${exit === 2 ? "" : "error: "}${message}` };
}
