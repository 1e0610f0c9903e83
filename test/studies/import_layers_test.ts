import assert from "node:assert/strict";

const STUDIES = new URL("../../src/studies/", import.meta.url);

/** The relative specifiers of a module's static imports and re-exports (`… from "./x.ts"`). */
function relativeImports(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "");
  const statement = /^\s*(?:import|export)\b(?:[^;]*?\bfrom\s*)?\s*["'](\.\.?\/[^"']+)["']/gm;
  return [...code.matchAll(statement)].map((match) => match[1]);
}

/** The .ts files under `dir`, as file URLs. */
async function tsFiles(dir: URL): Promise<URL[]> {
  const files: URL[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) files.push(...await tsFiles(new URL(`${entry.name}/`, dir)));
    else if (entry.name.endsWith(".ts")) files.push(new URL(entry.name, dir));
  }
  return files;
}

/** Each cycle the depth-first search meets, as the paths from src/studies/ round to the first. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    path.push(file);
    for (const next of graph.get(file)!) {
      const at = path.indexOf(next);
      if (at >= 0) cycles.push([...path.slice(at), next]);
      else if (!done.has(next)) visit(next);
    }
    path.pop();
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) if (!done.has(file)) visit(file);
  return cycles;
}

Deno.test("`relativeImports()` reads static relative imports and re-exports only", () => {
  const source = [
    "/**",
    ' * import { example } from "./in_a_doc_comment.ts";',
    " */",
    'import { a } from "./a.ts";',
    "import type {",
    "  B,",
    '} from "../b.ts";',
    'import "./side_effect.ts";',
    'export { c } from "./c.ts";',
    'export type * from "./d.ts";',
    'import { parseArgs } from "node:util";',
    'const url = new URL("./worker.ts", import.meta.url);',
  ].join("\n");
  assert.deepEqual(relativeImports(source), [
    "./a.ts",
    "../b.ts",
    "./side_effect.ts",
    "./c.ts",
    "./d.ts",
  ]);
});

Deno.test("src/studies has no import cycle", async () => {
  const files = await tsFiles(STUDIES);
  const nameOf = (url: URL) => url.href.slice(STUDIES.href.length);
  const names = new Set(files.map(nameOf));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = relativeImports(await Deno.readTextFile(file))
      .map((specifier) => new URL(specifier, file))
      .filter((url) => url.href.startsWith(STUDIES.href) && names.has(nameOf(url)))
      .map(nameOf);
    graph.set(nameOf(file), targets);
  }
  assert.ok([...graph.values()].some((targets) => targets.length > 0), "no imports were read");
  const cycles = cyclesOf(graph).map((cycle) => cycle.join(" → "));
  assert.deepEqual(cycles, [], `import cycles in src/studies:\n${cycles.join("\n")}`);
});
