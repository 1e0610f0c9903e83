/**
 * The papers' studies by their command-line names (SPEC §9), each with its full-size settings:
 * one list for `deno task study` and for the queue workers that run its replicates.
 *
 * @module
 */
import { CONTRACTION_SETTINGS, study as contraction } from "./contraction.ts";
import { FIVE_SETTINGS, study as five } from "./five.ts";
import { REWEIGHT_SETTINGS, study as reweight } from "./reweight.ts";
import type { Study } from "./study_types.ts";
import { study as survey, SURVEY_SETTINGS } from "./survey.ts";

/** A study with the settings of its full-size run. */
export interface RegisteredStudy {
  readonly study: Study<unknown, unknown, unknown>;
  readonly settings: unknown;
}

/** contraction (§9.1), reweight (§9.2), five (§9.3) and survey (§9.4). */
export const STUDIES: Readonly<Record<string, RegisteredStudy>> = Object.freeze({
  contraction: {
    study: contraction as Study<unknown, unknown, unknown>,
    settings: CONTRACTION_SETTINGS,
  },
  reweight: { study: reweight as Study<unknown, unknown, unknown>, settings: REWEIGHT_SETTINGS },
  five: { study: five as Study<unknown, unknown, unknown>, settings: FIVE_SETTINGS },
  survey: { study: survey as Study<unknown, unknown, unknown>, settings: SURVEY_SETTINGS },
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
