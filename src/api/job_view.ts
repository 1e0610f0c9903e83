/**
 * What every key sees of a job (a synthesis or a table): its status, when it was created, the
 * public failure, and how it ran (progress, attempts, last update; on a registered dataset only
 * to diagnostics keys: `showsRunDetails`); each function adds its own results.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { showsRunDetails } from "../jobs/release_policy.ts";
import type { JobView } from "../jobs/store.ts";
import { JobProgress } from "./schemas.ts";

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
