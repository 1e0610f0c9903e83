import assert from "node:assert/strict";
import { runStudy, studyJson } from "../../src/studies/study_runner.ts";
import type { Study, StudyResult } from "../../src/studies/study.ts";

/**
 * Runs a study's quick mode twice, serially and on two workers, asserts that both give the same
 * JSON and returns the serial result.
 *
 * @param study The study.
 * @param seed The study seed.
 * @param settings Its quick settings (R = 2 replicates).
 */
export async function runSerialAndParallel<S, R, A>(
  study: Study<S, R, A>,
  seed: number,
  settings: S,
): Promise<StudyResult<S, R, A>> {
  const serial = await runStudy(study, { seed, replicates: 2, settings, workers: 0 });
  const parallel = await runStudy(study, { seed, replicates: 2, settings, workers: 2 });
  assert.equal(studyJson(parallel), studyJson(serial));
  return serial;
}
