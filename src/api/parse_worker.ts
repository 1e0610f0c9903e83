/**
 * Worker entry for {@linkcode readDataInputAsync}: runs {@linkcode readDataInput} off the event
 * loop and posts the dataset back packed into a few arrays (`packed_dataset.ts`) with its CSV.
 * Message in: `{input, source}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { answerWith } from "../data/data_worker.ts";
import { packDataset, packedBuffers } from "../data/packed_dataset.ts";
import { type DataInput, readDataInput } from "./data_input.ts";

self.onmessage = (event: MessageEvent<{ input: DataInput; source: string }>) =>
  answerWith(() => {
    const { data, csv } = readDataInput(event.data.input, event.data.source);
    const packed = packDataset(data);
    return { value: { packed, csv }, transfer: packedBuffers(packed) };
  });
