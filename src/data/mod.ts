/**
 * Data input and output: CSV files, the columnar dataset, model designs, atomic writes.
 *
 * @module
 */
export * from "./data_error.ts";
export * from "./dataset.ts";
export * from "./csv.ts";
export * from "./design.ts";
export * from "./write_files.ts";
