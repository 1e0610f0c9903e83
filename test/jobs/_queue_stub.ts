/**
 * What the fake job queues of the `runLeasedJob` tests share: the calls they record, the
 * methods they leave inert, and the release their handlers return.
 *
 * @module
 */
import type { JobOutput } from "../../src/jobs/store.ts";

/** A release with nothing in it: these tests look at the queue, not at what a job wrote. */
export const RELEASE = { report: {}, diagnostics: null, datasets: [] } as unknown as JobOutput;

/**
 * The inert part of a fake `JobQueue` (enqueue does nothing, no lease is stale) and the list of
 * calls a subclass records.
 */
export class QueueStub {
  readonly calls: string[] = [];
  enqueue(): Promise<void> {
    return Promise.resolve();
  }
  recoverStale(): Promise<string[]> {
    return Promise.resolve([]);
  }
}
