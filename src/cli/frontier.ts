/**
 * `deno task frontier`: `deno task study frontier` (`study.ts`) under its earlier name, with the same
 * flags (`src/studies/registry.ts` has the study).
 *
 * @module
 */
import { runCommand } from "./run_command.ts";
import { studyCommand } from "./study.ts";

if (import.meta.main) await runCommand("frontier", () => studyCommand(["frontier", ...Deno.args]));
