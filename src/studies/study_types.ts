/**
 * What a Monte Carlo study is to the runner, the scheduler and the worker: a pure replicate, a
 * pure aggregation and its report ({@linkcode Study}), and its result ({@linkcode StudyResult}).
 *
 * @module
 */
import type { StudyDocument } from "./study_document.ts";

/** Reports the stage a replicate has reached, e.g. "n=400 lw". */
export type StageFn = (stage: string) => void;

/** One Monte Carlo study: a pure replicate and a pure aggregation. */
export interface Study<S, R, A> {
  /** Its command-line name. */
  readonly name: string;
  /** `import.meta.url` of the module whose export `study` is this object (for workers). */
  readonly module: string;
  /** Runs replicate r (0-based) and returns its plain-JSON record. */
  replicate(r: number, seed: number, settings: S, stage: StageFn): Promise<R>;
  /** Summarises the records (in replicate order). */
  aggregate(records: readonly R[], settings: S): A;
  /** The report as data (tables, figures, values, verdicts), from the result without it. */
  document(result: StudyResult<S, R, A>): StudyDocument;
  /** The report's fixed prose, with the placeholders of `study_document.ts`. */
  readonly template: string;
}

/** What a study writes to `<name>.json`: a pure function of its flags. */
export interface StudyResult<S, R, A> {
  readonly study: string;
  readonly seed: number;
  readonly replicates: number;
  readonly settings: S;
  readonly summary: A;
  /** The report as data, saved with the result (`Study.document`). */
  readonly document?: StudyDocument;
  readonly records: readonly R[];
}
