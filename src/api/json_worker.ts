/**
 * Worker entry of the `jsonBody` middleware (`app.ts`): {@linkcode prepareJsonBody} off the
 * event loop. Message in: `{text, maxDepth, source}`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { answerWith } from "../data/data_worker.ts";
import { prepareJsonBody } from "./json_body.ts";

self.onmessage = (event: MessageEvent<{ text: string; maxDepth: number; source: string }>) =>
  answerWith(() => ({
    value: prepareJsonBody(event.data.text, event.data.maxDepth, event.data.source),
  }));
