/**
 * Issue 26: layers import only downward. The folders of `src/` (and `functions/`) in order, lowest
 * first, as `docs/architecture.md` lists them; a static import from one folder into another must
 * go to a lower one. The test reads every module's `import … from` and `export … from` lines
 * (comments stripped, so doc examples do not count) and fails naming each upward import.
 *
 * @module
 */
import assert from "node:assert/strict";

/** The layers, lowest first. */
const LAYERS = [
  "src/random",
  "src/data",
  "src/stats",
  "src/models",
  "src/mcmc",
  "src/mechanisms",
  "src/gpu",
  "src/report",
  "src/synthesis",
  "src/survey",
  "src/studies",
  "src/jobs",
  "src/scale",
  "src/api",
  "functions",
  "src/cli",
];

const ROOT = new URL("../../", import.meta.url).pathname;

/** The relative module paths a source imports or re-exports (comments removed first). */
export function importsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const out: string[] = [];
  for (const match of code.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/gm)) {
    out.push(match[1]);
  }
  for (const match of code.matchAll(/^\s*import\s+"(\.{1,2}\/[^"]+)"/gm)) out.push(match[1]);
  return out;
}

/** The layer of a path relative to the repository root, or null outside them. */
function layerOf(path: string): number | null {
  const index = LAYERS.findIndex((layer) => path === layer || path.startsWith(`${layer}/`));
  return index < 0 ? null : index;
}

/** Every .ts file under `dir` (relative to the root). */
async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await sources(path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** `a/b/../c` → `a/c`. */
function normalise(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

Deno.test("the import parser finds imports and re-exports, not doc examples", () => {
  const source = [
    'import { a } from "./a.ts";',
    "import type {",
    "  B,",
    '} from "../b/b.ts";',
    'export { c } from "./c.ts";',
    "/**",
    ' * import { d } from "../d.ts";',
    " */",
    'import "./e.ts";',
  ].join("\n");
  assert.deepEqual(importsOf(source), ["./a.ts", "../b/b.ts", "./c.ts", "./e.ts"]);
});

Deno.test("every folder of src/ and functions/ imports only from lower layers", async () => {
  const files = [...await sources("src"), ...await sources("functions")];
  const unlisted = new Set<string>();
  const upward: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    if (from === null) {
      unlisted.add(file.split("/").slice(0, 2).join("/"));
      continue;
    }
    const dir = file.slice(0, file.lastIndexOf("/"));
    for (const target of importsOf(await Deno.readTextFile(`${ROOT}${file}`))) {
      const path = normalise(`${dir}/${target}`);
      const to = layerOf(path);
      if (to !== null && to > from) upward.push(`${file} → ${path}`);
    }
  }
  assert.deepEqual([...unlisted], [], "every folder has a layer");
  assert.deepEqual(upward, [], "upward imports");
});
