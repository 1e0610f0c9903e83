/**
 * Worker entry of {@linkcode parseCsvAsync}: `parseCsv` off the event loop, its dataset posted
 * back packed (`packed_dataset.ts`). Its job (`askWorker`'s request): `{text, source}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { parseCsv } from "./csv.ts";
import { answerWith, type WorkerRequest } from "./data_worker.ts";
import { packDataset, packedBuffers } from "./packed_dataset.ts";

self.onmessage = (event: MessageEvent<WorkerRequest<{ text: string; source: string }>>) =>
  answerWith(event.data, ({ text, source }) => {
    const packed = packDataset(parseCsv(text, source));
    return { value: packed, transfer: packedBuffers(packed) };
  });
