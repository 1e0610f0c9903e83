/**
 * Issue 36: every test file is classified, quick or slow. `deno task test:quick` runs the files
 * scripts/test_quick.ts lists (its quick folders less its slow files); a test file under `test/`
 * must be one of those, a named slow file, or in a named slow folder — so a new file or folder
 * fails here until it is put in a set. `deno task test` is scripts/test_suite.ts: one `deno check`
 * of everything the suite runs, and two `deno test` runs with the same flags, a parallel one and a
 * serial one of the files with wall-clock claims, which together take every test file once and
 * the doc tests. And the quick task
 * is a true subset of `deno task test`: the same permissions, its files in the parallel run.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  DOC_ROOTS,
  isTestFile,
  parallelRoots,
  QUICK_FOLDERS,
  quickFiles,
  SERIAL_FILES,
  SLOW_FILES,
  SLOW_FOLDERS,
  testFiles,
} from "../../scripts/test_quick.ts";
import {
  crashedAfterPassing,
  DRIVER_ENV,
  PERMISSIONS,
  suiteRuns,
} from "../../scripts/test_suite.ts";

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

const LIST = "$(deno run --allow-read scripts/test_quick.ts";

const permissions = (args: readonly string[]) =>
  args.filter((w) => w.startsWith("--allow-")).sort();

Deno.test("`test` runs scripts/test_suite.ts: one type check of both runs' roots, the suite in parallel beside the serial files, with the same flags", async () => {
  const command = await taskCommand("test");
  assert.equal(
    command,
    "deno run --allow-read --allow-run --allow-env scripts/test_suite.ts",
    "the test task's command",
  );
  const { check, parallel, serial } = await suiteRuns();
  assert.ok(parallel.includes("--parallel"), parallel.join(" "));
  assert.ok(!serial.includes("--parallel"), serial.join(" "));
  for (const run of [parallel, serial]) {
    assert.deepEqual(run.slice(0, 3), ["test", "--doc", "--no-check"], run.join(" "));
    assert.deepEqual(permissions(run), [...PERMISSIONS].sort());
  }
  assert.ok(PERMISSIONS.length >= 5);
  // No path of their own: the script's lists are all they run.
  const paths = (run: string[]) => run.slice(1).filter((w) => !w.startsWith("-"));
  assert.deepEqual(paths(parallel), await parallelRoots());
  assert.deepEqual(paths(serial), Object.keys(SERIAL_FILES));
  // The runs skip their own checks because this one checks what both take, the doc tests' code
  // blocks too, and with src/ every worker module the tests start.
  assert.deepEqual(check.slice(0, 2), ["check", "--doc"], check.join(" "));
  assert.deepEqual(check.filter((w) => w.startsWith("-")), ["--doc"], check.join(" "));
  assert.deepEqual(paths(check), [...paths(parallel), ...paths(serial)]);
  assert.ok(paths(check).includes("src/"));
});

Deno.test("the parallel and serial runs of `test` take every test file exactly once, and the doc tests", async () => {
  const parallel = await parallelRoots();
  const serial = Object.keys(SERIAL_FILES);
  const all = await testFiles("test");
  for (const file of serial) {
    assert.ok(all.includes(file), `${file} is not a test file under test/`);
  }
  const files = parallel.filter((root) => !DOC_ROOTS.includes(root));
  assert.deepEqual([...files, ...serial].sort(), all);
  assert.ok(files.every((file) => !serial.includes(file)));
  assert.deepEqual(parallel.slice(files.length), [...DOC_ROOTS]);
  for (const root of DOC_ROOTS) {
    assert.ok((await Deno.stat(`${ROOT}${root}`)).isDirectory, root);
  }
  // `--doc` takes the code blocks of the modules and markdown it is given: under test/ only the
  // test files are given (as `deno test --doc test/` took every file there), so no other file
  // there may hold a block that would be run.
  const blocks = (await filesUnder("test")).filter((path) => !isTestFile(path.split("/").pop()!))
    .filter((path) => /\.(?:ts|tsx|mts|js|mjs|jsx|md|markdown)$/.test(path))
    .filter((path) =>
      /```(?:ts|tsx|js|jsx|javascript|typescript|mts|mjs)\b/.test(
        Deno.readTextFileSync(`${ROOT}${path}`),
      )
    );
  assert.deepEqual(blocks, [], "doc tests outside the test files, which deno task test skips");
});

/** Every file under `dir` (relative to the repository root). */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await filesUnder(path));
    else if (entry.isFile) out.push(path);
  }
  return out;
}

Deno.test("`test:quick` is a subset of `test`: the same permissions, its files in the parallel run", async () => {
  const quickCommand = await taskCommand("test:quick");
  assert.ok(quickCommand.includes(`${LIST})`), quickCommand);
  assert.deepEqual(permissions(words(quickCommand)), [...PERMISSIONS].sort());
  const parallel = new Set(await parallelRoots());
  for (const file of await quickFiles()) {
    assert.ok(parallel.has(file), `${file} is not in deno task test's parallel run`);
  }
});

Deno.test("`test` repeats its parallel run only when the process died after reporting every test passed", () => {
  const abort = { success: false, code: 134, signal: "SIGABRT" } as const;
  const segv = { success: false, code: 139, signal: "SIGSEGV" } as const;
  const failed = { success: false, code: 1, signal: null } as const;
  const passed = "\x1b[0m\x1b[32mok\x1b[0m | 1251 passed (3 steps) | 0 failed \x1b[0m(4m21s)\n\n" +
    "corrupted size vs. prev_size in fastbins\n";
  assert.equal(crashedAfterPassing(abort, passed), true);
  assert.equal(crashedAfterPassing(segv, "ok | 3 passed | 0 failed (1s)\n"), true);
  // A test's failure, a crash before the summary, a failing summary, a clean exit: never.
  assert.equal(crashedAfterPassing(failed, passed), false);
  assert.equal(crashedAfterPassing(abort, "running 3 tests from ./test/a_test.ts\n"), false);
  assert.equal(crashedAfterPassing(abort, "FAILED | 1250 passed | 1 failed (4m)\n"), false);
  assert.equal(
    crashedAfterPassing(abort, "ok | 2 passed | 0 failed\nFAILED | 1 passed | 1 failed\n"),
    false,
  );
  assert.equal(crashedAfterPassing({ success: true, code: 0, signal: null }, passed), false);
  // Lavapipe without its rasterizer threads and WebGPU without GL in both runs.
  assert.deepEqual(DRIVER_ENV, { DENO_WEBGPU_BACKEND: "vulkan,metal,dx12", LP_NUM_THREADS: "0" });
});

Deno.test("every task that can reach the GPU runs WebGPU without GL, as the suite does", async () => {
  const gpuTasks = [
    "demo",
    "synth",
    "tabulate",
    "fit",
    "real-file",
    "frontier",
    "design-release",
    "study",
    "worker",
    "serve",
  ];
  for (const name of gpuTasks) {
    const command = await taskCommand(name);
    assert.ok(
      command.startsWith(`DENO_WEBGPU_BACKEND=${DRIVER_ENV.DENO_WEBGPU_BACKEND} deno run `),
      `${name}: ${command}`,
    );
  }
});
