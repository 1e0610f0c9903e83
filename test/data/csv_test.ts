import assert from "node:assert/strict";
import {
  buildDesign,
  columnFromCells,
  columnsFromRows,
  DataError,
  datasetColumns,
  formatCsv,
  numericColumn,
  type OutputColumn,
  parseCsv,
} from "../../src/data/mod.ts";

function dataError(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof DataError, `expected DataError, got ${error}`);
    assert.match(error.message, pattern);
    return true;
  });
}

Deno.test("`parseCsv()` reads numeric and categorical columns into typed arrays", () => {
  const data = parseCsv("y,x,group\n3,0.5,a\n0,-1.25e1,b\n7,.5,a\n", "in.csv");
  assert.equal(data.n, 3);
  assert.deepEqual(data.names, ["y", "x", "group"]);
  assert.deepEqual(numericColumn(data, "x"), Float64Array.of(0.5, -12.5, 0.5));
  const group = data.columns.get("group")!;
  assert.equal(group.kind, "categorical");
  if (group.kind === "categorical") {
    assert.deepEqual([...group.codes], [0, 1, 0]);
    assert.deepEqual(group.levels, ["a", "b"]);
  }
});

Deno.test("`formatCsv()` round-trips through `parseCsv()` bit for bit", () => {
  const values = Float64Array.of(0.1, 1 / 3, -2.5e-300, 12345678901234567);
  const text = formatCsv(
    new Map<string, OutputColumn>([["v", values], ["g", ["a", "b,c", 'd"e', "f"]]]),
  );
  const back = parseCsv(text, "x.csv");
  assert.deepEqual(numericColumn(back, "v"), values);
  assert.deepEqual(datasetColumns(back).get("g"), ["a", "b,c", 'd"e', "f"]);
});

Deno.test("`parseCsv()` rejects an empty file, a header-only file and ragged rows", () => {
  dataError(() => parseCsv("", "e.csv"), /^e\.csv: the file is empty$/);
  dataError(() => parseCsv("  \n", "e.csv"), /the file is empty/);
  dataError(() => parseCsv("y,x\n", "h.csv"), /^h\.csv: .*header but no data rows/);
  dataError(
    () => parseCsv("y,x\n1,2\n3\n", "r.csv"),
    /r\.csv, row 2 \(line 3\): .*number of cells/,
  );
  dataError(() => parseCsv("y,y\n1,2\n", "d.csv"), /column "y": duplicate column/);
});

Deno.test("`columnsFromRows()` builds each column as `columnFromCells()` does from its cells", () => {
  const rows = [
    ["1", "a", "-2.5e3", "", "7"],
    ["2", "b", ".5", "x", "NaN"],
    ["3", "a", "0", "", "8"],
  ];
  const columns = columnsFromRows(rows, 5);
  assert.equal(columns.length, 5);
  columns.forEach((column, j) =>
    assert.deepEqual(column, columnFromCells(rows.map((row) => row[j])), `column ${j}`)
  );
  assert.deepEqual(columns.map((column) => column.kind), [
    "numeric",
    "categorical",
    "numeric",
    "categorical",
    "categorical",
  ]);
});

Deno.test("`numericColumn()` names the file, row and column of a bad cell without its value", () => {
  const data = parseCsv("y,x\n1,2\n2,abc\n3,NaN\n", "bad.csv");
  dataError(
    () => numericColumn(data, "x"),
    /^bad\.csv, row 2 \(line 3\), column "x": non-numeric cell/,
  );
  const nonFinite = parseCsv("y\n1\nInf\n", "inf.csv");
  dataError(() => numericColumn(nonFinite, "y"), /row 2 \(line 3\), column "y": non-finite/);
  const nan = parseCsv("y\n1\n2\nNaN\n", "nan.csv");
  dataError(() => numericColumn(nan, "y"), /row 3 \(line 4\), column "y": non-finite/);
  dataError(() => numericColumn(data, "z"), /column "z": missing column \(the file has: y, x\)/);
  assert.throws(() => numericColumn(data, "x"), (e: Error) => !e.message.includes("abc"));
});

