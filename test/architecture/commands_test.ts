/**
 * Issue 36: `docs/commands.md`, the reference page of the commands, names every `deno task` of
 * `deno.json` that runs a `src/cli` file, as "`deno task NAME`".
 *
 * @module
 */
import assert from "node:assert/strict";
import config from "../../deno.json" with { type: "json" };

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("docs/commands.md names every deno task that runs a src/cli file", async () => {
  const page = await Deno.readTextFile(`${ROOT}docs/commands.md`);
  const tasks = Object.entries(config.tasks as Record<string, string | { command: string }>)
    .filter(([, task]) => /src\/cli\/\w+\.ts/.test(typeof task === "string" ? task : task.command))
    .map(([name]) => name);
  assert.ok(tasks.includes("synth") && tasks.length >= 10, `tasks: ${tasks}`);
  const missing = tasks.filter((name) => !page.includes(`deno task ${name}`));
  assert.deepEqual(missing, [], "tasks missing from docs/commands.md");
});
