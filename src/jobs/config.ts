/**
 * The service's settings, read from the environment: `PORT` (default 8000), `PPSYNTH_HOST`
 * (default 0.0.0.0), `PPSYNTH_STORE_URL` (a postgres:// URL: the store on PostgreSQL) or else
 * `PPSYNTH_DATA_DIR` (default ./data, where the embedded store lives), and the limits below.
 *
 * @module
 */
import { z } from "zod";
import { isStoreUrl } from "./open_store.ts";

const integer = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

/** The settings schema: one field per environment variable. */
export const ApiConfig = z.object({
  port: integer(0, 65535, 8000),
  hostname: z.string().min(1).default("0.0.0.0"),
  dataDir: z.string().min(1).default("./data"),
  /** The store on PostgreSQL (a postgres:// URL); unset: the embedded store in `dataDir`. */
  storeUrl: z.string().refine(isStoreUrl, "must be a postgres:// or postgresql:// URL").optional(),
  /** Concurrent synthesis jobs N = min(cores, workers). */
  workers: integer(1, 1024, navigator.hardwareConcurrency),
  /** Largest request body in bytes (chunked bodies included). */
  maxBodyBytes: integer(1024, 1 << 30, 16 * 1024 * 1024),
  /** Deepest nesting of arrays and objects in a JSON body, checked before it is parsed. */
  maxJsonDepth: integer(4, 10_000, 32),
  /** Request timeout in milliseconds (long work is a job, never a request). */
  requestTimeoutMs: integer(100, 600_000, 30_000),
  /** Job lease length in milliseconds (renewed every third of it while a job runs). */
  leaseMs: integer(300, 3_600_000, 30_000),
  /** Times a job may be claimed before it is failed instead of retried. */
  maxAttempts: integer(1, 100, 3),
  /** Largest S·n of a synchronous Lipschitz request. */
  lipschitzMaxCells: integer(1, 1e9, 2_000_000),
  /** Most cells of a table, margins included: (A + 1)·(B + 1) for A and B levels. */
  maxTableCells: integer(1, 1e9, 1_000_000),
  /** Laplace tables of more cells run as jobs (202), not synchronously. */
  syncTableCells: integer(1, 1e9, 1000),
  /** Idle workers poll this often (a submission wakes them at once). */
  pollMs: integer(10, 60_000, 1000),
  /** At most one progress write per job per this many milliseconds. */
  progressIntervalMs: integer(0, 60_000, 500),
  /** Most sampler iterations (chains·warmup + draws) of one request (`work_limits.ts`). */
  maxIterations: integer(1, 1e10, 400_000),
  /** A job running longer than this (ms) is stopped and failed with `time_limit`. */
  jobTimeLimitMs: integer(100, 604_800_000, 1_800_000),
  /**
   * An analyst sees a job on a registered dataset finish no sooner than this (ms) after its
   * acceptance, scaled by the request's sampler work (`job_view.ts`); 0: as soon as it finishes.
   */
  releaseDelayMs: integer(0, 604_800_000, 30_000),
});

/** Validated settings. */
export type ApiConfig = z.infer<typeof ApiConfig>;

const VARIABLES: Record<keyof ApiConfig, string> = {
  port: "PORT",
  hostname: "PPSYNTH_HOST",
  dataDir: "PPSYNTH_DATA_DIR",
  storeUrl: "PPSYNTH_STORE_URL",
  workers: "PPSYNTH_WORKERS",
  maxBodyBytes: "PPSYNTH_MAX_BODY_BYTES",
  maxJsonDepth: "PPSYNTH_MAX_JSON_DEPTH",
  requestTimeoutMs: "PPSYNTH_REQUEST_TIMEOUT_MS",
  leaseMs: "PPSYNTH_LEASE_MS",
  maxAttempts: "PPSYNTH_MAX_ATTEMPTS",
  lipschitzMaxCells: "PPSYNTH_LIPSCHITZ_MAX_CELLS",
  maxTableCells: "PPSYNTH_MAX_TABLE_CELLS",
  syncTableCells: "PPSYNTH_SYNC_TABLE_CELLS",
  pollMs: "PPSYNTH_POLL_MS",
  progressIntervalMs: "PPSYNTH_PROGRESS_INTERVAL_MS",
  maxIterations: "PPSYNTH_MAX_ITERATIONS",
  jobTimeLimitMs: "PPSYNTH_JOB_TIME_LIMIT_MS",
  releaseDelayMs: "PPSYNTH_RELEASE_DELAY_MS",
};

/**
 * Reads the settings from environment variables (PORT, PPSYNTH_HOST, PPSYNTH_DATA_DIR,
 * PPSYNTH_STORE_URL, PPSYNTH_WORKERS, PPSYNTH_MAX_BODY_BYTES, PPSYNTH_MAX_JSON_DEPTH,
 * PPSYNTH_REQUEST_TIMEOUT_MS, PPSYNTH_LEASE_MS,
 * PPSYNTH_MAX_ATTEMPTS, PPSYNTH_LIPSCHITZ_MAX_CELLS, PPSYNTH_MAX_TABLE_CELLS,
 * PPSYNTH_SYNC_TABLE_CELLS, PPSYNTH_POLL_MS,
 * PPSYNTH_PROGRESS_INTERVAL_MS, PPSYNTH_MAX_ITERATIONS, PPSYNTH_JOB_TIME_LIMIT_MS,
 * PPSYNTH_RELEASE_DELAY_MS); unset ones
 * take their defaults.
 *
 * @param get Reads one variable (`Deno.env.get`).
 * @returns The settings; throws a RangeError naming the variable of a bad value.
 */
export function configFromEnv(get: (name: string) => string | undefined): ApiConfig {
  const raw: Record<string, string> = {};
  for (const [field, variable] of Object.entries(VARIABLES)) {
    const value = get(variable);
    if (value !== undefined && value !== "") raw[field] = value;
  }
  const parsed = ApiConfig.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = VARIABLES[issue.path[0] as keyof ApiConfig];
    throw new RangeError(`Invalid ${variable}: ${issue.message}`);
  }
  return parsed.data;
}
