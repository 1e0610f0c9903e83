// CPU only: `src/gpu/hmc_layout.ts` mirrors the constants and the `Params` block of
// `shaders/hmc_common.wgsl` (and the tile of `shaders/hmc_target.wgsl`); this reads the WGSL and
// compares, so a change to one side alone fails here, with no GPU needed.
import assert from "node:assert/strict";
import * as layout from "../../src/gpu/hmc_layout.ts";
import type { HmcParams } from "../../src/gpu/hmc_layout.ts";

const SHADERS = new URL("../../shaders/", import.meta.url);
const common = Deno.readTextFileSync(new URL("hmc_common.wgsl", SHADERS));
const target = Deno.readTextFileSync(new URL("hmc_target.wgsl", SHADERS));

/** The `const NAME: u32 = …;` declarations of a WGSL source, products of earlier ones evaluated. */
function u32Constants(source: string): Map<string, number> {
  const constants = new Map<string, number>();
  for (const [, name, expr] of source.matchAll(/^const (\w+): u32 = ([^;]+);/gm)) {
    const factors = expr.split("*").map((f) => f.trim());
    const value = factors.reduce((product, f) => {
      const v = /^\d+u$/.test(f) ? Number(f.slice(0, -1)) : constants.get(f);
      assert.ok(v !== undefined, `cannot evaluate ${name} = ${expr}`);
      return product * v;
    }, 1);
    constants.set(name, value);
  }
  return constants;
}

/** The fields of `struct Params`, in order. */
function paramsFields(source: string): { name: string; type: string }[] {
  const body = /struct Params \{([^}]*)\}/.exec(source);
  assert.ok(body !== null, "no struct Params in hmc_common.wgsl");
  return [...body[1].matchAll(/(\w+): (u32|f32),/g)].map(([, name, type]) => ({ name, type }));
}

const camel = (name: string) => name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

Deno.test("every layout constant of hmc_layout.ts equals its WGSL twin", () => {
  const wgsl = u32Constants(common);
  // Host-side constants with no `const` twin in hmc_common.wgsl (TILE is hmc_target.wgsl's).
  const hostOnly = new Set(["TILE", "MAX_DISPATCH", "CC_WORDS", "PARAMS_BYTES"]);
  for (const [name, value] of Object.entries(layout)) {
    if (typeof value !== "number" || hostOnly.has(name)) continue;
    assert.equal(value, wgsl.get(name), `${name} in hmc_layout.ts and hmc_common.wgsl`);
  }
  assert.equal(wgsl.get("MAX_D"), 2 * layout.MAX_K + 1);
  assert.equal(u32Constants(target).get("TILE"), layout.TILE);
  for (const [name, value] of wgsl) {
    if (name.startsWith("CC_")) assert.ok(value < layout.CC_WORDS, `${name} inside CC_WORDS`);
    if (name.startsWith("CF_") && name !== "CF_HEAD") assert.ok(value < layout.CF_HEAD, name);
    if (name.startsWith("CU_") && name !== "CU_STRIDE") assert.ok(value < layout.CU_STRIDE, name);
  }
});

Deno.test("`chainStride()` is the WGSL `chain_stride()`", () => {
  const body = /fn chain_stride\(\) -> u32 \{\s*return (\d+)u \* params\.d \+ (\d+)u;/.exec(common);
  assert.ok(body !== null, "chain_stride() changed shape");
  for (const d of [1, 5, 33]) {
    assert.equal(layout.chainStride(d), Number(body[1]) * d + Number(body[2]));
  }
});

Deno.test("`packParams()` writes each field of the WGSL `Params` at its word, as its type", () => {
  const fields = paramsFields(common);
  assert.equal(fields.length * 4, layout.PARAMS_BYTES);
  // A distinct value per field (small integers stay exact in f32).
  const values: Record<string, number | boolean> = {};
  fields.forEach(({ name }, i) => (values[camel(name)] = i + 1));
  values.hasExtra = true;
  const bytes = layout.packParams(values as unknown as HmcParams);
  const u = new Uint32Array(bytes);
  const f = new Float32Array(bytes);
  fields.forEach(({ name, type }, i) => {
    const got = type === "u32" ? u[i] : f[i];
    if (name === "censor_on") return assert.equal(got, 1, name);
    if (name === "has_extra") return assert.equal(got, 1, name);
    assert.equal(got, values[camel(name)], `${name} (${type}) at word ${i}`);
  });
});
