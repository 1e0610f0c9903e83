import assert from "node:assert/strict";
import { buildDesign, DataError, MAX_INTEGER_LEVELS, parseCsv } from "../../src/data/mod.ts";

function dataError(fn: () => unknown, pattern: RegExp, secret?: string): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof DataError, `expected DataError, got ${error}`);
    assert.match(error.message, pattern);
    if (secret !== undefined) assert.ok(!error.message.includes(secret), error.message);
    return true;
  });
}

Deno.test("`buildDesign()` reads a numeric 0/1 binary outcome as it is, levels 0 and 1", () => {
  const data = parseCsv("y,z\n1,0.5\n0,1\n1,2\n", "b.csv");
  const design = buildDesign(data, { y: "y", x: ["z"] }, "binary");
  assert.deepEqual(design.y, Float64Array.of(1, 0, 1));
  assert.deepEqual(design.outcomeLevels, ["0", "1"]);
  assert.deepEqual(design.coefficientNames, ["intercept", "z"]);
  const zeros = buildDesign(parseCsv("y\n0\n0\n", "z.csv"), { y: "y" }, "binary");
  assert.deepEqual(zeros.outcomeLevels, ["0", "1"]);
  dataError(
    () => buildDesign(parseCsv("y\n1\n2\n", "two.csv"), { y: "y" }, "binary"),
    /^two\.csv, row 2 \(line 3\), column "y": a binary outcome in a numeric column must be 0 or 1/,
  );
});

Deno.test("`buildDesign()` codes a text binary outcome in order of appearance, the second level 1", () => {
  const data = parseCsv("y,g\nyes,a\nno,b\nyes,a\nno,a\n", "t.csv");
  const design = buildDesign(data, { y: "y", x: ["g"] }, "binary");
  assert.deepEqual(design.outcomeLevels, ["yes", "no"]);
  assert.deepEqual(design.y, Float64Array.of(0, 1, 0, 1));
  assert.deepEqual(design.coefficientNames, ["intercept", "g=b"]);
});

Deno.test("`buildDesign()` refuses a binary outcome with three levels, or one, naming file and column", () => {
  const three = parseCsv("y\nyes\nno\nmaybe\n", "three.csv");
  dataError(
    () => buildDesign(three, { y: "y" }, "binary"),
    /^three\.csv, column "y": a binary outcome has two levels: found 3$/,
    "maybe",
  );
  const one = parseCsv("y\nyes\nyes\n", "one.csv");
  dataError(() => buildDesign(one, { y: "y" }, "binary"), /two levels: found 1$/);
});

Deno.test("`buildDesign()` reads a categorical outcome: text in order of appearance, integers in numeric order", () => {
  const text = parseCsv("y\nb\na\nc\na\n", "c.csv");
  const design = buildDesign(text, { y: "y" }, "categorical");
  assert.deepEqual(design.outcomeLevels, ["b", "a", "c"]);
  assert.deepEqual(design.y, Float64Array.of(0, 1, 2, 1));
  const codes = buildDesign(parseCsv("y\n3\n1\n7\n1\n", "n.csv"), { y: "y" }, "categorical");
  assert.deepEqual(codes.outcomeLevels, ["1", "3", "7"]);
  assert.deepEqual(codes.y, Float64Array.of(1, 0, 2, 0));
  dataError(
    () => buildDesign(parseCsv("y\n1\n2.5\n", "f.csv"), { y: "y" }, "categorical"),
    /^f\.csv, row 2 \(line 3\), column "y": .*integer codes/,
  );
  dataError(
    () => buildDesign(parseCsv("y\na\na\n", "s.csv"), { y: "y" }, "categorical"),
    /^s\.csv, column "y": a categorical outcome needs at least two levels: found 1$/,
  );
  const many = `y\n${Array.from({ length: MAX_INTEGER_LEVELS + 1 }, (_, i) => i).join("\n")}\n`;
  dataError(
    () => buildDesign(parseCsv(many, "m.csv"), { y: "y" }, "categorical"),
    new RegExp(`column "y": .*at most ${MAX_INTEGER_LEVELS} integer codes: found 51`),
  );
  const most = `y\n${Array.from({ length: MAX_INTEGER_LEVELS }, (_, i) => i).join("\n")}\n`;
  assert.equal(
    buildDesign(parseCsv(most, "m.csv"), { y: "y" }, "categorical").outcomeLevels?.length,
    MAX_INTEGER_LEVELS,
  );
});

