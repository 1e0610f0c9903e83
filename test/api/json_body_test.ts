import assert from "node:assert/strict";
import { DataError } from "../../src/data/data_error.ts";
import { readDataInput } from "../../src/api/data_input.ts";
import { exceedsDepth, prepareJsonBody } from "../../src/api/json_body.ts";

const RECORDS = [{ y: 1.5, g: "a" }, { y: 2, g: " b " }];

Deno.test("`prepareJsonBody()` turns records into the canonical csv of readDataInput", () => {
  const prepared = prepareJsonBody(JSON.stringify({ model: "normal", records: RECORDS }), 32, "x");
  assert.equal(prepared.type, "body");
  const body = JSON.parse((prepared as { text: string }).text);
  assert.deepEqual(Object.keys(body), ["model", "csv"]);
  assert.equal(body.csv, readDataInput({ records: RECORDS }, "x").csv);
  assert.equal(body.csv, "y,g\n1.5,a\n2,b\n");
});

Deno.test("`prepareJsonBody()` leaves a body without records as sent", () => {
  assert.deepEqual(prepareJsonBody('{"csv":"y\\n1\\n"}', 32, "x"), { type: "body", text: null });
  assert.deepEqual(prepareJsonBody("[1, 2]", 32, "x"), { type: "body", text: null });
});

Deno.test("`prepareJsonBody()` refuses what the route's validation would, naming the field", () => {
  const refused = (body: string) => prepareJsonBody(body, 32, "x");
  assert.deepEqual(refused("{"), {
    type: "refused",
    code: "bad_request",
    message: "Malformed JSON in request body",
  });
  const deep = refused(`{"records":${"[".repeat(40)}${"]".repeat(40)}}`);
  assert.equal(
    deep.type === "refused" && deep.message,
    "the JSON body nests deeper than 32 " +
      "levels (PPSYNTH_MAX_JSON_DEPTH)",
  );
  const cell = refused(JSON.stringify({ records: [{ y: 1 }, { y: true }] }));
  assert.equal(cell.type === "refused" && cell.field, "records.1.y");
  const two = refused(JSON.stringify({ csv: "y\n1\n", records: RECORDS }));
  assert.equal(two.type === "refused" && two.field, "datasetId");
  assert.throws(
    () => refused(JSON.stringify({ records: [{ y: 1 }, { z: 2 }] })),
    (error) => error instanceof DataError && error.row === 2,
  );
});

Deno.test("`exceedsDepth()` counts brackets outside strings only, escapes included", () => {
  assert.equal(exceedsDepth("[[[]]]", 3), false);
  assert.equal(exceedsDepth("[[[[]]]]", 3), true);
  assert.equal(exceedsDepth('["\\"[[[[", 1]', 1), false);
  assert.equal(exceedsDepth('{"a\\\\":[[1]]}', 2), true);
});
