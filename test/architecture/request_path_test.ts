/**
 * Issue 36: following a request from `src/cli/synth.ts` to the written files enters at most 12
 * files and never returns to the spec modules. The path is the table of `docs/architecture.md`
 * ("Following a request"), one column a kind of plan; this test holds it to the code:
 *
 * - each column names at most 12 files, every one reached by the static imports from
 *   `src/cli/synth.ts` (the table cannot name a file the command does not load);
 * - no file after `plan.ts` in a column imports a value from `spec.ts` or `file_spec.ts` (type
 *   imports are erased: they do not enter the module);
 * - `outcomesOf` is imported by `src/synthesis/plan.ts` alone (the one place that counts the
 *   outcomes).
 *
 * @module
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url).pathname;
const ENTRY = "src/cli/synth.ts";
const SPEC_MODULES = ["src/synthesis/spec.ts", "src/synthesis/file_spec.ts"];

/** A module's static imports (and re-exports): the resolved path and whether it takes a value. */
function imports(path: string, text: string): { path: string; value: boolean }[] {
  const found: { path: string; value: boolean }[] = [];
  const pattern = /^(import|export)\s+(type\s+)?([^;]*?)\s*from\s*"(\.[^"]+)"/gms;
  for (const [, , typeOnly, names, target] of text.matchAll(pattern)) {
    const braces = names.match(/^\{([\s\S]*)\}$/);
    const allTypes = braces !== null &&
      braces[1].split(",").map((name) => name.trim()).filter((name) => name !== "")
        .every((name) => name.startsWith("type "));
    const url = new URL(target, `file://${ROOT}${path}`);
    found.push({ path: url.pathname.slice(ROOT.length), value: !typeOnly && !allTypes });
  }
  return found;
}

async function source(path: string): Promise<string> {
  return await Deno.readTextFile(`${ROOT}${path}`);
}

/** The table's columns of file paths (synthesis, whole file), in step order. */
async function documentedPaths(): Promise<string[][]> {
  const doc = await source("docs/architecture.md");
  const at = doc.indexOf("**Following a request**");
  assert.ok(at >= 0, 'docs/architecture.md has no "Following a request" table');
  const rows = doc.slice(at).split("\n").filter((line) => /^\s*\|\s*\d+\s*\|/.test(line));
  const columns: string[][] = [[], []];
  for (const row of rows) {
    const cells = row.split("|").slice(2, 4);
    cells.forEach((cell, k) => {
      const path = cell.match(/`([^`]+\.ts)`/)?.[1];
      if (path !== undefined) columns[k].push(path);
    });
  }
  return columns;
}

/** Every module reached by static imports from `entry` (with `.ts` sources under the root). */
async function reached(entry: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const path = queue.pop()!;
    if (seen.has(path) || !path.endsWith(".ts")) continue;
    seen.add(path);
    for (const { path: next } of imports(path, await source(path))) queue.push(next);
  }
  return seen;
}

Deno.test("the documented request path from synth.ts enters at most 12 files, each loaded by the command", async () => {
  const columns = await documentedPaths();
  const loaded = await reached(ENTRY);
  for (const column of columns) {
    assert.ok(column.length >= 5, `the table lists the path: ${column}`);
    assert.equal(column[0], ENTRY);
    assert.ok(new Set(column).size <= 12, `${new Set(column).size} files: ${column.join(", ")}`);
    for (const path of column) assert.ok(loaded.has(path), `${path} is not loaded by ${ENTRY}`);
  }
});

Deno.test("no module after the plan on the request path takes a value from the spec modules", async () => {
  for (const column of await documentedPaths()) {
    const plan = column.indexOf("src/synthesis/plan.ts");
    assert.ok(plan > 0, "the path goes through the plan");
    for (const path of column.slice(plan + 1)) {
      const back = imports(path, await source(path))
        .filter((entry) => entry.value && SPEC_MODULES.includes(entry.path));
      assert.deepEqual(back, [], `${path} returns to the spec module`);
    }
  }
});

Deno.test("outcomesOf is imported by the plan alone", async () => {
  const importers: string[] = [];
  for (const dir of ["src", "functions", "bench"]) {
    for await (const path of walkTs(dir)) {
      const text = await source(path);
      const named = /import\s*\{[^}]*\boutcomesOf\b[^}]*\}\s*from\s*"[^"]*\/spec\.ts"/.test(text);
      if (named) importers.push(path);
    }
  }
  assert.deepEqual(importers, ["src/synthesis/plan.ts"]);
});

async function* walkTs(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && entry.name !== "node_modules") yield* walkTs(path);
    else if (entry.isFile && path.endsWith(".ts")) yield path;
  }
}
