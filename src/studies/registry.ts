/**
 * The papers' studies by their command-line names (SPEC §9), each with its full-size settings:
 * one list for `deno task study` and for the queue workers that run its replicates.
 *
 * @module
 */
import { CONTRACTION_SETTINGS, study as contraction } from "./contraction.ts";
import { FIVE_SETTINGS, study as five } from "./five.ts";
import { REAL_FILE_SETTINGS, study as realFile } from "./real_file.ts";
import { REWEIGHT_SETTINGS, study as reweight } from "./reweight.ts";
import type { Study } from "./study_types.ts";
import { study as survey, SURVEY_SETTINGS } from "./survey.ts";

/** A study with the settings of its full-size run. */
export interface RegisteredStudy {
  readonly study: Study<unknown, unknown, unknown>;
  readonly settings: unknown;
  /** The replicates R of its full-size run (`deno task study NAME` without `--replicates`). */
  readonly replicates: number;
}

/** A study with its full-size settings and R (100 unless given). */
function registered<S, R, A>(
  study: Study<S, R, A>,
  settings: S,
  replicates = 100,
): RegisteredStudy {
  return { study: study as Study<unknown, unknown, unknown>, settings, replicates };
}

/**
 * contraction (§9.1), reweight (§9.2), five (§9.3), survey (§9.4) and real_file (the real
 * public-use file, issue 15: one replicate).
 */
export const STUDIES: Readonly<Record<string, RegisteredStudy>> = Object.freeze({
  contraction: registered(contraction, CONTRACTION_SETTINGS),
  reweight: registered(reweight, REWEIGHT_SETTINGS),
  five: registered(five, FIVE_SETTINGS),
  survey: registered(survey, SURVEY_SETTINGS),
  real_file: registered(realFile, REAL_FILE_SETTINGS, 1),
});

/**
 * The study of a name.
 *
 * @param name A key of {@linkcode STUDIES}.
 * @returns The study and its settings; throws a RangeError naming an unknown one.
 */
export function studyByName(name: string): RegisteredStudy {
  const entry = Object.hasOwn(STUDIES, name) ? STUDIES[name] : undefined;
  if (entry === undefined) {
    throw new RangeError(
      `Invalid study: must be one of ${Object.keys(STUDIES).join(", ")}: study=${name}`,
    );
  }
  return entry;
}
