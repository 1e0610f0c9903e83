/**
 * Worker entry for {@linkcode runStudy}: imports the study module it is told of, runs the
 * replicates it is sent one at a time, and posts each record back.
 *
 * Messages in: {@linkcode ReplicateJob}. Messages out: {@linkcode WorkerMessage}.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import type { Study } from "./study.ts";

/** One replicate to run: the study module's URL (its export `study`), r, the seed, settings. */
export interface ReplicateJob<S> {
  readonly module: string;
  readonly r: number;
  readonly seed: number;
  readonly settings: S;
}

/** A stage reached, a finished record, or an error, each naming its replicate. */
export type WorkerMessage<R> =
  | { readonly type: "stage"; readonly r: number; readonly stage: string }
  | { readonly type: "record"; readonly r: number; readonly record: R }
  | { readonly type: "error"; readonly r: number; readonly message: string };

self.onmessage = async (event: MessageEvent<ReplicateJob<unknown>>) => {
  const { module, r, seed, settings } = event.data;
  try {
    const { study } = await import(module) as { study: Study<unknown, unknown, unknown> };
    const record = await study.replicate(
      r,
      seed,
      settings,
      (stage) => self.postMessage({ type: "stage", r, stage }),
    );
    self.postMessage({ type: "record", r, record });
  } catch (error) {
    self.postMessage({ type: "error", r, message: (error as Error).message });
  }
};
