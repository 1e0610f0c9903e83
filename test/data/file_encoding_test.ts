import assert from "node:assert/strict";
import { parseCsv } from "../../src/data/csv.ts";
import {
  binLabel,
  columnBins,
  decodeFile,
  type EncodedFile,
  encodeFile,
  formatStep,
} from "../../src/data/file_encoding.ts";
import { type FileColumn, readFileSchema } from "../../src/data/file_schema.ts";
import { Rng } from "../../src/random/rng.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

function labels(column: FileColumn, bins = 8): string[] {
  return columnBins(column, { columns: [column], bins }).map((bin) => binLabel(bin, column));
}

Deno.test("columnBins() lays out each kind from the declaration alone", () => {
  // A small integer range: one level per value, N/A first.
  assert.deepEqual(labels({ name: "c", kind: "count", bounds: [2, 5], notApplicable: "N" }), [
    "N",
    "2",
    "3",
    "4",
    "5",
  ]);
  // A wide count: 8 equal-width bins of 0..99 (starts ⌊j·100/8⌋ = 0, 12, 25, 37, 50, 62, 75, 87).
  assert.deepEqual(labels({ name: "c", kind: "count", bounds: [0, 99] }), [
    "[0, 11]",
    "[12, 24]",
    "[25, 36]",
    "[37, 49]",
    "[50, 61]",
    "[62, 74]",
    "[75, 86]",
    "[87, 99]",
  ]);
  // An amount: negatives in ⌈8/8⌉ = 1 log bin, zero alone, positives below 1e5/1e4 = 10 in one
  // linear bin, then 8 log bins of ratio (100000/10)^(1/8) = 10^0.5 from 10: starts 10, 32,
  // 100, 316, 1000, 3162, 10000, 31623.
  assert.deepEqual(
    labels({ name: "a", kind: "amount", bounds: [-50, 99999], integer: true }),
    [
      "[-50, -1]",
      "0",
      "[1, 9]",
      "[10, 31]",
      "[32, 99]",
      "[100, 315]",
      "[316, 999]",
      "[1000, 3161]",
      "[3162, 9999]",
      "[10000, 31622]",
      "[31623, 99999]",
    ],
  );
  // A weight from 0: zero is a level; a declared point is a level; decimals format the cells.
  assert.deepEqual(
    labels({ name: "w", kind: "weight", bounds: [0, 8], integer: true, points: [8] }),
    ["0", "1", "2", "3", "4", "5", "6", "7", "8"],
  );
  // A positive continuous column is log scale on its grid: steps 1..12 (0.1..1.2) in 4 bins of
  // ratio 13^(1/4) ≈ 1.90: starts round(1.90^j) = 1, 2, 4, 7.
  assert.deepEqual(
    labels({ name: "d", kind: "continuous", bounds: [0.1, 1.2], decimals: 1 }, 4),
    ["0.1", "[0.2, 0.3]", "[0.4, 0.6]", "[0.7, 1.2]"],
  );
});

Deno.test("columnBins() makes every constant a rule compares with a bin edge", () => {
  const age: FileColumn = { name: "AGE", kind: "count", bounds: [0, 99] };
  const schema = {
    columns: [age],
    bins: 8,
    rules: [{ name: "r", when: [{ column: "AGE", op: "<" as const, value: 15 }], then: [] }],
  };
  const bins = columnBins(age, schema);
  // Without the rule [12, 24] holds both 14 and 15; with it, 15 starts a bin, and so does 16
  // (the first value above the constant, for a rule that reads AGE == 15 or AGE > 15).
  assert.deepEqual(bins.map((bin) => binLabel(bin, age)).slice(0, 4), [
    "[0, 11]",
    "[12, 14]",
    "15",
    "[16, 24]",
  ]);
});

Deno.test("formatStep() writes integers and decimals as the file does", () => {
  const income: FileColumn = {
    name: "I",
    kind: "amount",
    bounds: [-9, 9],
    integer: true,
    decimals: 1,
  };
  assert.equal(formatStep(5000, income), "5000.0");
  assert.equal(formatStep(-3, income), "-3.0");
  const density: FileColumn = { name: "D", kind: "continuous", bounds: [0, 9], decimals: 2 };
  assert.equal(formatStep(5, density), "0.05");
  assert.equal(formatStep(-123, density), "-1.23");
  assert.equal(formatStep(0, density), "0.00");
});

