/**
 * What every key sees of a job (a synthesis or a table): its status, when it was created, the
 * public failure, and how it ran (progress, attempts, last update; on a registered dataset only
 * to diagnostics keys: `showsRunDetails`); each function adds its own results. A job on a
 * registered dataset that ran in a worker is shown to other keys as running until its release
 * time ({@linkcode visibleJob}).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { showsRunDetails } from "../jobs/release_policy.ts";
import type { JobView } from "../jobs/store.ts";
import { samplerWork } from "../jobs/work_limits.ts";
import type { ApiConfig } from "../jobs/config.ts";
import { errorResponses, JobProgress } from "./schemas.ts";

/** The settings a job's release time follows. */
export type ReleaseTiming = Pick<ApiConfig, "releaseDelayMs" | "jobTimeLimitMs">;

/** The sampler iterations of one fit of a request with the default settings. */
const DEFAULT_ITERATIONS = samplerWork({}).iterations;

/**
 * When an analyst may first see a job's outcome (ms since the epoch), fixed by the request at
 * its acceptance: the acceptance time plus `releaseDelayMs`, scaled by the request's sampler
 * iterations per fit over the default request's (never less than `releaseDelayMs`), and at most
 * the job time limit. It reads the request and the settings only: how long the fits took (the
 * refits calibration needed, where a failure stopped) does not move it.
 *
 * @param job The job's acceptance time and its request's iterations.
 * @param timing The settings.
 * @returns The release time.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { releaseTime } from "./job_view.ts";
 * const job = { createdAt: "2026-01-01T00:00:00.000Z", iterations: 16_000 };
 * const timing = { releaseDelayMs: 1000, jobTimeLimitMs: 60_000 };
 * assert.equal(releaseTime(job, timing), Date.parse(job.createdAt) + 2000);
 * ```
 */
export function releaseTime(
  job: Pick<JobView, "createdAt" | "iterations">,
  timing: ReleaseTiming,
): number {
  const scale = Math.max(1, job.iterations / DEFAULT_ITERATIONS);
  const delay = Math.min(timing.jobTimeLimitMs, timing.releaseDelayMs * scale);
  return Date.parse(job.createdAt) + delay;
}

/**
 * A job as a key sees it. On a registered dataset a key without the diagnostics scope sees a
 * job that runs in a worker as running, with no progress, result or failure, until it has
 * finished and its {@linkcode releaseTime} has come; then as it is. The owner sees it at once;
 * a job on inline data, and a table answered in its request (never claimed: 0 attempts), as
 * they are.
 *
 * @param job The stored job.
 * @param diagnostics Whether the key has the diagnostics scope.
 * @param timing The settings.
 * @param now The current time (ms since the epoch).
 * @returns The job as that key sees it now.
 */
export function visibleJob(
  job: JobView,
  diagnostics: boolean,
  timing: ReleaseTiming,
  now: number = Date.now(),
): JobView {
  if (showsRunDetails(job, diagnostics)) return job;
  const finished = job.status === "succeeded" || job.status === "failed";
  if (finished && (job.attempts === 0 || now >= releaseTime(job, timing))) return job;
  return {
    ...job,
    status: "running",
    progress: null,
    report: null,
    datasetCount: 0,
    result: null,
    error: null,
  };
}

/** A job's life. */
export const JobStatus = z.enum(["queued", "running", "succeeded", "failed"]);

/** The fields of every job view. */
export const JobFields = z.object({
  id: z.string(),
  status: JobStatus,
  datasetId: z.string().nullable(),
  progress: JobProgress.openapi({
    description: "null on a registered dataset unless the key has the diagnostics scope",
  }),
  attempts: z.number().int().optional().openapi({
    description: "absent on a registered dataset unless the key has the diagnostics scope",
  }),
  createdAt: z.string(),
  updatedAt: z.string().optional().openapi({
    description: "absent on a registered dataset unless the key has the diagnostics scope",
  }),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

/** The 202 answer to a submitted job. */
export const Accepted = z.object({ id: z.string(), status: JobStatus, location: z.string() })
  .openapi("Accepted");

/**
 * The fields of {@linkcode JobFields} for a job, as a key with or without the diagnostics scope
 * may see them.
 *
 * @param job The stored job.
 * @param diagnostics Whether the key has the diagnostics scope.
 * @returns The common view.
 */
export function jobFields(job: JobView, diagnostics: boolean) {
  const details = showsRunDetails(job, diagnostics);
  return {
    id: job.id,
    status: job.status,
    datasetId: job.datasetId,
    progress: details ? job.progress : null,
    ...(details ? { attempts: job.attempts } : {}),
    createdAt: job.createdAt,
    ...(details ? { updatedAt: job.updatedAt } : {}),
    ...(job.error === null ? {} : { error: job.error }),
  };
}

/** A job's public report as JSON (a mutable copy, as the response types want). */
export function reportJson(job: JobView) {
  return job.report === null ? {} : { report: { ...job.report, columns: [...job.report.columns] } };
}

/**
 * A job submission's answer: 202 with the persisted job (`Accepted`), and the errors a
 * submission can give (400, 401, 403, 404, 409, 413, 415, 422).
 *
 * @param description The 202 answer's description.
 * @returns The responses, to spread beside any others.
 */
export function jobAccepted(description: string) {
  return {
    202: { description, content: { "application/json": { schema: Accepted } } },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422),
  };
}
