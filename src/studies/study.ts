/**
 * The study contract (issue 36): what every study is to the one command `deno task study NAME`,
 * the runner, the scheduler and the workers.
 *
 * - A Monte Carlo study ({@linkcode Study}) is a pure replicate, a pure aggregation and its report
 *   as typed data (numbers with their formats, verdicts included), formatted into the document
 *   and rendered through its template file only at render; the runner
 *   runs R replicates in threads or on the queue and writes its result ({@linkcode StudyResult}).
 * - A study that runs once with its own runner ({@linkcode SingleRunStudy}: the frontier's arms,
 *   the design release) says how to run it and how to render its files again from its JSON.
 *
 * Either may take flags of its own ({@linkcode StudyFlags}) beside the command's.
 *
 * @module
 */
import type { SynthesisProgress } from "../synthesis/synthesize.ts";
import type { Report, StudyDocument } from "./study_document.ts";

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
  /**
   * The report as typed data (values, tables, figures, verdicts: numbers with their formats),
   * from the result without it; `withDocument` (`study_report.ts`) formats it into the document.
   */
  document(result: StudyResult<S, R, A>): Report;
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

/** A study's own flags, beside the command's: each flag's name and kind. */
export type StudyFlags = Readonly<Record<string, "string" | "boolean">>;

/** The values of a study's own flags as given (absent when not given). */
export type StudyFlagValues = Readonly<Record<string, string | boolean | undefined>>;

/** What the command gives a {@linkcode SingleRunStudy}'s run. */
export interface SingleRunContext {
  /** Its own flags' values. */
  readonly values: StudyFlagValues;
  /** The output folder (`--out`, default docs/studies). */
  readonly out: string;
  /** Writes a progress line to stderr. */
  log(line: string): void;
  /** The progress of the synthesis fits, and `end()` before other output. */
  readonly fits: { readonly update: SynthesisProgress; end(): void };
}

/** What a {@linkcode SingleRunStudy}'s run produced: the files to write, or none. */
export interface SingleRunOutput {
  /** The files to write into the output folder, all or none; null: nothing to write. */
  readonly files: ReadonlyMap<string, string> | null;
  /** The line the command prints when it ends. */
  readonly message: string;
}

/** A study run once by its own runner, not as replicates (the frontier, the design release). */
export interface SingleRunStudy {
  /** Its command-line name. */
  readonly name: string;
  /** Its own flags. */
  readonly flags: StudyFlags;
  /** Runs it; throws a RangeError naming a flag whose value it cannot take. */
  run(context: SingleRunContext): Promise<SingleRunOutput>;
  /**
   * Its files again from its committed JSON in `out` (`--render`: the document decided again,
   * the markdown's footer kept), running nothing.
   */
  render(out: string): Promise<ReadonlyMap<string, string>>;
}
