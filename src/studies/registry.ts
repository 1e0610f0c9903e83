/**
 * Every study by its command-line name (SPEC §9, issues 15, 23, 24): the one list of
 * `deno task study NAME`. The Monte Carlo studies ({@linkcode STUDIES}), each with its full-size
 * settings, are also what the queue workers look up to run replicates; the studies run once by
 * their own runner ({@linkcode SINGLE_RUN_STUDIES}) are the frontier and the design release.
 *
 * @module
 */
import { CONTRACTION_SETTINGS, study as contraction } from "./contraction.ts";
import { designReleaseStudy } from "./design_release.ts";
import { FIVE_SETTINGS, study as five } from "./five.ts";
import { frontierStudy } from "./frontier.ts";
import {
  REAL_FILE_FLAGS,
  REAL_FILE_SETTINGS,
  realFileSettings,
  study as realFile,
} from "./real_file.ts";
import { REWEIGHT_SETTINGS, study as reweight } from "./reweight.ts";
import type { SingleRunStudy, Study, StudyFlags, StudyFlagValues } from "./study.ts";
import { study as survey, SURVEY_SETTINGS } from "./survey.ts";

/** A Monte Carlo study with the settings of its full-size run. */
export interface RegisteredStudy {
  readonly study: Study<unknown, unknown, unknown>;
  readonly settings: unknown;
  /** The replicates R of its full-size run (`deno task study NAME` without `--replicates`). */
  readonly replicates: number;
  /** Its own flags (none unless given). */
  readonly flags: StudyFlags;
  /** The settings with its own flags' values; throws a RangeError naming a flag. */
  withFlags(settings: unknown, values: StudyFlagValues): unknown;
}

/** A study with its full-size settings, R (100 unless given) and its own flags (if any). */
function registered<S, R, A>(
  study: Study<S, R, A>,
  settings: S,
  replicates = 100,
  own: { flags: StudyFlags; withFlags(settings: S, values: StudyFlagValues): S } = {
    flags: {},
    withFlags: (settings) => settings,
  },
): RegisteredStudy {
  return {
    study: study as Study<unknown, unknown, unknown>,
    settings,
    replicates,
    flags: own.flags,
    withFlags: own.withFlags as RegisteredStudy["withFlags"],
  };
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
  real_file: registered(realFile, REAL_FILE_SETTINGS, 1, {
    flags: REAL_FILE_FLAGS,
    withFlags: realFileSettings,
  }),
});

/** frontier (issue 23: utility against ε on real files) and design_release (issue 24). */
export const SINGLE_RUN_STUDIES: Readonly<Record<string, SingleRunStudy>> = Object.freeze({
  frontier: frontierStudy,
  design_release: designReleaseStudy,
});

/** Every study's name, the Monte Carlo studies' first. */
export const STUDY_NAMES: readonly string[] = Object.freeze([
  ...Object.keys(STUDIES),
  ...Object.keys(SINGLE_RUN_STUDIES),
]);

/**
 * The Monte Carlo study of a name (what a queue worker runs).
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
