/**
 * Worker entry for {@linkcode readDataInputAsync}: runs {@linkcode readDataInput} off the event
 * loop and posts the dataset back packed into a few arrays (see `packDataset`), since cloning a
 * million small columns one by one would block the receiving thread as long as the parse.
 *
 * Message in: `{input, source}`. Message out: `{type: "data", packed, csv}` (buffers
 * transferred), `{type: "data_error", file, row?, column?, message}` or `{type: "error", message}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { DataError } from "../data/data_error.ts";
import { type DataInput, packDataset, readDataInput } from "./data_input.ts";

self.onmessage = (event: MessageEvent<{ input: DataInput; source: string }>) => {
  const { input, source } = event.data;
  try {
    const { data, csv } = readDataInput(input, source);
    const packed = packDataset(data);
    self.postMessage({ type: "data", packed, csv }, [
      packed.values.buffer as ArrayBuffer,
      packed.codes.buffer as ArrayBuffer,
      packed.levelEnds.buffer as ArrayBuffer,
      packed.numeric.buffer as ArrayBuffer,
    ]);
  } catch (error) {
    if (error instanceof DataError) {
      const { file, row, column, message } = error;
      self.postMessage({ type: "data_error", file, row, column, message });
    } else {
      self.postMessage({ type: "error", message: (error as Error).message });
    }
  }
};
