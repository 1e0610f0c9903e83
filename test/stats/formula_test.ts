import assert from "node:assert/strict";
import { parseFormula } from "../../src/stats/formula.ts";

Deno.test("`parseFormula()` reads y ~ a + b, backquoted names and the intercept term", () => {
  assert.deepEqual(parseFormula("  A ~ x1 + B "), {
    text: "A ~ x1 + B",
    outcome: "A",
    terms: ["x1", "B"],
  });
  assert.deepEqual(parseFormula("A~x1+B").terms, ["x1", "B"]);
  assert.deepEqual(parseFormula("`net income` ~ `age group` + x.2").outcome, "net income");
  assert.deepEqual(parseFormula("`net income` ~ `age group` + x.2").terms, ["age group", "x.2"]);
  assert.deepEqual(parseFormula("y ~ 1").terms, []);
  assert.deepEqual(parseFormula("y ~ 1 + x").terms, ["x"]);
  assert.deepEqual(parseFormula("y ~ `1`").terms, ["1"], "a column named 1, backquoted");
});

Deno.test("`parseFormula()` errors quote the formula and say where", () => {
  const cases: [string, RegExp][] = [
    ["", /^RangeError: Invalid utility model "": unexpected end/],
    ["y", /"y": unexpected end/],
    ["y ~", /"y ~": unexpected end/],
    ["y ~ a + a", /"y ~ a \+ a": the term "a" appears twice/],
    ["y ~ y", /the outcome "y" is also a predictor/],
    ["y ~ a:b", /unexpected ":" at character 6/],
    ["y ~ I(a^2)", /unexpected "\(" at character 6/],
    ["y ~ a - 1", /unexpected "-" at character 7/],
    ["y ~ `a", /unclosed backquote at character 5/],
    ["1 ~ a", /the outcome must be a column/],
    ["y ~ 2a", /unexpected "2" at character 5/],
  ];
  for (const [text, pattern] of cases) assert.throws(() => parseFormula(text), pattern, text);
});
