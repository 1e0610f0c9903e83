import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import { AUTO_RULES, chooseMechanism } from "../../src/mechanisms/auto.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";
import { synthesize } from "../../src/synthesis/synthesize.ts";

Deno.test("`chooseMechanism()`: aDP allowed → the aDP rule, DP only → the DP rule", () => {
  assert.equal(
    chooseMechanism({ guarantees: ["DP", "aDP"], epsilon: 5, m: 1 }).mechanism,
    AUTO_RULES.aDP,
  );
  assert.equal(
    chooseMechanism({ guarantees: ["aDP"], epsilon: 5, m: 3 }).mechanism,
    AUTO_RULES.aDP,
  );
  assert.equal(chooseMechanism({ guarantees: ["DP"], epsilon: 5, m: 1 }).mechanism, AUTO_RULES.DP);
  assert.throws(() => chooseMechanism({ guarantees: ["DP"], epsilon: undefined, m: 1 }), /epsilon/);
  assert.throws(() => chooseMechanism({ guarantees: [], epsilon: 5, m: 1 }), /guarantees/);
});

/** n records of y ~ N(shift + z, 1)-like values and a public z. */
function csv(n: number, shift: number): string {
  const rows = Array.from({ length: n }, (_, i) => {
    const z = (i % 10) / 10;
    return `${(shift + z + Math.sin(7 * i)).toFixed(4)},${z}`;
  });
  return "y,z\n" + rows.join("\n") + "\n";
}

Deno.test("mechanism auto reads no confidential value: other data, same public facts, same choice", async () => {
  const spec = SynthesisSpec.parse({
    y: "y",
    x: ["z"],
    model: "normal",
    mechanism: "auto",
    epsilon: 5,
    m: 1,
    draws: 400,
    chains: 2,
    warmup: 100,
    seed: 1,
    allowFlagged: true,
  });
  const [a, b] = await Promise.all(
    [csv(60, 0), csv(90, 500)].map((text) => synthesize(parseCsv(text, "data"), spec)),
  );
  assert.equal(a.report.mechanism, AUTO_RULES.aDP);
  assert.equal(b.report.mechanism, a.report.mechanism);
  assert.deepEqual(b.report.mechanismChoice, a.report.mechanismChoice);
  assert.notEqual(a.report.n, b.report.n);
});
