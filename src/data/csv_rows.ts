/**
 * CSV text → rows of cells in one linear pass: RFC 4180 read exactly as `csv-parse` 7.0.3 reads
 * it with `{ bom: true, skip_empty_lines: true, trim: true }` (that package is the oracle of
 * `test/data/csv_rows_test.ts`). Grammar, with ws = the white space of JavaScript's `trim()`
 * (which includes \r and \n):
 *
 *     file     = *(record EOL) [record]            — a BOM (U+FEFF) is ws, so trim drops it
 *     EOL      = the first of \r\n, \n, \r met outside quotes; the other two are then ws
 *     record   = field *("," field)     — one empty unquoted field (a blank line) is skipped
 *     field    = *ws (quoted / unquoted)
 *     unquoted = a char other than ws , " EOL, then any but , " EOL; trailing ws trimmed
 *     quoted   = DQUOTE *(char / DQUOTE DQUOTE) DQUOTE, then ws until , or EOL or the end
 *
 * with csv-parse's quirks after a closing quote (it reads UTF-8 bytes one at a time there): non-
 * ASCII ws is an error unless the quoted text is empty, and after an empty quoted text a quote
 * opens it again, holding only ASCII ws, dropped (`"" " "` reads as empty, `"" "a"` is an error).
 * Lone surrogates read as U+FFFD, as csv-parse decodes the UTF-8 of the text. Every record must
 * have as many cells as the first.
 *
 * @module
 */

const LF = 10;
const CR = 13;
const QUOTE = 34;
const COMMA = 44;
/** The EOL \r\n, as a code no single UTF-16 unit has. */
const CRLF = -1;

/** Why the text is not a table of CSV rows. */
export type CsvRowsProblem = "malformed" | "ragged";

/**
 * A CSV text that does not parse: a stray, unclosed or misplaced quote (`malformed`), or a record
 * with more or fewer cells than the first (`ragged`), at csv-parse's `lines`: 1 + the \r and \n
 * before the error, an \r\n EOL counting once.
 */
export class CsvRowsError extends Error {
  /** What is wrong. */
  readonly problem: CsvRowsProblem;
  /** The line of the text where it was found. */
  readonly line: number;
  /** @param problem What is wrong. @param line Where it was found. */
  constructor(problem: CsvRowsProblem, line: number) {
    super(`Cannot read the text as CSV: ${problem} record at line ${line}`);
    this.name = "CsvRowsError";
    this.problem = problem;
    this.line = line;
  }
}

/**
 * Whether a UTF-16 unit is white space for `String.prototype.trim()` (ECMA-262 WhiteSpace and
 * LineTerminator).
 */
function isWhiteSpace(c: number): boolean {
  if (c < 0x80) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 ||
    c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Whether a quote before `i` may close there: the end, a comma or ws follows (a `""` escape is
 * handled before).
 */
function closes(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return i === text.length || c === COMMA || isWhiteSpace(c);
}

/** The number of \r and \n units in `text` before `end`. */
function newlinesBefore(text: string, end: number): number {
  let count = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR) count++;
  }
  return count;
}

/**
 * Parses CSV text into rows of trimmed cells (see the module doc for the grammar).
 *
 * @param input The whole file.
 * @returns Its records, the header first; throws {@linkcode CsvRowsError}.
 *
 * @example Quoted and unquoted fields are trimmed, blank lines skipped
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseCsvRows } from "./csv_rows.ts";
 * assert.deepEqual(parseCsvRows('\ufeffa, b\r\n\r\n "x,""y""" ,2\r\n'), [["a", "b"], ['x,"y"', "2"]]);
 * ```
 */
