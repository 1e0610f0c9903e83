/**
 * Worker entry for {@linkcode readDataInputAsync}: runs {@linkcode readDataInput} off the event
 * loop and posts the dataset back packed into a few arrays (`packed_dataset.ts`) with its CSV.
 * Its job (`askWorker`'s request): `{input, source}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { answerWith, type WorkerRequest } from "../data/data_worker.ts";
import { packDataset, packedBuffers } from "../data/packed_dataset.ts";
import { type DataInput, readDataInput } from "./data_input.ts";

self.onmessage = (event: MessageEvent<WorkerRequest<{ input: DataInput; source: string }>>) =>
  answerWith(event.data, ({ input, source }) => {
    const { data, csv } = readDataInput(input, source);
    const packed = packDataset(data);
    return { value: { packed, csv }, transfer: packedBuffers(packed) };
  });