Deno.test("`buildDesign()` codes by the declared levels and names the row of a value outside them", () => {
  const data = parseCsv("y\nlow\nhigh\nlow\n", "d.csv");
  const declared = ["high", "mid", "low"];
  const design = buildDesign(data, { y: "y", levels: declared }, "categorical");
  assert.deepEqual(design.outcomeLevels, declared);
  assert.deepEqual(design.y, Float64Array.of(2, 0, 2));
  const binary = buildDesign(data, { y: "y", levels: ["low", "high"] }, "binary");
  assert.deepEqual(binary.y, Float64Array.of(0, 1, 0));
  dataError(
    () => buildDesign(data, { y: "y", levels: ["high", "mid"] }, "categorical"),
    /^d\.csv, row 1 \(line 2\), column "y": a value outside the declared levels$/,
    "low",
  );
  dataError(
    () => buildDesign(data, { y: "y", levels: declared }, "binary"),
    /column "y": a binary outcome has two levels: 3 declared/,
  );
  dataError(
    () => buildDesign(data, { y: "y", levels: ["low", "low"] }, "categorical"),
    /name a level twice/,
  );
  // Numbers match the declared levels in their shortest round-trip form.
  const numeric = parseCsv("y\n1.0\n0\n2\n", "n.csv");
  const coded = buildDesign(numeric, { y: "y", levels: ["2", "1", "0"] }, "categorical");
  assert.deepEqual(coded.y, Float64Array.of(1, 2, 0));
  dataError(
    () => buildDesign(numeric, { y: "y", levels: ["0", "1"] }, "binary"),
    /^n\.csv, row 3 \(line 4\), column "y": a value outside the declared levels$/,
  );
  assert.throws(
    () => buildDesign(numeric, { y: "y", levels: ["0", "1"] }, "count"),
    /Invalid levels: only a binary or categorical outcome has levels: outcome=count/,
  );
});

Deno.test("`buildDesign()` names the row of a missing outcome value, whatever the outcome kind", () => {
  const text = parseCsv("y,z\nyes,1\n,2\nno,3\n", "e.csv");
  for (const kind of ["binary", "categorical"] as const) {
    dataError(
      () => buildDesign(text, { y: "y", x: ["z"] }, kind),
      /^e\.csv, row 2 \(line 3\), column "y": empty cell where an outcome level is required$/,
    );
    dataError(
      () => buildDesign(text, { y: "y", levels: ["yes", "no"] }, kind),
      /row 2 \(line 3\), column "y": empty cell/,
    );
  }
  const na = parseCsv("y,z\na,1\nb,2\nNA,3\n", "na.csv");
  dataError(
    () => buildDesign(na, { y: "y" }, "categorical"),
    /^na\.csv, row 3 \(line 4\), column "y": missing value \(NA or NaN\)/,
  );
  // A declared "NA" level is a level.
  const withNa = buildDesign(na, { y: "y", levels: ["a", "b", "NA"] }, "categorical");
  assert.deepEqual(withNa.y, Float64Array.of(0, 1, 2));
  const numeric = parseCsv("y,z\n1,1\n,2\n0,3\n", "n.csv");
  for (const kind of ["binary", "categorical"] as const) {
    dataError(() => buildDesign(numeric, { y: "y" }, kind), /row 2 \(line 3\), column "y": empty/);
  }
  for (const kind of ["count", "unit-interval", "positive", "real", "non-negative"] as const) {
    dataError(
      () => buildDesign(numeric, { y: "y" }, kind),
      /^n\.csv, row 2 \(line 3\), column "y": empty cell where a number is required$/,
    );
  }
});

Deno.test("`buildDesign()` takes zero and positive values for a non-negative outcome, not negatives", () => {
  const data = parseCsv("y\n0\n12.5\n0\n", "h.csv");
  const design = buildDesign(data, { y: "y" }, "non-negative");
  assert.deepEqual(design.y, Float64Array.of(0, 12.5, 0));
  assert.equal("outcomeLevels" in design, false);
  dataError(
    () => buildDesign(parseCsv("y\n0\n-1\n", "neg.csv"), { y: "y" }, "non-negative"),
    /^neg\.csv, row 2 \(line 3\), column "y": a hurdle model needs a non-negative value$/,
  );
  dataError(
    () => buildDesign(parseCsv("y\n0\nInf\n", "inf.csv"), { y: "y" }, "non-negative"),
    /row 2 \(line 3\), column "y": non-finite/,
  );
});

Deno.test("`buildDesign()` gives the existing outcome kinds no levels", () => {
  const data = parseCsv("y,z\n1,0.5\n2,1\n", "d.csv");
  for (const kind of ["count", "positive", "real"] as const) {
    const design = buildDesign(data, { y: "y", x: ["z"] }, kind);
    assert.deepEqual(Object.keys(design), ["n", "k", "y", "x", "coefficientNames"]);
  }
});
