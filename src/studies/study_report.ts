/**
 * A study's result with its report: the document decided from the result (`Study.document`, its
 * numbers formatted by `formatReport`, saved in the JSON) and the markdown rendered from it
 * through the study's template (`study_document.ts`).
 *
 * @module
 */
import { formatReport, renderStudy } from "./study_document.ts";
import type { Study, StudyResult } from "./study.ts";

/**
 * The result with its document, decided again from the settings, summary and records (any
 * document the result held is replaced).
 *
 * @param study The study.
 * @param result Its result.
 * @returns The result, its keys in the order of the JSON: the document after the summary.
 */
export function withDocument<S, R, A>(
  study: Study<S, R, A>,
  result: StudyResult<S, R, A>,
): StudyResult<S, R, A> {
  const { study: name, seed, replicates, settings, summary, records } = result;
  const bare = { study: name, seed, replicates, settings, summary, records };
  return {
    study: name,
    seed,
    replicates,
    settings,
    summary,
    document: formatReport(study.document(bare)),
    records,
  };
}

/**
 * The markdown report of a result that holds its document.
 *
 * @param study The study.
 * @param result Its result, with its document ({@linkcode withDocument}).
 * @param footer Machine-dependent lines (wall time), not part of the JSON.
 * @returns The markdown.
 */
export function studyMarkdown<S, R, A>(
  study: Study<S, R, A>,
  result: StudyResult<S, R, A>,
  footer: string,
): string {
  if (result.document === undefined) {
    throw new RangeError(`Invalid result: study ${study.name}'s result has no document`);
  }
  return renderStudy(study.template, result.document, footer);
}
