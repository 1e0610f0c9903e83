/**
 * Issue 36: one registry of RNG streams (`src/random/streams.ts`). No module under `src/` declares
 * a `…_STREAM` constant of its own, except the local copies listed here (files being edited under
 * other issues, to be switched to the registry), and those must equal the registry's values, which
 * the committed golden outputs depend on.
 *
 * @module
 */
import assert from "node:assert/strict";
import * as streams from "../../src/random/streams.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Local copies still to be replaced by an import: file → constant names. */
const PENDING: Readonly<Record<string, readonly (keyof typeof streams)[]>> = {
  "src/synthesis/file_synthesis.ts": ["FILE_STREAM"],
  "src/gpu/hmc.ts": ["KEY_STREAM"],
};

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
    for (const [, name, value] of source.matchAll(/\bconst\s+(\w*_STREAM)\s*=\s*([^;]+);/g)) {
      const pending = PENDING[path]?.includes(name as keyof typeof streams) ?? false;
      if (!pending) {
        problems.push(`${path}: ${name} (import it from src/random/streams.ts)`);
        continue;
      }
      const power = value.trim().match(/^2\s*\*\*\s*(\d+)$/);
      const local = power !== null
        ? 2 ** Number(power[1])
        : value.trim() === "Number.MAX_SAFE_INTEGER"
        ? Number.MAX_SAFE_INTEGER
        : NaN;
      if (local !== streams[name as keyof typeof streams]) {
        problems.push(`${path}: ${name} = ${value} differs from the registry`);
      }
    }
  }
  assert.deepEqual(problems, []);
});