Deno.test("`buildDesign()` checks the outcome against the model's needs", () => {
  const counts = parseCsv("y,x\n1,0.5\n-2,1\n", "c.csv");
  dataError(
    () => buildDesign(counts, { y: "y" }, "count"),
    /c\.csv, row 2 \(line 3\), column "y": a count model needs a non-negative integer/,
  );
  const fractional = parseCsv("y\n1\n2.5\n", "f.csv");
  dataError(() => buildDesign(fractional, { y: "y" }, "count"), /row 2 .*non-negative integer/);
  const unit = parseCsv("y\n0.2\n1\n", "b.csv");
  dataError(() => buildDesign(unit, { y: "y" }, "unit-interval"), /row 2 .*inside \(0, 1\)/);
  const zero = parseCsv("y\n0\n", "z.csv");
  dataError(() => buildDesign(zero, { y: "y" }, "unit-interval"), /row 1 .*inside \(0, 1\)/);
  dataError(() => buildDesign(zero, { y: "y" }, "positive"), /strictly positive/);
  dataError(() => buildDesign(counts, { y: "y", x: ["w"] }, "real"), /column "w": missing column/);
});

Deno.test("`buildDesign()` puts an intercept column first, row-major", () => {
  const data = parseCsv("y,a,b\n1,2,3\n4,5,6\n", "d.csv");
  const design = buildDesign(data, { y: "y", x: ["b", "a"] }, "count");
  assert.equal(design.k, 3);
  assert.deepEqual(design.coefficientNames, ["intercept", "b", "a"]);
  assert.deepEqual(design.x, Float64Array.of(1, 3, 2, 1, 6, 5));
  assert.deepEqual(design.y, Float64Array.of(1, 4));
});

Deno.test("`buildDesign()` dummy-codes a categorical covariate (treatment coding, first level out)", () => {
  const data = parseCsv("y,g,z\n1,a,0.5\n2,b,1\n3,c,2\n4,a,3\n", "g.csv");
  const design = buildDesign(data, { y: "y", x: ["g", "z"] }, "count");
  assert.deepEqual(design.coefficientNames, ["intercept", "g=b", "g=c", "z"]);
  assert.deepEqual(
    design.x,
    Float64Array.of(1, 0, 0, 0.5, 1, 1, 0, 1, 1, 0, 1, 2, 1, 0, 0, 3),
  );
  const single = parseCsv("y,g\n1,a\n2,a\n", "s.csv");
  dataError(() => buildDesign(single, { y: "y", x: ["g"] }, "count"), /column "g": .*one level/);
});

Deno.test("`buildDesign()` reads positive survey weights and names a bad one", () => {
  const data = parseCsv("y,w\n1,10.5\n2,0\n", "w.csv");
  dataError(
    () => buildDesign(data, { y: "y", weight: "w" }, "positive"),
    /w\.csv, row 2 \(line 3\), column "w": survey weights must be strictly positive/,
  );
  const ok = buildDesign(parseCsv("y,w\n1,10.5\n", "w.csv"), { y: "y", weight: "w" }, "positive");
  assert.deepEqual(ok.weight, Float64Array.of(10.5));
});

Deno.test("`formatCsv()` escapes formula-like text cells only when asked, never numbers", () => {
  const columns = new Map<string, OutputColumn>([
    ["z", Float64Array.of(-1.5, 2)],
    ["g", ["=1+1", "-2"]],
    ["@h", ["+x", "ok"]],
  ]);
  assert.equal(formatCsv(columns), "z,g,@h\n-1.5,=1+1,+x\n2,-2,ok\n");
  assert.equal(
    formatCsv(columns, { escapeFormulas: true }),
    "z,g,'@h\n-1.5,'=1+1,'+x\n2,-2,ok\n",
  );
});