Deno.test("decodeFile() → encodeFile() returns every code on ma2019's schema", async () => {
  const schema = await readFileSchema(`${ROOT}examples/crc/ma2019.schema.json`);
  const rng = new Rng(35);
  const n = 3000;
  // Uniform codes over every column's states (rules are not kept: encoding does not check them).
  const columns = schema.columns.map((column) => {
    const levels = column.determinedBy === undefined ? columnBins(column, schema).length : 1;
    const codes = Int32Array.from({ length: n }, () => Math.floor(rng.uniform() * levels));
    return { name: column.name, levels, codes };
  });
  const file: EncodedFile = { n, columns };
  const cells = decodeFile(file, schema, rng.split(1));
  assert.deepEqual([...cells.keys()], schema.columns.map((c) => c.name));
  // Every decoded value lies in its code's bin.
  schema.columns.forEach((column, j) => {
    const bins = columnBins(column, schema);
    if (column.determinedBy !== undefined) return;
    cells.get(column.name)!.forEach((cell, i) => {
      const bin = bins[columns[j].codes[i]];
      if (bin.kind !== "range") return assert.equal(cell, bin.cell);
      const step = Math.round(Number(cell) / (column.integer || column.kind === "count" ? 1 : 0.1));
      assert.ok(step >= bin.lo && step <= bin.hi, `${column.name}: ${cell} outside its bin`);
    });
  });
  assert.ok(cells.get("PINCP")!.every((cell) => cell === "N" || /^-?\d+\.0$/.test(cell)));
  const density = schema.columns.find((c) => c.name === "DENSITY")!.determinedBy!.map;
  cells.get("DENSITY")!.forEach((cell, i) => assert.equal(cell, density[cells.get("PUMA")![i]]));
  // Written as CSV and read back, the cells encode to the same codes.
  const csv = [
    [...cells.keys()].join(","),
    ...Array.from({ length: n }, (_, i) => [...cells.values()].map((c) => c[i]).join(",")),
  ].join("\n");
  const again = encodeFile(parseCsv(csv, "decoded.csv"), schema);
  again.columns.forEach((column, j) => {
    assert.equal(column.levels, columns[j].levels);
    assert.deepEqual(column.codes, columns[j].codes, column.name);
  });
});

Deno.test("decodeFile() draws uniformly on a log bin's scale", () => {
  const column: FileColumn = { name: "w", kind: "weight", bounds: [1, 99], integer: true };
  const schema = { columns: [column], bins: 1 };
  assert.deepEqual(columnBins(column, schema), [{ kind: "range", lo: 1, hi: 99, scale: "log" }]);
  const n = 20000;
  const cells = decodeFile(
    { n, columns: [{ name: "w", levels: 1, codes: new Int32Array(n) }] },
    schema,
    new Rng(7),
  ).get("w")!;
  // floor(exp(U(log 1, log 100))) < 10 with probability log 10 / log 100 = 1/2.
  const below = cells.filter((cell) => Number(cell) < 10).length / n;
  assert.ok(Math.abs(below - 0.5) < 4 * Math.sqrt(0.25 / n), `share below 10: ${below}`);
});

Deno.test("decodeFile() refuses codes that do not match the schema", async () => {
  const schema = await readFileSchema(`${ROOT}examples/crc/ma2019.schema.json`);
  const n = 1;
  const columns = schema.columns.map((column) => ({
    name: column.name,
    levels: column.determinedBy === undefined ? columnBins(column, schema).length : 1,
    codes: new Int32Array(n),
  }));
  const wrongLevels = columns.map((c) => c.name === "AGEP" ? { ...c, levels: 2 } : c);
  assert.throws(() => decodeFile({ n, columns: wrongLevels }, schema, new Rng(1)), /"AGEP"/);
  assert.throws(
    () => decodeFile({ n, columns: columns.slice(1) }, schema, new Rng(1)),
    /23 columns and the schema 24/,
  );
  const outside = columns.map((c) => c.name === "SEX" ? { ...c, codes: Int32Array.of(2) } : c);
  assert.throws(() => decodeFile({ n, columns: outside }, schema, new Rng(1)), /"SEX".*code=2/);
});
