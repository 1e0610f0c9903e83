/**
 * BullMQ and ioredis, loaded from `scale/node_modules` (installed by `npm install --prefix scale --no-save`;
 * Deno's own npm resolver cannot install bullmq, see docs/decisions.md "Redis backend"). They
 * are CommonJS packages loaded through `createRequire` on first use, so a process that never
 * names a Redis URL needs neither the packages nor a Redis server. The interfaces below are the
 * small part of their APIs that `src/scale/` uses.
 *
 * @module
 */
import { createRequire } from "node:module";

/** A Redis connection (ioredis `Redis`): the commands `src/scale/` uses. */
export interface RedisClient {
  hsetnx(key: string, field: string, value: string): Promise<number>;
  hset(key: string, field: string, value: string): Promise<number>;
  hgetall(key: string): Promise<Record<string, string>>;
  hlen(key: string): Promise<number>;
  expire(key: string, seconds: number): Promise<number>;
  set(key: string, value: string, mode: "PX", ms: number): Promise<string | null>;
  del(...keys: string[]): Promise<number>;
  scan(
    cursor: string,
    match: "MATCH",
    pattern: string,
    count: "COUNT",
    size: number,
  ): Promise<[string, string[]]>;
  ping(): Promise<string>;
  quit(): Promise<string>;
}

/** Options of a BullMQ job as added. */
export interface BullJobOptions {
  /** The job id: adding an id that is already in the queue adds nothing. */
  readonly jobId: string;
  readonly removeOnComplete: boolean;
  readonly removeOnFail: { readonly age: number };
}

/** A BullMQ job fetched by a worker (`Job`). */
export interface BullJob {
  readonly id?: string;
  readonly name: string;
  readonly data: unknown;
  /** Extends the job's lock held under `token`; 0 when it is no longer held. */
  extendLock(token: string, duration: number): Promise<number>;
  moveToCompleted(value: unknown, token: string, fetchNext?: boolean): Promise<unknown>;
  moveToFailed(error: Error, token: string, fetchNext?: boolean): Promise<unknown>;
}

/** A BullMQ queue handle (`Queue`): adds jobs. */
export interface BullQueue {
  add(name: string, data: unknown, options: BullJobOptions): Promise<unknown>;
  close(): Promise<void>;
}

/** A BullMQ worker without a processor (`Worker`), fetching jobs by hand. */
export interface BullWorker {
  /** The next waiting job, locked under `token` for the lock duration, or undefined. */
  getNextJob(token: string, options: { block: boolean }): Promise<BullJob | undefined>;
  /** Starts the stalled-job check: jobs whose lock expired go back to waiting. */
  startStalledCheckTimer(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): void;
  close(force?: boolean): Promise<void>;
}

/** Options of a hand-fetching worker (BullMQ `WorkerOptions`). */
export interface BullWorkerOptions {
  /** Lock (lease) length in milliseconds. */
  readonly lockDuration: number;
  /** How often, in milliseconds, expired locks are looked for. */
  readonly stalledInterval: number;
  /** Times a job may stall before BullMQ fails it. */
  readonly maxStalledCount: number;
}

interface Modules {
  Redis: new (url: string, options: Record<string, unknown>) => RedisClient;
  Queue: new (name: string, options: { connection: RedisClient }) => BullQueue;
  Worker: new (
    name: string,
    processor: null,
    options: BullWorkerOptions & { connection: RedisClient; autorun: boolean },
  ) => BullWorker;
}

let modules: Modules | null = null;

function load(): Modules {
  if (modules !== null) return modules;
  const require = createRequire(new URL("../../scale/package.json", import.meta.url));
  try {
    const { Queue, Worker } = require("bullmq");
    const { Redis } = require("ioredis");
    modules = { Queue, Worker, Redis };
  } catch (error) {
    throw new Error(
      "the Redis backend needs its npm packages: run `npm install --prefix scale --no-save` " +
        `(${(error as Error).message.split("\n")[0]})`,
    );
  }
  return modules;
}

/**
 * Checks a queue URL: `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS).
 *
 * @param url The URL (PPSYNTH_QUEUE, `--queue`).
 * @returns The URL unchanged; throws a RangeError naming it otherwise.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkQueueUrl } from "./redis.ts";
 * assert.equal(checkQueueUrl("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
 * assert.throws(() => checkQueueUrl("http://x"), RangeError);
 * ```
 */
export function checkQueueUrl(url: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // reported below
  }
  if (parsed === null || !["redis:", "rediss:"].includes(parsed.protocol) || !parsed.hostname) {
    throw new RangeError(`Invalid queue: must be a redis:// or rediss:// URL: queue=${url}`);
  }
  return url;
}

/**
 * Opens a Redis connection that retries commands until Redis answers again (BullMQ's
 * requirement for workers: `maxRetriesPerRequest: null`).
 *
 * @param url A redis:// URL.
 */
export function connectRedis(url: string): RedisClient {
  const { Redis } = load();
  return new Redis(checkQueueUrl(url), { maxRetriesPerRequest: null, lazyConnect: false });
}

/**
 * A BullMQ queue handle on its own connection; `close` closes both.
 *
 * @param url A redis:// URL.
 * @param name The queue's name.
 */
export function openBullQueue(url: string, name: string): BullQueue {
  const { Queue } = load();
  const connection = connectRedis(url);
  const queue = new Queue(name, { connection });
  return {
    add: (jobName, data, options) => queue.add(jobName, data, options),
    async close() {
      await queue.close();
      await connection.quit();
    },
  };
}

/**
 * A BullMQ worker that fetches jobs by hand (no processor), on its own connection; `close`
 * closes both.
 *
 * @param url A redis:// URL.
 * @param name The queue's name.
 * @param options Lock length and the stalled-job check.
 */
export function openBullWorker(url: string, name: string, options: BullWorkerOptions): BullWorker {
  const { Worker } = load();
  const connection = connectRedis(url);
  const worker = new Worker(name, null, { ...options, connection, autorun: false });
  return {
    getNextJob: (token, fetch) => worker.getNextJob(token, fetch),
    startStalledCheckTimer: () => worker.startStalledCheckTimer(),
    on: (event, listener) => worker.on(event, listener),
    async close(force) {
      await worker.close(force);
      await connection.quit();
    },
  };
}
