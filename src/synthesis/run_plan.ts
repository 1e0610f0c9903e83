/**
 * Runs a plan and bundles its release: a synthesis through `synthesize`, a whole file through
 * `synthesizeFile` under its declared schema, each then through the one `releaseBundle` — the run
 * step of the command line and of the whole-file job's worker.
 *
 * @module
 */
import type { Dataset } from "../data/dataset.ts";
import type { FileSchema } from "../data/file_schema.ts";
import type { FileUtility } from "./file_utility.ts";
import { type FileRunOptions, type FileSynthesisResult, synthesizeFile } from "./file_synthesis.ts";
import type { FilePlan, SynthesisPlan } from "./plan.ts";
import { type ReleaseBundle, releaseBundle } from "./release_bundle.ts";
import { type SynthesisResult, synthesize, type SynthesizeOptions } from "./synthesize.ts";
import type { UtilityReport } from "./utility_report.ts";

/**
 * What a plan runs on: a synthesis's options, or a whole file's declared schema, progress and
 * stop flag.
 */
export type PlanRun =
  | { readonly plan: SynthesisPlan; readonly options?: SynthesizeOptions }
  | ({ readonly plan: FilePlan; readonly schema: FileSchema } & FileRunOptions);

/** A finished run: the result of its kind and its release bundle. */
export type PlanRelease =
  | {
    readonly kind: "synthesis";
    readonly result: SynthesisResult;
    readonly bundle: ReleaseBundle<UtilityReport>;
  }
  | {
    readonly kind: "file";
    readonly result: FileSynthesisResult;
    readonly bundle: ReleaseBundle<readonly FileUtility[]>;
  };

/**
 * Runs a plan on the confidential data and bundles the release.
 *
 * @param data The confidential data.
 * @param run The plan and what its kind runs with.
 * @returns The result and its bundle; throws what `synthesize` or `synthesizeFile` throws.
 */
export async function runPlan(data: Dataset, run: PlanRun): Promise<PlanRelease> {
  if ("schema" in run) {
    const { plan, schema, onProgress, stop } = run;
    const result = await synthesizeFile(data, schema, plan, { onProgress, stop });
    const bundle = releaseBundle({ kind: "file", result, confidential: data, schema });
    return { kind: "file", result, bundle };
  }
  const { plan, options } = run;
  const result = await synthesize(data, plan, options);
  return { kind: "synthesis", result, bundle: releaseBundle({ kind: "synthesis", result, plan }) };
}
