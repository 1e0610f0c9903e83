/**
 * What travels on the Redis queues: a job carries everything a worker needs. An API job
 * (synthesis or table) names its job id in the shared store, which holds its spec and data
 * reference (the seed is in the spec, or drawn once by the pipeline); a study replicate carries
 * the study's name, r, the study seed and the settings (replicate r derives its own streams from
 * `new Rng(seed).split(r)`, `study_runner.ts`). Results flow back by job id: an API job's
 * release into the store (charged once by the ledger's unique job id), a replicate's JSON record
 * into the run's Redis hash (first writer wins).
 *
 * @module
 */

/** The queue of jobs any worker takes. */
export const CPU_QUEUE = "ppsynth";
/** The queue of GPU-preferring jobs: GPU workers take them first, CPU workers after their own. */
export const GPU_QUEUE = "ppsynth-gpu";

/** A synthesis or table job of the HTTP API, by its id in the store. */
export interface ApiJobData {
  readonly kind: "api";
  readonly jobId: string;
}

/** One replicate of a study run. */
export interface ReplicateJobData {
  readonly kind: "replicate";
  /** The run's id (keys its records). */
  readonly run: string;
  /** The study's name (a key of `STUDIES` in src/studies/registry.ts). */
  readonly study: string;
  readonly r: number;
  readonly seed: number;
  readonly settings: unknown;
}

/** Any job on the queues. */
export type ScaleJobData = ApiJobData | ReplicateJobData;

/**
 * The BullMQ job id of an API job: its store id (so adding it twice adds it once). BullMQ job
 * ids hold no ":" (its key separator), hence the "-".
 */
export function apiJobKey(jobId: string): string {
  return `api-${jobId}`;
}

/** The BullMQ job id of replicate r of a run. */
export function replicateJobKey(run: string, r: number): string {
  return `replicate-${run}-${r}`;
}

/** The Redis hash of a run's records, field r → the record's JSON text. */
export function recordsKey(run: string): string {
  return `ppsynth:study:${run}:records`;
}

/** The Redis hash of a run's failed replicates, field r → the error message. */
export function errorsKey(run: string): string {
  return `ppsynth:study:${run}:errors`;
}

/** The key a live worker refreshes (its backend and concurrency, as JSON). */
export function workerKey(id: string): string {
  return `ppsynth:worker:${id}`;
}

/** The pattern of {@linkcode workerKey}. */
export const WORKER_PATTERN = "ppsynth:worker:*";

/** Seconds a run's records are kept in Redis when no coordinator collects them. */
export const RECORD_TTL_S = 7 * 24 * 3600;

/** Seconds a finished job's failure is kept in BullMQ. */
export const FAILED_TTL_S = 24 * 3600;
