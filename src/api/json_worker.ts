/**
 * Worker entry of the `jsonBody` middleware (`app.ts`): {@linkcode prepareJsonBody} off the
 * event loop. Its job (`askWorker`'s request): `{text, maxDepth, source}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { answerWith, type WorkerRequest } from "../data/data_worker.ts";
import { prepareJsonBody } from "./json_body.ts";

self.onmessage = (
  event: MessageEvent<WorkerRequest<{ text: string; maxDepth: number; source: string }>>,
) =>
  answerWith(event.data, ({ text, maxDepth, source }) => ({
    value: prepareJsonBody(text, maxDepth, source),
  }));
