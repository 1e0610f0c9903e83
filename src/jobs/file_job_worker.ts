/**
 * Worker entry of a whole-file synthesis job (issue 35): its plan run (`runPlan`: `synthesizeFile`
 * and the release bundle, each file's `fileUtility` and the CSVs), off the event loop — the Gibbs
 * sweeps and the Lipschitz passes take seconds to minutes of one core, and the server must keep
 * answering meanwhile (issue 34: nothing heavy on the request thread). Asked by
 * `runFileSynthesisJob` (`file_job.ts`) through `askWorker`, which sets the request's stop flag
 * (read once a sweep or draw by the fits and the Lipschitz pass, here and in its share workers)
 * and terminates it when the job's time limit aborts it; the stages go back as notes
 * (`progressNote`, `file_progress.ts`), the release as the value, an error by its class name
 * (`answerWith`).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { answerWith, postNote, type WorkerRequest } from "../data/data_worker.ts";
import type { Dataset } from "../data/dataset.ts";
import type { FileSchema } from "../data/file_schema.ts";
import type { StopFlag } from "../data/worker_stop.ts";
import type { FilePlan } from "../synthesis/plan.ts";
import { runPlan } from "../synthesis/run_plan.ts";
import { progressNote } from "./file_progress.ts";
import type { JobOutput } from "./store.ts";

/** What the worker runs. */
export interface FileWorkerJob {
  readonly data: Dataset;
  readonly schema: FileSchema;
  readonly plan: FilePlan;
}

/**
 * The release of a whole-file job, as the one release bundle (`release_bundle.ts`) holds it: the
 * manifest, the owner's diagnostics with each file's utility report (aggregates of the
 * confidential file), and the m CSVs with formula cells escaped. The fits read `stop` once a
 * sweep (or draw), which `askWorker` sets before it terminates this worker.
 */
async function fileRelease(job: FileWorkerJob, stop: StopFlag): Promise<JobOutput> {
  const { data, schema, plan } = job;
  const { bundle } = await runPlan(data, {
    plan,
    schema,
    stop,
    onProgress: (stage, done, total) => postNote(progressNote(stage, done, total)),
  });
  return { report: bundle.report, diagnostics: bundle.owner, datasets: bundle.datasets };
}

self.onmessage = (event: MessageEvent<WorkerRequest<FileWorkerJob>>) =>
  answerWith(event.data, async (job, stop) => ({ value: await fileRelease(job, stop) }));
