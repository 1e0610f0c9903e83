import assert from "node:assert/strict";
import { parseCsv, readCsv } from "../../src/data/csv.ts";
import { DataError } from "../../src/data/data_error.ts";
import { draftFileSchema } from "../../src/data/draft_schema.ts";
import { encodeFile } from "../../src/data/file_encoding.ts";
import { recordSatisfiesRules, ruleViolations } from "../../src/data/file_rules.ts";
import { type FileSchema, parseFileSchema, readFileSchema } from "../../src/data/file_schema.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const MA2019 = `${ROOT}examples/crc/ma2019.csv`;
const MA2019_SCHEMA = `${ROOT}examples/crc/ma2019.schema.json`;

/** A small schema: a geography, a count with N/A, an amount, a determined column, rules. */
const SMALL = {
  geography: "AREA",
  columns: [
    { name: "AREA", kind: "categorical", levels: ["a", "b"] },
    {
      name: "DENS",
      kind: "categorical",
      levels: ["1.5", "9.0"],
      determinedBy: {
        column: "AREA",
        map: { a: "1.5", b: "9.0" },
      },
    },
    { name: "AGE", kind: "count", bounds: [0, 99] },
    { name: "KIDS", kind: "count", bounds: [0, 9], notApplicable: "N" },
    { name: "FAM", kind: "count", bounds: [2, 12], notApplicable: "N" },
    {
      name: "INC",
      kind: "amount",
      bounds: [-100, 100000],
      integer: true,
      decimals: 1,
      notApplicable: "N",
    },
  ],
  rules: [
    {
      name: "FAM > KIDS",
      when: [{ column: "FAM", isNA: false }, { column: "KIDS", isNA: false }],
      then: [{ column: "FAM", op: ">", other: "KIDS" }],
    },
    {
      name: "no income under 15",
      when: [{ column: "AGE", op: "<", value: 15 }],
      then: [{ column: "INC", isNA: true }],
      iff: true,
    },
  ],
};

function small(): FileSchema {
  return parseFileSchema(structuredClone(SMALL), "small.json");
}

/** The schema with one column's fields replaced. */
function withColumn(name: string, fields: Record<string, unknown>): unknown {
  const json = structuredClone(SMALL) as { columns: Record<string, unknown>[] };
  const column = json.columns.find((c) => c.name === name)!;
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) delete column[key];
    else column[key] = value;
  }
  return json;
}

Deno.test("parseFileSchema() refuses a malformed column naming the column and the field", () => {
  const cases: [unknown, RegExp][] = [
    [withColumn("AGE", { bounds: undefined }), /column "AGE": field "bounds": required/],
    [withColumn("AGE", { kind: "ordinal" }), /column "AGE": field "kind"/],
    [withColumn("AGE", { bounds: [10, 5] }), /column "AGE": field "bounds": .*lower ≤ upper/],
    [withColumn("AREA", { bounds: [0, 1] }), /column "AREA": field "bounds": not allowed/],
    [withColumn("AREA", { levels: ["a", "a"] }), /column "AREA": field "levels": .*twice/],
    [withColumn("KIDS", { integer: false }), /column "KIDS": field "integer"/],
    [
      withColumn("INC", { integer: undefined, decimals: undefined }),
      /column "INC": field "decimals": required/,
    ],
    [withColumn("INC", { points: [200000] }), /column "INC": field "points"/],
    [withColumn("KIDS", { notApplicable: "0" }), /column "KIDS": field "notApplicable"/],
    [
      withColumn("DENS", { determinedBy: { column: "AREA", map: { a: "1.5" } } }),
      /column "DENS": field "determinedBy": "map" must give a value for each/,
    ],
    [
      withColumn("DENS", { determinedBy: { column: "AREA", map: { a: "1.5", b: "7" } } }),
      /column "DENS": field "determinedBy": every value/,
    ],
    [withColumn("AGE", { extra: 1 }), /column "AGE": field ""?.*[Uu]nrecognized/],
    [{ ...SMALL, geography: "AGE" }, /field "geography": "AGE" is not a declared categorical/],
    [
      { ...SMALL, rules: [{ name: "r", then: [{ column: "X", isNA: true }] }] },
      /rule "r": column "X" is not declared/,
    ],
    [
      { ...SMALL, rules: [{ name: "r", then: [{ column: "AGE", isNA: true }] }] },
      /rule "r": column "AGE" declares no notApplicable marker/,
    ],
    [
      { ...SMALL, rules: [{ name: "r", then: [{ column: "AREA", op: "<", value: 1 }] }] },
      /rule "r": column "AREA" is not numeric/,
    ],
    [
      { ...SMALL, rules: [{ name: "r", iff: true, then: [{ column: "AGE", op: "<", value: 1 }] }] },
      /rule "r": field "iff"/,
    ],
  ];
  for (const [json, pattern] of cases) {
    assert.throws(
      () => parseFileSchema(json, "s.json"),
      DataError,
      String(pattern),
    );
    assert.throws(() => parseFileSchema(json, "s.json"), (error: Error) => {
      assert.ok(error instanceof DataError, error.message);
      assert.match(error.message, /^s\.json/);
      assert.match(error.message, pattern);
      return true;
    });
  }
});

