/**
 * The worker pool's handler (and the Redis workers'): reads a claimed job's request and
 * confidential data from the store and runs it by its kind, a synthesis (`synthesis_job.ts`; a
 * whole file, `y: "all"`: `file_job.ts`) or a survey table (`table_job.ts`). A job on a
 * registered dataset reads its data through the
 * release policy (bounded columns clamped, the cells of tables over the declared levels) and
 * never runs with a seed; the counts of clamped values go to the owner's diagnostics, and its
 * public report states the charged cap as its ε (`publicRelease`). Every job's fits (and a
 * laplace table's worker) stop when the job's signal is aborted (its time limit).
 *
 * @module
 */
import { parseCsvAsync } from "../data/parse_csv_async.ts";
import { synthesisPlan } from "../synthesis/plan.ts";
import type { SynthesisSpec } from "../synthesis/spec.ts";
import { isFileSpec, runFileSynthesisJob } from "./file_job.ts";
import { publicRelease } from "./public_release.ts";
import { policyData } from "./release_policy.ts";
import { runSynthesisJob } from "./synthesis_job.ts";
import { policyTableBounds, runTableJob } from "./table_job.ts";
import type { JobOutput, JobStore } from "./store.ts";
import type { TableSpec } from "./table_request.ts";
import type { JobHandler } from "./worker_pool.ts";

/**
 * The handler that runs every kind of job for a {@linkcode WorkerPool}.
 *
 * @param store Where the job's request and data are.
 * @returns A handler that runs the job and returns its release.
 */
export function jobHandler(store: JobStore): JobHandler {
  return async (lease, onProgress, signal) => {
    const input = await store.jobInput(lease.jobId);
    if (input === null) throw new Error(`job ${lease.jobId} has no input`);
    const source = input.datasetId === null ? "inline data" : `dataset ${input.datasetId}`;
    const parsed = await parseCsvAsync(input.csv, source, signal);
    const { policy } = input;
    if (input.kind === "synthesis" && isFileSpec(input.spec)) {
      // A whole file (issue 35): read through its declared schema only (the policy's on a
      // registered dataset, checked against the data at registration), never a seed there.
      const schema = policy === null ? input.spec.fileSchema : policy.fileSchema;
      if (schema === undefined) throw new TypeError("a whole-file job needs a file schema");
      const { fileSchema: _, ...spec } = input.spec;
      if (policy === null) {
        return await runFileSynthesisJob(parsed, spec, schema, onProgress, signal);
      }
      const release = await runFileSynthesisJob(
        parsed,
        { ...spec, seed: undefined, allowFlagged: undefined },
        schema,
        onProgress,
        signal,
      );
      return publicRelease(release, input.spec.epsilon!);
    }
    // The stored request normalised once (on a registered dataset "auto" was resolved under
    // the policy when it was accepted; the seed goes).
    const plan = input.kind === "synthesis"
      ? synthesisPlan(
        policy === null
          ? input.spec as SynthesisSpec
          : { ...input.spec as SynthesisSpec, seed: undefined },
      )
      : undefined;
    if (policy === null) {
      return plan === undefined
        ? await runTableJob(parsed, input.spec as TableSpec, onProgress, { signal })
        : await runSynthesisJob(parsed, plan, onProgress, signal);
    }
    // A synthesis's outcomes are also moved into their models' domains (`policyData`).
    const { data, clamped } = policyData(parsed, policy, plan);
    if (input.kind === "table" && input.spec.method === "laplace") {
      // The bounded mode only (checkTable refused the request without the declared bounds); its
      // ε is exactly the charge and its privacy states no Δ, so there is nothing to restate.
      const bounds = policyTableBounds(policy.bounds, input.spec);
      if (bounds === undefined) {
        throw new TypeError("a laplace table on a registered dataset needs declared bounds");
      }
      const table = await runTableJob(data, { ...input.spec, seed: undefined }, onProgress, {
        levels: policy.levels,
        bounds,
        signal,
      });
      return { ...table, diagnostics: { ...table.diagnostics, clamped } };
    }
    const release: JobOutput = plan === undefined
      ? await runTableJob(data, { ...input.spec as TableSpec, seed: undefined }, onProgress, {
        levels: policy.levels,
        signal,
      })
      : await runSynthesisJob(data, plan, onProgress, signal);
    return publicRelease(
      { ...release, diagnostics: { ...release.diagnostics, clamped } },
      input.spec.epsilon!,
    );
  };
}
