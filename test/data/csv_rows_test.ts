/**
 * `parseCsvRows()` against its oracle, `csv-parse` 7.0.3 with the options `parseCsv` used
 * (`{ bom: true, skip_empty_lines: true, trim: true }`): the same rows, or the same kind of error
 * at the same line (csv-parse's `lines`), on seeded random texts and on named edge cases.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { CsvRowsError, parseCsvRows } from "../../src/data/csv_rows.ts";
import { Rng, sampleIndex } from "../../src/random/mod.ts";

/** What a parser made of a text: its rows, or the kind and line of its error. */
type Outcome = { rows: string[][] } | { problem: string; line: number | undefined };

/** csv-parse's reading; an inconsistent record length is `ragged`, any other error `malformed`. */
function oracle(text: string): Outcome {
  try {
    return { rows: parse(text, { bom: true, skip_empty_lines: true, trim: true }) as string[][] };
  } catch (error) {
    const { code, lines } = error as { code?: string; lines?: number };
    return {
      problem: code === "CSV_RECORD_INCONSISTENT_FIELDS_LENGTH" ? "ragged" : "malformed",
      line: lines,
    };
  }
}

function ours(text: string): Outcome {
  try {
    return { rows: parseCsvRows(text) };
  } catch (error) {
    if (!(error instanceof CsvRowsError)) throw error;
    return { problem: error.problem, line: error.line };
  }
}

/** Pieces of CSV text, each an edge of the grammar. */
const PIECES = [
  "a",
  "bc",
  "1",
  "-2.5",
  "é",
  "\u{1F600}",
  "\ud800", // text, non-BMP, a lone surrogate
  '"',
  '""',
  ",",
  ",",
  "\n",
  "\n",
  "\r",
  "\r\n",
  "\r\n",
  " ",
  "  ",
  "\t",
  "\v",
  "\f",
  "\0",
  "\ufeff",
  "\u00a0",
  "\u2028",
  "\u3000",
  "\u1680",
  "\u205f", // non-ASCII ws (and the BOM)
];
const WORDS = ["a", "x y", "1", "", " ", "é\u00a0", "\u{1F600}"];
const EOLS = ["\n", "\r\n", "\r"];
const SPACES = ["", "", " ", "\t", " \t ", "\u00a0", "\r"];

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[sampleIndex(rng, items.length)];
}

/** A random field: unquoted, quoted (with "" and embedded separators) or empty, padded with ws. */
function field(rng: Rng): string {
  const pad = () => pick(rng, SPACES);
  switch (sampleIndex(rng, 4)) {
    case 0:
      return pad() + pick(rng, WORDS) + pad();
    case 1: {
      const inner = Array.from(
        { length: sampleIndex(rng, 4) },
        () => pick(rng, [...WORDS, '""', ",", "\n", "\r\n", "\r"]),
      );
      return `${pad()}"${inner.join("")}"${pad()}`;
    }
    case 2:
      return pad();
    default:
      return "";
  }
}

/** A random table: rows of mostly equal width, EOLs mostly one kind, blank lines, a BOM. */
function table(rng: Rng): string {
  const width = 1 + sampleIndex(rng, 4);
  const eol = pick(rng, EOLS);
  let text = sampleIndex(rng, 5) === 0 ? "\ufeff" : "";
  const rows = 1 + sampleIndex(rng, 5);
  for (let r = 0; r < rows; r++) {
    const cells = width + (sampleIndex(rng, 8) === 0 ? pick(rng, [-1, 1]) : 0);
    text += Array.from({ length: Math.max(cells, 1) }, () => field(rng)).join(",");
    if (sampleIndex(rng, 6) === 0) text += pick(rng, ["", " ", "\t ", "\r", "\u3000"]) + eol;
    text += sampleIndex(rng, 8) === 0 ? pick(rng, EOLS) : eol;
  }
  return sampleIndex(rng, 3) === 0 ? text.slice(0, text.length - sampleIndex(rng, 3)) : text;
}

/** A table with a piece inserted or deleted at random (a stray quote, text after a quote …). */
function damaged(rng: Rng): string {
  let text = table(rng);
  for (let k = sampleIndex(rng, 3); k >= 0; k--) {
    const at = sampleIndex(rng, text.length + 1);
    text = sampleIndex(rng, 3) === 0
      ? text.slice(0, at) + text.slice(at + 1)
      : text.slice(0, at) + pick(rng, PIECES) + text.slice(at);
  }
  return text;
}

/** A string of random pieces. */
function soup(rng: Rng): string {
  return Array.from({ length: sampleIndex(rng, 24) }, () => pick(rng, PIECES)).join("");
}

/** The random texts of the parity test, `count` of each generator. */
function randomTexts(seed: number, count: number): string[] {
  const rng = new Rng(seed);
  return [table, damaged, soup].flatMap((generate) =>
    Array.from({ length: count }, () => generate(rng))
  );
}

