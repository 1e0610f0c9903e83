/**
 * The one error class for bad input data.
 *
 * Messages name the file, the 1-based data row (the header is line 1, so data row r is on
 * line r + 1) and the column, and never echo a cell's value: input data are confidential.
 *
 * @module
 */

/** Where in the input a problem was found. */
export interface DataLocation {
  readonly file: string;
  readonly row?: number;
  readonly column?: string;
}

/** Bad input data: a missing column, a bad cell, an empty file. */
export class DataError extends Error {
  readonly file: string;
  readonly row?: number;
  readonly column?: string;

  /**
   * @param location Where the problem is.
   * @param problem What is wrong, without the offending value.
   */
  constructor(location: DataLocation, problem: string) {
    const where = [
      location.file,
      location.row === undefined ? undefined : `row ${location.row} (line ${location.row + 1})`,
      location.column === undefined ? undefined : `column "${location.column}"`,
    ].filter((part) => part !== undefined).join(", ");
    super(`${where}: ${problem}`);
    this.name = "DataError";
    this.file = location.file;
    this.row = location.row;
    this.column = location.column;
  }
}

/** A `DataError` as a worker posts it: its location and whole message. */
export interface DataErrorMessage extends DataLocation {
  readonly type: "data_error";
  readonly message: string;
}

/**
 * The message a worker posts for a `DataError` (structured clone keeps no class).
 *
 * @param error The error.
 * @returns Its location and whole message.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DataError, dataErrorFrom, dataErrorMessage } from "./data_error.ts";
 * const error = new DataError({ file: "a.csv", row: 2 }, "a missing value");
 * const back = dataErrorFrom(structuredClone(dataErrorMessage(error)));
 * assert.ok(back instanceof DataError);
 * assert.equal(back.message, error.message);
 * ```
 */
export function dataErrorMessage(error: DataError): DataErrorMessage {
  const { file, row, column, message } = error;
  return { type: "data_error", file, row, column, message };
}

/**
 * The `DataError` a worker's message stands for, with the message as posted.
 *
 * @param posted The worker's message.
 * @returns The error, of its class.
 */
export function dataErrorFrom(posted: DataErrorMessage): DataError {
  const error = new DataError(posted, "");
  error.message = posted.message;
  return error;
}

/**
 * Reads a text file; a missing one is a `DataError` ("no such file") naming it.
 *
 * @param path The file.
 * @returns Its text.
 */
export async function readInputText(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new DataError({ file: path }, "no such file");
    throw error;
  }
}
