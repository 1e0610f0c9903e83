/**
 * Issue 36: one registry of RNG streams (`src/random/streams.ts`), whose values the committed
 * golden outputs depend on. No module under `src/` declares a `…_STREAM` constant of its own.
 *
 * @module
 */
import assert from "node:assert/strict";
import * as streams from "../../src/random/streams.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function sources(dir: string, out: string[] = []): Promise<string[]> {
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) await sources(path, out);
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

Deno.test("the registry's values are the ones the golden outputs were recorded with", () => {
  assert.deepEqual({ ...streams }, {
    COMPONENT_STREAM: 2 ** 39,
    SYNTHESIS_STREAM: 2 ** 40,
    NOISE_STREAM: 2 ** 41,
    ORDER_STREAM: 2 ** 42,
    FILE_STREAM: 2 ** 43,
    KEY_STREAM: Number.MAX_SAFE_INTEGER,
    REPLICATE_FIT_STREAM: 2 ** 40,
    REPLICATE_SYNTHESIS_STREAM: 2 ** 41,
    REPLICATE_NOISE_STREAM: 2 ** 42,
    BOOTSTRAP_STREAM: 2 ** 43,
    FIGURE_STREAM: 2 ** 44,
    POPULATION_STREAM: 2 ** 43,
  });
});

Deno.test("no stream constant is declared outside src/random/streams.ts", async () => {
  const problems: string[] = [];
  for (const path of await sources("src")) {
    if (path === "src/random/streams.ts") continue;
    const source = await Deno.readTextFile(`${ROOT}${path}`);
    for (const [, name] of source.matchAll(/\bconst\s+(\w*_STREAM)\s*=/g)) {
      problems.push(`${path}: ${name} (import it from src/random/streams.ts)`);
    }
  }
  assert.deepEqual(problems, []);
});
