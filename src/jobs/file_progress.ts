/**
 * The progress notes of a whole-file job's worker (`file_job_worker.ts`), read by
 * `runFileSynthesisJob` (`file_job.ts`): a stage, or a fit's stage with its Gibbs sweeps done of
 * its total. Both are public (stage names and the request's sampler settings).
 *
 * @module
 */

/**
 * A progress note: the stage, and within a fit "stage\tdone\ttotal" (its sweeps; public settings
 * only), read back by `parseProgressNote`.
 *
 * @param stage The stage.
 * @param done Sweeps done, within a fit.
 * @param total The fit's sweeps.
 * @returns The note.
 */
export function progressNote(stage: string, done?: number, total?: number): string {
  return done === undefined || total === undefined ? stage : `${stage}\t${done}\t${total}`;
}

/**
 * A note of {@linkcode progressNote} read back.
 *
 * @param note The note.
 * @returns The stage, and the sweeps when the note has them.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseProgressNote, progressNote } from "./file_progress.ts";
 * assert.deepEqual(parseProgressNote(progressNote("fit 1: sw", 5, 10)), { stage: "fit 1: sw", done: 5, total: 10 });
 * assert.deepEqual(parseProgressNote(progressNote("simulate")), { stage: "simulate" });
 * ```
 */
export function parseProgressNote(note: string): { stage: string; done?: number; total?: number } {
  const [stage, done, total] = note.split("\t");
  return done === undefined ? { stage } : { stage, done: Number(done), total: Number(total) };
}
