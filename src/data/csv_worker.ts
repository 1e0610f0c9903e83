/**
 * Worker entry of {@linkcode parseCsvAsync}: `parseCsv` off the event loop, its dataset posted
 * back packed (`packed_dataset.ts`). Message in: `{text, source}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { parseCsv } from "./csv.ts";
import { answerWith } from "./data_worker.ts";
import { packDataset, packedBuffers } from "./packed_dataset.ts";

self.onmessage = (event: MessageEvent<{ text: string; source: string }>) =>
  answerWith(() => {
    const packed = packDataset(parseCsv(event.data.text, event.data.source));
    return { value: packed, transfer: packedBuffers(packed) };
  });
