/**
 * `deno task design-release`: `deno task study design_release` (`study.ts`) under its earlier name, with the same
 * flags (`src/studies/registry.ts` has the study).
 *
 * @module
 */
import { runCommand } from "./run_command.ts";
import { studyCommand } from "./study.ts";

if (import.meta.main) {
  await runCommand("design-release", () => studyCommand(["design_release", ...Deno.args]));
}