Deno.test("`parseCsvRows()` reads 9000 random texts as csv-parse does: the same rows or the same error at the same line", () => {
  const seen = { rows: 0, ragged: 0, malformed: 0 };
  for (const text of randomTexts(20261129, 3000)) {
    const expected = oracle(text);
    assert.deepEqual(ours(text), expected, `text ${JSON.stringify(text)}`);
    seen["rows" in expected ? "rows" : expected.problem as "ragged" | "malformed"]++;
  }
  // Each outcome is exercised many times, so a generator that drifts cannot pass by accident.
  for (const [outcome, count] of Object.entries(seen)) {
    assert.ok(count >= 500, `${outcome}: ${count}`);
  }
});

/** Named cases: the rows (or error) csv-parse gives, checked against both parsers. */
const CASES: [string, string, Outcome][] = [
  ["a BOM is dropped", "\ufeffa,b\n1,2", { rows: [["a", "b"], ["1", "2"]] }],
  ["only the first BOM: a second is ws", "\ufeff\ufeffa", { rows: [["a"]] }],
  ["\\r\\n, \\n and \\r are each an EOL", "a\r\nb\r\n", { rows: [["a"], ["b"]] }],
  ["old Mac \\r", "a,b\r1,2\r", { rows: [["a", "b"], ["1", "2"]] }],
  ["after a \\n EOL a \\r is trailing ws", "a,b\r\n1,2\n", { rows: [["a", "b"], ["1", "2"]] }],
  ["after a \\r\\n EOL a lone \\n is inside a cell", "a\r\nb\nc\r\n", { rows: [["a"], ["b\nc"]] }],
  ["after a \\r EOL a \\n is leading ws", "a\rb\n\rc", { rows: [["a"], ["b"], ["c"]] }],
  ["the first EOL outside quotes decides", '"x\ny"\r\nz', { rows: [["x\ny"], ["z"]] }],
  ['quoted: "" is a quote, , and EOLs are text', '"a""b,\r\nc"', { rows: [['a"b,\r\nc']] }],
  ["unquoted and quoted fields are trimmed", ' a\t, "b " \n', { rows: [["a", "b "]] }],
  ["trim takes all of JavaScript's ws", "\u3000a\u00a0,\u2028b\ufeff", { rows: [["a", "b"]] }],
  ["blank and ws-only lines are skipped", "a\n\n \t\n\r\nb\n", { rows: [["a"], ["b"]] }],
  ["a line of one empty quoted field is a record", 'a\n""\n', { rows: [["a"], [""]] }],
  ["a line of commas is a record of empty cells", "a,b\n , \n", { rows: [["a", "b"], ["", ""]] }],
  ["after an empty quoted field a quote opens it again", 'x,y\n"" "\t\n" ,1', {
    rows: [["x", "y"], ["", "1"]],
  }],
  ["… but keeps only ASCII ws in it", 'a\n"" "b"', { problem: "malformed", line: 2 }],
  ["non-ASCII ws after an empty quoted field is skipped", '""\u00a0,b', { rows: [["", "b"]] }],
  ["non-ASCII ws after a quoted text is an error", '"a"\u00a0,b', {
    problem: "malformed",
    line: 1,
  }],
  ["a quote inside an unquoted field", 'a\nb"c\n', { problem: "malformed", line: 2 }],
  ["text right after a closing quote", 'a\n"b"c\n', { problem: "malformed", line: 2 }],
  ["text after a closing quote and ws", 'a\n"b" \r c\n', { problem: "malformed", line: 3 }],
  ["a second quoted text in one field", '"a" "b"', { problem: "malformed", line: 1 }],
  ["an unclosed quote: the line before a last EOL", 'a\n"b\n\n', { problem: "malformed", line: 3 }],
  ["quoted \\r\\n counts two lines", 'a\n"\r\n"\nb"', { problem: "malformed", line: 5 }],
  ["an \\r\\n EOL counts one line", "a\r\n\r\nb,c\r\n", { problem: "ragged", line: 3 }],
  ["a ragged last record without EOL", "a,b\n1,2\n3", { problem: "ragged", line: 3 }],
  ["a ragged record ending in ws \\r", "a,b\n1,2,3\r", { problem: "ragged", line: 2 }],
  ["a lone surrogate reads as U+FFFD", "a\ud800", { rows: [["a\ufffd"]] }],
  ["a NUL after a closing quote", '"a"\0', { problem: "malformed", line: 1 }],
  ["ws only: no rows", " \r\n\t", { rows: [] }],
];

for (const [name, text, expected] of CASES) {
  Deno.test(`\`parseCsvRows()\`: ${name}`, () => {
    assert.deepEqual(oracle(text), expected, "csv-parse");
    assert.deepEqual(ours(text), expected, "parseCsvRows");
  });
}
