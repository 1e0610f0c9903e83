import assert from "node:assert/strict";
import { clampTerm, unclamped } from "../../src/models/_glm.ts";

Deno.test("`clampTerm()` is clamp(c, ±C) of SPEC §4, and NaN stays NaN", () => {
  assert.equal(clampTerm(2, 3), 2);
  assert.equal(clampTerm(3, 3), 3);
  assert.equal(clampTerm(5, 3), 3);
  assert.equal(clampTerm(-5, 3), -3);
  assert.equal(clampTerm(-Infinity, 3), -3);
  assert.equal(clampTerm(-Infinity, Infinity), -Infinity); // uncensored: an invalid outcome's −∞
  assert.equal(clampTerm(1e300, Infinity), 1e300);
  assert.ok(Number.isNaN(clampTerm(NaN, 3)));
});

Deno.test("`unclamped()` passes the gradient where |c| ≤ C (the bound itself and NaN included)", () => {
  assert.equal(unclamped(2, 3), true);
  assert.equal(unclamped(3, 3), true);
  assert.equal(unclamped(-3, 3), true);
  assert.equal(unclamped(3.000001, 3), false);
  assert.equal(unclamped(-Infinity, 3), false);
  assert.equal(unclamped(-Infinity, Infinity), true);
  assert.equal(unclamped(NaN, 3), true);
});