export function parseCsvRows(input: string): string[][] {
  // A BOM needs no step of its own: U+FEFF is ws, and leading ws of the first field.
  const text = input.isWellFormed() ? input : input.toWellFormed();
  const n = text.length;
  const rows: string[][] = [];
  let record: string[] = [];
  let width = -1;
  let eol = 0;
  let crlfEols = 0;

  /**
   * The length of the EOL at `i`, whose unit `c` is \r or \n (0 if it is ws); the first one met
   * fixes the EOL.
   */
  const eolLength = (i: number, c: number): number => {
    const crlf = c === CR && text.charCodeAt(i + 1) === LF;
    if (eol === 0) eol = crlf ? CRLF : c;
    return eol === CRLF ? (crlf ? 2 : 0) : c === eol ? 1 : 0;
  };
  /**
   * csv-parse's line at `i`, or at the end of the text (where a last \r or \n is not yet
   * counted).
   */
  const lineAt = (i: number): number => {
    const pending = i === n && n > 0 &&
      (text.charCodeAt(n - 1) === LF || text.charCodeAt(n - 1) === CR);
    return 1 + newlinesBefore(text, i) - crlfEols - (pending ? 1 : 0);
  };
  /** Ends the record at `i` (an EOL or the end of the text). */
  const endRecord = (i: number): void => {
    if (width < 0) width = record.length;
    else if (record.length !== width) throw new CsvRowsError("ragged", lineAt(i));
    rows.push(record);
    record = [];
  };

  let i = 0;
  fields: while (true) {
    // Leading ws of a field; a comma, an EOL or the end here ends an empty field.
    let c = 0;
    for (;; i++) {
      if (i === n) {
        if (record.length > 0) {
          record.push("");
          endRecord(n);
        }
        return rows;
      }
      c = text.charCodeAt(i);
      if (c === COMMA) {
        record.push("");
        i++;
        continue fields;
      }
      if (c === LF || c === CR) {
        const length = eolLength(i, c);
        if (length === 0) continue;
        if (record.length > 0) {
          record.push("");
          endRecord(i);
        }
        if (length === 2) crlfEols++;
        i += length;
        continue fields;
      }
      if (c === QUOTE || !isWhiteSpace(c)) break;
    }
    if (c === QUOTE) {
      let value = "";
      let start = i + 1;
      let quote = text.indexOf('"', start);
      for (; quote >= 0 && text.charCodeAt(quote + 1) === QUOTE; quote = text.indexOf('"', start)) {
        value += text.slice(start, quote + 1);
        start = quote + 2;
      }
      if (quote < 0) throw new CsvRowsError("malformed", lineAt(n));
      value += text.slice(start, quote);
      // After a closing quote: ws until a comma, an EOL or the end. csv-parse skips that ws byte
      // by byte, and the bytes of a non-ASCII ws are not ws, unless the field is still empty.
      for (i = quote + 1; i < n; i++) {
        if (i === quote + 1 && !closes(text, i)) throw new CsvRowsError("malformed", lineAt(quote));
        c = text.charCodeAt(i);
        if (c === COMMA || ((c === LF || c === CR) && eolLength(i, c) > 0)) break;
        if (c === QUOTE && value === "") {
          // csv-parse opens an empty field's quote again, but keeps only ASCII ws in it, dropped.
          for (i++; text.charCodeAt(i) !== QUOTE; i++) {
            if (i === n) throw new CsvRowsError("malformed", lineAt(n));
            const d = text.charCodeAt(i);
            if (d >= 0x80 || !isWhiteSpace(d)) throw new CsvRowsError("malformed", lineAt(i));
          }
          quote = i;
          continue;
        }
        if (!isWhiteSpace(c) || (c >= 0x80 && value !== "")) {
          throw new CsvRowsError("malformed", lineAt(i));
        }
      }
      record.push(value);
    } else {
      const start = i;
      for (i++; i < n; i++) {
        c = text.charCodeAt(i);
        if (c === COMMA) break;
        if (c === QUOTE) throw new CsvRowsError("malformed", lineAt(i));
        if ((c === LF || c === CR) && eolLength(i, c) > 0) break;
      }
      let end = i;
      while (isWhiteSpace(text.charCodeAt(end - 1))) end--;
      record.push(text.slice(start, end));
    }
    // The field ends at a comma, an EOL or the end of the text.
    if (i === n) {
      endRecord(n);
      return rows;
    }
    if (text.charCodeAt(i) === COMMA) {
      i++;
      continue;
    }
    endRecord(i);
    if (eol === CRLF) {
      crlfEols++;
      i += 2;
    } else i++;
  }
}
