/**
 * `auto` for a whole file reads public facts only: the requested mechanism picks the model
 * (censoring needs the latent class model), and the model, ε and m pick the mechanism (LW on the
 * network from ε/m ≥ LW_MIN_FILE_EPSILON, SW below it and on the latent class model).
 */
import assert from "node:assert/strict";
import {
  FileSynthesisSpec,
  LW_MIN_FILE_EPSILON,
  resolveFileMechanism,
  resolveFileModel,
} from "../../src/synthesis/file_spec.ts";

const spec = (fields: Record<string, unknown>) => FileSynthesisSpec.parse({ y: "all", ...fields });

Deno.test("auto's whole-file model: the network, the latent class model under censoring", () => {
  assert.equal(resolveFileModel(spec({ epsilon: 10 })).model, "bayes-net");
  assert.equal(
    resolveFileModel(spec({ epsilon: 10, mechanism: "censored" })).model,
    "latent-class",
  );
  assert.equal(
    resolveFileModel(spec({ epsilon: 10, mechanism: "censored-w" })).model,
    "latent-class",
  );
  assert.equal(
    resolveFileModel(spec({ epsilon: 10, model: "latent-class" })).model,
    "latent-class",
  );
});

Deno.test("auto's whole-file mechanism: LW on the network from ε/m ≥ 5, SW below it and on the latent class model", () => {
  const mechanism = (fields: Record<string, unknown>) =>
    resolveFileMechanism(spec(fields)).mechanism;
  assert.equal(LW_MIN_FILE_EPSILON, 5);
  assert.equal(mechanism({ epsilon: 10 }), "lw");
  assert.equal(mechanism({ epsilon: 5 }), "lw");
  assert.equal(mechanism({ epsilon: 4.99 }), "sw");
  assert.equal(mechanism({ epsilon: 10, m: 3 }), "sw");
  assert.equal(mechanism({ epsilon: 1 }), "sw");
  assert.equal(mechanism({ epsilon: 10, model: "latent-class" }), "sw");
  assert.equal(mechanism({ epsilon: 10, mechanism: "weighted-e" }), "weighted-e");
  assert.match(resolveFileMechanism(spec({ epsilon: 10 })).reason!, /ε\/m ≥ 5/);
});
