/**
 * The one replicate scheduler of the studies: replicates r = 0…R−1 of a {@linkcode Study} are
 * handed to a {@linkcode ReplicateTransport} (this thread, worker threads, or the Redis queue's
 * workers in `src/scale/study_fanout.ts`), and their records, in r order, are aggregated into
 * the {@linkcode StudyResult}. A record is a pure function of (r, seed, settings), so the result
 * is the same, byte for byte, whatever the transport and however many workers it uses.
 *
 * @module
 */
import type { Study, StudyResult } from "./study.ts";
import type { ReplicateJob, WorkerMessage } from "./study_worker.ts";
import { checkInteger } from "../random/arguments.ts";
import { endWorker } from "../data/worker_threads.ts";

/** The flags that fix a study's result: the seed, R and the settings. */
export interface ReplicateRun<S> {
  readonly seed: number;
  readonly replicates: number;
  readonly settings: S;
}

/** Told when replicate r (0-based) reaches a stage, and when it is done (stage "done"). */
export type OnStage = (r: number, stage: string) => void;

/**
 * Where replicates run: runs replicates 0…R−1 of `study` and resolves with their records in r
 * order (rejects on the first failure).
 */
export type ReplicateTransport = <S, R>(
  study: Study<S, R, unknown>,
  run: ReplicateRun<S>,
  onStage: OnStage,
) => Promise<R[]>;

/**
 * Runs R replicates on a transport and aggregates their records in r order.
 *
 * @param study The study.
 * @param run Seed, R and settings.
 * @param transport Where the replicates run.
 * @param onStage Told of each replicate's stages (as far as the transport reports them).
 * @returns The JSON-able result.
 */
export async function scheduleReplicates<S, R, A>(
  study: Study<S, R, A>,
  run: ReplicateRun<S>,
  transport: ReplicateTransport,
  onStage: OnStage = () => {},
): Promise<StudyResult<S, R, A>> {
  checkInteger("seed", run.seed, 0);
  checkInteger("replicates", run.replicates, 1);
  const records = await transport(study, run, onStage);
  return {
    study: study.name,
    seed: run.seed,
    replicates: run.replicates,
    settings: run.settings,
    summary: study.aggregate(records, run.settings),
    records,
  };
}

/**
 * Runs replicates 0…R−1 on `slots` runners side by side, each taking the next r when it is
 * free, and returns the records in r order.
 */
async function drain<R>(
  replicates: number,
  slots: number,
  runOne: (slot: number, r: number) => Promise<R>,
  onStage: OnStage,
): Promise<R[]> {
  const records: R[] = new Array(replicates);
  let next = 0;
  await Promise.all(Array.from({ length: slots }, async (_, slot) => {
    while (next < replicates) {
      const r = next++;
      records[r] = await runOne(slot, r);
      onStage(r, "done");
    }
  }));
  return records;
}

/** The transport that runs every replicate in this thread, one after another. */
export const inThisThread: ReplicateTransport = (study, run, onStage) =>
  drain(
    run.replicates,
    1,
    (_, r) => study.replicate(r, run.seed, run.settings, (stage) => onStage(r, stage)),
    onStage,
  );

/**
 * A worker thread (`study_worker.ts`) running one replicate at a time, started on its first
 * replicate. Used by {@linkcode inWorkerThreads} and by each slot of a Redis worker.
 */
export class ReplicateThread {
  #worker: Worker | null = null;

  /**
   * Runs one replicate.
   *
   * @param job The study module, r, seed and settings.
   * @param onStage Told of the stages the replicate reaches.
   * @returns Its record; rejects with the replicate's error message, or "study thread failed:
   *   …" when the thread itself failed (it is then closed, and the next run starts another).
   */
  run<S, R>(job: ReplicateJob<S>, onStage: (stage: string) => void = () => {}): Promise<R> {
    const worker = this.#worker ??= new Worker(
      new URL("./study_worker.ts", import.meta.url).href,
      { type: "module" },
    );
    return new Promise((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<WorkerMessage<R>>) => {
        const message = event.data;
        if (message.type === "stage") onStage(message.stage);
        else if (message.type === "record") resolve(message.record);
        else reject(new Error(message.message));
      };
      worker.onerror = (event) => {
        event.preventDefault();
        this.close();
        reject(new Error(`study thread failed: ${event.message}`));
      };
      worker.postMessage(job);
    });
  }

  /** Terminates the thread. */
  close(): void {
    if (this.#worker !== null) endWorker(this.#worker);
    this.#worker = null;
  }
}

/**
 * The transport that runs replicates in `workers` worker threads (at most R), each taking the
 * next replicate when it is free.
 *
 * @param workers Threads (a positive integer).
 */
export function inWorkerThreads(workers: number): ReplicateTransport {
  return async <S, R>(study: Study<S, R, unknown>, run: ReplicateRun<S>, onStage: OnStage) => {
    checkInteger("workers", workers, 0);
    const threads = Array.from(
      { length: Math.min(workers, run.replicates) },
      () => new ReplicateThread(),
    );
    try {
      return await drain(
        run.replicates,
        threads.length,
        (slot, r) =>
          threads[slot].run<S, R>(
            { module: study.module, r, seed: run.seed, settings: run.settings },
            (stage) => onStage(r, stage),
          ).catch((error: Error) => {
            throw new Error(`replicate ${r + 1}: ${error.message}`);
          }),
        onStage,
      );
    } finally {
      threads.forEach((thread) => thread.close());
    }
  };
}