Deno.test("encodeFile() refuses a cell outside the schema, naming the column and the row", () => {
  const schema = small();
  const header = "AREA,DENS,AGE,KIDS,FAM,INC\n";
  const good = "a,1.5,30,1,3,5000.0\nb,9.0,10,N,N,N\n";
  assert.equal(encodeFile(parseCsv(header + good, "f.csv"), schema).n, 2);
  const cases: [string, RegExp][] = [
    ["c,1.5,30,1,3,5.0", /row 3 \(line 4\), column "AREA": .*not one of the 2 declared levels/],
    [
      "a,1.5,130,1,3,5.0",
      /row 3 \(line 4\), column "AGE": .*outside the declared bounds \[0, 99\]/,
    ],
    ["a,1.5,30,1,3,-200.0", /row 3 .*column "INC": .*outside the declared bounds/],
    ["a,1.5,30,1,3,5.5", /row 3 .*column "INC": .*not a whole number/],
    ["a,1.5,30,x,3,5.0", /row 3 .*column "KIDS": .*neither a number nor the declared N\/A/],
    ["a,1.5,N,1,3,5.0", /row 3 .*column "AGE": .*neither a number nor the declared N\/A/],
    ["a,9.0,30,1,3,5.0", /row 3 .*column "DENS": .*the schema's map gives for its "AREA"/],
  ];
  for (const [row, pattern] of cases) {
    assert.throws(
      () => encodeFile(parseCsv(header + good + row + "\n", "f.csv"), schema),
      (e: Error) => {
        assert.ok(e instanceof DataError);
        assert.match(e.message, pattern);
        assert.doesNotMatch(e.message, /200|130|5\.5|\bx\b/); // the value is never echoed
        return true;
      },
    );
  }
  assert.throws(
    () =>
      encodeFile(parseCsv("AREA,DENS,AGE,KIDS,FAM,INC,EXTRA\na,1.5,3,1,3,N,1\n", "f.csv"), schema),
    /column "EXTRA": the schema does not declare it/,
  );
  assert.throws(
    () => encodeFile(parseCsv("AREA,DENS,AGE,KIDS,FAM\na,1.5,3,1,3\n", "f.csv"), schema),
    /column "INC": missing column/,
  );
});

Deno.test("ruleViolations() and recordSatisfiesRules() on a hand-made file", () => {
  const schema = small();
  // Row by row: ok; FAM = KIDS (breaks rule 1); age 10 with income (breaks rule 2); age 30
  // without income (breaks rule 2, the converse); FAM N/A with KIDS (rule 1 does not apply).
  const cells = new Map([
    ["AGE", ["40", "40", "10", "30", "20"]],
    ["KIDS", ["1", "2", "N", "0", "3"]],
    ["FAM", ["3", "2", "N", "2", "N"]],
    ["INC", ["10.0", "0.0", "500.0", "N", "7.0"]],
  ]);
  assert.deepEqual(ruleViolations(cells, schema), [
    { rule: "FAM > KIDS", violations: 1 },
    { rule: "no income under 15", violations: 2 },
  ]);
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => recordSatisfiesRules(cells, i, schema)), [
    true,
    false,
    false,
    false,
    true,
  ]);
});

Deno.test("the committed ma2019 schema encodes all 7,634 rows, and the file keeps its rules", async () => {
  const schema = await readFileSchema(MA2019_SCHEMA);
  const data = await readCsv(MA2019);
  const encoded = encodeFile(data, schema);
  assert.equal(encoded.n, 7634);
  assert.deepEqual(encoded.columns.map((c) => c.name), data.names);
  assert.equal(schema.geography, "PUMA");
  // The confidential file itself breaks none of the codebook's rules (counted independently
  // with Python's csv module: 0 for each).
  const cells = new Map(data.names.map((name) => {
    const column = data.columns.get(name)!;
    return [
      name,
      column.kind === "numeric"
        ? Array.from(column.values, String)
        : Array.from(column.codes, (code) => column.levels[code]),
    ];
  }));
  const violations = ruleViolations(cells, schema);
  assert.equal(violations.length, 13);
  for (const { rule, violations: count } of violations) assert.equal(count, 0, rule);
});

Deno.test("draftFileSchema() on ma2019 takes the codebook's facts and labels data-derived ones", async () => {
  const data = await readCsv(MA2019);
  const codebookPath = `${ROOT}examples/crc/data_dictionary.json`;
  const codebook = JSON.parse(await Deno.readTextFile(codebookPath));
  const { schema, warnings } = draftFileSchema(data, { json: codebook, source: "dd.json" });
  const reparsed = parseFileSchema(JSON.parse(JSON.stringify(schema)), "draft.json");
  const column = (name: string) => reparsed.columns.find((c) => c.name === name)!;
  assert.equal(reparsed.geography, "PUMA");
  assert.deepEqual(column("SEX"), {
    name: "SEX",
    kind: "categorical",
    levels: ["1", "2"],
    source: "codebook",
    description: "Person's gender",
  });
  assert.equal(column("MSP").notApplicable, "N");
  assert.deepEqual(column("MSP").levels, ["1", "2", "3", "4", "5", "6"]);
  assert.deepEqual(column("PINCP").bounds, [-9000, 1341000]);
  assert.equal(column("PINCP").kind, "amount");
  assert.equal(column("PINCP").decimals, 1);
  assert.deepEqual(column("POVPIP").points, [501]);
  assert.equal(column("PWGTP").kind, "weight");
  assert.equal(column("DENSITY").kind, "continuous");
  // INDP has no values in the codebook: its levels come from the data, and say so.
  assert.equal(column("INDP").source, "data");
  assert.equal(column("INDP").kind, "categorical");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /column "INDP": its levels were read from the confidential data/);
  for (const c of reparsed.columns) if (c.name !== "INDP") assert.equal(c.source, "codebook");
  // Without a codebook, every column is drafted from the data and labelled so.
  const bare = draftFileSchema(data);
  assert.equal(bare.warnings.length, 24);
  assert.ok(bare.schema.columns.every((c) => c.source === "data"));
  parseFileSchema(JSON.parse(JSON.stringify(bare.schema)), "bare.json");
});
