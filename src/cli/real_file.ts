/**
 * `deno task real-file`: `deno task study real_file` (`study.ts`) under its earlier name, with the same
 * flags (`src/studies/registry.ts` has the study).
 *
 * @module
 */
import type { RealFileSettings } from "../studies/real_file_settings.ts";
import { runCommand } from "./run_command.ts";
import { parseStudyArgs, type StudyArgs, studyCommand } from "./study.ts";

/**
 * Parses the command line as `deno task study real_file` does.
 *
 * @param args The arguments after the command.
 */
export function parseRealFileArgs(args: string[]): StudyArgs & { settings: RealFileSettings } {
  return parseStudyArgs(["real_file", ...args]) as StudyArgs & { settings: RealFileSettings };
}

if (import.meta.main) {
  await runCommand("real-file", () => studyCommand(["real_file", ...Deno.args]));
}
