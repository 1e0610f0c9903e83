import assert from "node:assert/strict";
import { heldOutAccuracy } from "../../src/stats/held_out.ts";
import { Rng } from "../../src/random/rng.ts";

Deno.test("`heldOutAccuracy()`: a numeric predictor cut at its training median separates two labels", () => {
  const rng = new Rng(3);
  const v = Array.from({ length: 2000 }, () => rng.uniform());
  const y = v.map((x) => (x > 0.5 ? "hi" : "lo"));
  const accuracy = heldOutAccuracy(y, [{ kind: "numeric", values: v, bins: 2 }], { seed: 1 });
  assert.ok(accuracy > 0.97, `accuracy ${accuracy}`);
  // No predictor: the training mode for everyone, about half right.
  const none = heldOutAccuracy(y, [], { seed: 1 });
  assert.ok(Math.abs(none - 0.5) < 0.05, `accuracy ${none}`);
});

Deno.test("`heldOutAccuracy()`: cells predict their training mode, unseen cells the overall mode", () => {
  // Records 0..9: cell "a" is "x" 4 times in 5, cell "b" always "y"; the split is the seed's.
  const cell = ["a", "a", "a", "a", "a", "b", "b", "b", "b", "b"];
  const y = ["x", "x", "x", "x", "z", "y", "y", "y", "y", "y"];
  const accuracy = heldOutAccuracy(y, [{ kind: "text", values: cell }], { seed: 5 });
  // Worked by hand from the same split: the test records and their cells' training modes.
  const rng = new Rng(5);
  const test = cell.map(() => rng.uniform() < 0.5);
  const trainModes = new Map<string, string>();
  for (const c of ["a", "b"]) {
    const labels = y.filter((_, i) => !test[i] && cell[i] === c);
    const counts = new Map<string, number>();
    for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
    let best = "";
    let most = 0;
    for (const [l, k] of counts) if (k > most) (best = l, most = k);
    trainModes.set(c, best);
  }
  const expected = y.filter((l, i) => test[i] && trainModes.get(cell[i]) === l).length /
    test.filter(Boolean).length;
  assert.equal(accuracy, expected);
  assert.throws(
    () => heldOutAccuracy(y, [{ kind: "text", values: ["a"] }], { seed: 1 }),
    /predictor/,
  );
});
