/**
 * Whole-file syntheses through the API (issue 35): a `POST /v1/syntheses` with `y: "all"` is a
 * {@linkcode FileSynthesisSpec} (the `synth --schema` command's options), run by
 * `synthesizeFile` under the owner's declared file schema: on a registered dataset the release
 * policy's (`checkFileSynthesis`), on inline data the request's own `fileSchema` (the caller owns
 * those data).
 *
 * - {@linkcode fileRequest}: refuses, before any data are read and uncharged (422
 *   `invalid_file_request`, naming the field), what a whole file cannot take (a model other than
 *   `auto` or a whole-file model (`FILE_MODELS`); `cw`, `cw-final`, `histogram`,
 *   which need a one-dimensional outcome), then validates the rest.
 * - {@linkcode runFileSynthesisJob}: the job, planned (`synthesisPlan`) and run in a worker
 *   (`file_job_worker.ts`, `runPlan`): the m CSVs (the input's header and N/A markers, formula
 *   cells escaped), the public manifest and the owner's diagnostics, with each file's
 *   `fileUtility` report.
 *
 * @module
 */
import { askWorker, builtInError } from "../data/data_worker.ts";
import type { Dataset } from "../data/dataset.ts";
import type { FileSchema } from "../data/file_schema.ts";
import { MECHANISM_NAMES } from "../mechanisms/mechanism.ts";
import { FILE_MECHANISMS, FileSynthesisSpec } from "../synthesis/file_spec.ts";
import { FILE_MODELS } from "../synthesis/file_synthesis.ts";
import { synthesisPlan } from "../synthesis/plan.ts";
import { FitFlaggedError } from "../mcmc/fit.ts";
import { CalibrationError } from "../mechanisms/calibrate.ts";
import type { FileWorkerJob } from "./file_job_worker.ts";
import { PolicyError } from "./domain_errors.ts";
import type { FileJobSpec, JobOutput, JobProgress } from "./store.ts";
import { parseProgressNote } from "./file_progress.ts";
import { jobProgress, publicStage } from "./synthesis_job.ts";

/**
 * Whether a request (or a stored job's spec) is a whole-file synthesis.
 *
 * @param spec A request or spec.
 * @returns Whether its `y` is "all".
 */
export function isFileSpec(spec: { readonly y?: unknown }): spec is FileJobSpec {
  return spec.y === "all";
}

function refuse(message: string, field: string): PolicyError {
  return new PolicyError(422, "invalid_file_request", message, field);
}

/**
 * A whole-file request from a body's fields (no data source): the refusals of the module
 * documentation (422, data-independent), then {@linkcode FileSynthesisSpec} (a `ZodError`, 400,
 * for anything else it does not take).
 *
 * @param body The request's fields, `datasetId`, `csv`, `records` and `fileSchema` removed.
 * @returns The validated request.
 */
export function fileRequest(body: Readonly<Record<string, unknown>>): FileSynthesisSpec {
  const models: readonly unknown[] = ["auto", ...FILE_MODELS];
  if (body.model !== undefined && !models.includes(body.model)) {
    throw refuse(
      `a whole-file release (y: "all") takes a whole-file model: model ${
        models.map((name) => `"${name}"`).join(", ")
      }`,
      "model",
    );
  }
  const mechanism = body.mechanism;
  if (
    typeof mechanism === "string" &&
    (MECHANISM_NAMES as readonly string[]).includes(mechanism) &&
    !(FILE_MECHANISMS as readonly string[]).includes(mechanism)
  ) {
    throw refuse(
      `the ${mechanism} mechanism needs a one-dimensional outcome; a whole file takes ` +
        `${FILE_MECHANISMS.join(", ")} or auto`,
      "mechanism",
    );
  }
  return FileSynthesisSpec.parse(body);
}

/** The worker's error of a class the job's failure depends on, as that class. */
function restored(name: string, message: string): Error | undefined {
  const error = name === "FitFlaggedError"
    ? new FitFlaggedError({ rhatMax: NaN, essBulkMin: NaN, divergences: 0 })
    : name === "CalibrationError"
    ? new CalibrationError(NaN, NaN, "")
    : undefined;
  if (error === undefined) return builtInError(name, message);
  error.message = message;
  return error;
}

/**
 * Runs a whole-file synthesis in a worker (`file_job_worker.ts`: minutes of Gibbs sweeps never
 * on the event loop) and returns its release; the job's time limit stops the worker (`askWorker`
 * sets its stop flag, which the fits read once a sweep or draw, and terminates it).
 *
 * @param data The confidential file.
 * @param spec The request (on a registered dataset: no seed, no allowFlagged).
 * @param schema The declared schema (the policy's, or the inline request's).
 * @param onProgress Where the stages go (public stage names only), and within a fit its sweeps as
 *   a synthesis's `fits` (one, conditional null).
 * @param signal Aborted at the job's time limit: the worker is stopped, the job rejects.
 * @returns The public manifest, the owner's diagnostics (with each file's utility) and the m CSVs.
 */
export function runFileSynthesisJob(
  data: Dataset,
  spec: FileSynthesisSpec,
  schema: FileSchema,
  onProgress: (progress: JobProgress) => void,
  signal?: AbortSignal,
): Promise<JobOutput> {
  const job: FileWorkerJob = { data, schema, plan: synthesisPlan(spec) };
  const fits = jobProgress(onProgress);
  return askWorker<JobOutput>(new URL("./file_job_worker.ts", import.meta.url), job, signal, {
    onNote: (note) => {
      const { stage, done, total } = parseProgressNote(note);
      if (done === undefined || total === undefined) {
        onProgress({ stage: publicStage(stage), fraction: 0 });
      } else {
        fits(stage, done, total);
      }
    },
    restore: restored,
  });
}
