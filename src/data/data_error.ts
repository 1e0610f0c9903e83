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
