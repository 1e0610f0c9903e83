import assert from "node:assert/strict";
import { isSoftwareAdapter, selectLipschitz } from "../../src/gpu/select_lipschitz.ts";
import { createModel } from "../../src/models/mod.ts";
import { gpuTest } from "./_helpers.ts";

Deno.test("`isSoftwareAdapter()` knows lavapipe, llvmpipe, SwiftShader and fall-back adapters", () => {
  const cases: [boolean, string, boolean][] = [
    [false, "llvmpipe (LLVM 15.0.6, 256 bits)", true],
    [false, "lavapipe", true],
    [false, "SwiftShader Device (Subzero)", true],
    [true, "some adapter", true],
    [false, "NVIDIA H100 80GB HBM3", false],
    [false, "AMD Radeon RX 7900 XTX", false],
  ];
  for (const [isFallback, description, software] of cases) {
    assert.equal(isSoftwareAdapter({ isFallback, description }), software, description);
  }
});

/** A Poisson model of n records and S draws: S·n draw×record evaluations. */
function poissonProblem(n: number, S: number) {
  const y = Float64Array.from({ length: n }, (_, i) => i % 7);
  const model = createModel("poisson", {
    n,
    k: 1,
    y,
    x: new Float64Array(n).fill(1),
    coefficientNames: ["intercept"],
  });
  const draws = new Float64Array(S * model.dim);
  for (let s = 0; s < S; s++) {
    draws[s * model.dim] = 1 + 0.1 * Math.sin(s);
    draws[s * model.dim + 1] = 1;
  }
  return { model, draws };
}

gpuTest("`--backend auto` never picks a software adapter; `gpu` still does", async (gpu) => {
  // S·n = 4·10⁶: where `auto` used to switch to the GPU whatever the adapter.
  const { model, draws } = poissonProblem(1000, 4000);
  const auto = await selectLipschitz("auto");
  const forced = await selectLipschitz("gpu");
  const [a, f] = [await auto.compute(model, draws), await forced.compute(model, draws)];
  assert.equal(auto.name, isSoftwareAdapter(gpu) ? "cpu" : "gpu", gpu.description);
  assert.equal(forced.name, "gpu");
  assert.equal(a.overall, f.overall, "the same bound either way");
});
