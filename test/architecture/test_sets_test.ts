/**
 * Issue 36: every test file is classified, quick or slow. `deno task test:quick` runs the files
 * scripts/test_quick.ts lists (its quick folders less its slow files); a test file under `test/`
 * must be one of those, a named slow file, or in a named slow folder — so a new file or folder
 * fails here until it is put in a set. And the quick task is a true subset of `deno task test`:
 * the same permissions, its files under the full task's paths.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  isTestFile,
  QUICK_FOLDERS,
  quickFiles,
  SLOW_FILES,
  SLOW_FOLDERS,
  testFiles,
} from "../../scripts/test_quick.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The command of a task in deno.json. */
async function taskCommand(name: string): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const task = config.tasks[name];
  return typeof task === "string" ? task : task.command;
}

/** The words of a command line, split on spaces, without the `$(…)` substitution. */
function words(command: string): string[] {
  return command.replace(/\$\([^)]*\)/g, "").split(/\s+/).filter((word) => word !== "");
}

const under = (file: string, folder: string) => file.startsWith(`${folder}/`);

Deno.test("`isTestFile()` takes the names `deno test` runs", () => {
  for (const name of ["a_test.ts", "a.test.ts", "test.ts", "a_test.js"]) {
    assert.ok(isTestFile(name), name);
  }
  for (const name of ["_helpers.ts", "a_test.json", "golden.ts", "contest.ts"]) {
    assert.ok(!isTestFile(name), name);
  }
});

Deno.test("every test file is in the quick set, a named slow file or a named slow folder", async () => {
  const quick = new Set(await quickFiles());
  const slowFolders = Object.keys(SLOW_FOLDERS);
  const unclassified = (await testFiles("test")).filter((file) =>
    !quick.has(file) && !(file in SLOW_FILES) &&
    !slowFolders.some((folder) => under(file, folder))
  );
  assert.deepEqual(unclassified, [], "add each to scripts/test_quick.ts");
});

Deno.test("the sets are consistent: folders exist and are disjoint, slow files exist in quick folders", async () => {
  const folders = [...QUICK_FOLDERS, ...Object.keys(SLOW_FOLDERS)];
  assert.equal(new Set(folders).size, folders.length, "a folder named twice");
  for (const folder of folders) {
    assert.ok((await Deno.stat(`${ROOT}${folder}`)).isDirectory, folder);
  }
  for (const a of folders) {
    for (const b of folders) assert.ok(a === b || !under(a, b), `${a} inside ${b}`);
  }
  for (const file of Object.keys(SLOW_FILES)) {
    assert.ok(QUICK_FOLDERS.some((folder) => under(file, folder)), `${file} not in a quick folder`);
    assert.ok((await Deno.stat(`${ROOT}${file}`)).isFile, `${file} is gone`);
  }
  const quick = await quickFiles();
  assert.ok(quick.length > 0);
  assert.ok(quick.every((file) => !(file in SLOW_FILES)));
});

Deno.test("`test:quick` is a subset of `test`: the same permissions, its files under the full task's paths", async () => {
  const full = words(await taskCommand("test"));
  const quick = words(await taskCommand("test:quick"));
  assert.ok(
    (await taskCommand("test:quick")).includes("$(deno run --allow-read scripts/test_quick.ts)"),
  );
  const permissions = (command: string[]) => command.filter((w) => w.startsWith("--allow-")).sort();
  assert.deepEqual(permissions(quick), permissions(full));
  const paths = full.filter((word) => !word.startsWith("-") && word !== "deno" && word !== "test")
    .map((path) => path.replace(/\/$/, ""));
  for (const file of await quickFiles()) {
    assert.ok(paths.some((path) => under(file, path)), `${file} is not in deno task test`);
  }
});
