/**
 * The producer side of the Redis backend: adds jobs to the CPU or the GPU-preferring BullMQ
 * queue under deterministic job ids, so that adding a job twice queues it once.
 *
 * @module
 */
import { type BullQueue, openBullQueue } from "./redis.ts";
import { CPU_QUEUE, FAILED_TTL_S, GPU_QUEUE, type ScaleJobData } from "./scale_jobs.ts";

/** Both queues of one Redis server. */
export class ScaleQueues {
  readonly #cpu: BullQueue;
  readonly #gpu: BullQueue;

  /** @param url The Redis URL (PPSYNTH_QUEUE). */
  constructor(url: string) {
    this.#cpu = openBullQueue(url, CPU_QUEUE);
    this.#gpu = openBullQueue(url, GPU_QUEUE);
  }

  /**
   * Adds a job unless one with the same id is waiting, running or kept as failed.
   *
   * @param data The job's payload.
   * @param key Its BullMQ job id (`apiJobKey`, `replicateJobKey`).
   * @param preferGpu Put it on the GPU-preferring queue.
   */
  async add(data: ScaleJobData, key: string, preferGpu = false): Promise<void> {
    await (preferGpu ? this.#gpu : this.#cpu).add(data.kind, data, {
      jobId: key,
      removeOnComplete: true,
      removeOnFail: { age: FAILED_TTL_S },
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.#cpu.close(), this.#gpu.close()]);
  }
}
