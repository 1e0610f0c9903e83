/**
 * The two runs of `study_fanout_test.ts` and their single-process results, recorded beside this
 * file (`study_fanout_quick.json`, `study_fanout_kill.json`: each run's `studyJson` text, in this
 * thread, `workers: 0`). The test compares the queue's result with the recording byte for byte and
 * first recomputes the quick run's replicate 0 in this thread against the recording's, so that a
 * change to the contraction study's code fails at once with a message to re-record, never passes
 * against a stale recording (the queue's workers run the code of now). Re-record, after such a
 * change, from the repository root:
 *
 *     deno run -A test/scale/_study_fanout.ts
 *
 * Issue 36: the file recomputed both runs in this thread on every run (8 replicates, about 5 CPU s
 * of its 18).
 *
 * @module
 */
import {
  CONTRACTION_SETTINGS,
  type ContractionSettings,
  study,
} from "../../src/studies/contraction.ts";
import { runStudy, studyJson } from "../../src/studies/study_runner.ts";

/** Quick mode: two small databases, 2 × (100 + 100) draws (about 0.5 CPU s a replicate). */
const QUICK: ContractionSettings = {
  ...CONTRACTION_SETTINGS,
  sizes: [40, 160],
  sampler: { chains: 2, warmup: 100, draws: 100 },
};

/**
 * Replicates of a second or two, so that a worker is killed in the middle of one (its
 * `replicate_started` line is seen within a poll of 50 ms). Two sizes, 40 and 600 (issue 36;
 * 40, 160 and 1,600 before): a replicate of 2 s at load 8, not 4.5 s, and the same claim.
 */
const SLOWER: ContractionSettings = {
  ...CONTRACTION_SETTINGS,
  sizes: [40, 600],
  sampler: { chains: 2, warmup: 150, draws: 150 },
};

/** The file's runs: the quick one on three workers, the one whose worker is SIGKILLed. */
export const RUNS = {
  quick: { seed: 5, replicates: 6, settings: QUICK },
  kill: { seed: 11, replicates: 2, settings: SLOWER },
} as const;

/** A run's name. */
export type RunName = keyof typeof RUNS;

/** Where a run's single-process result is recorded. */
function recordingOf(name: RunName): URL {
  return new URL(`study_fanout_${name}.json`, import.meta.url);
}

/** What to do when a recording no longer matches the code. */
export const RERECORD = "after a change to the contraction study's code, re-record with " +
  "`deno run -A test/scale/_study_fanout.ts`";

/** The recorded `studyJson` text of a run's single-process result. */
export function recorded(name: RunName): Promise<string> {
  return Deno.readTextFile(recordingOf(name));
}

if (import.meta.main) {
  for (const [name, run] of Object.entries(RUNS) as [RunName, (typeof RUNS)[RunName]][]) {
    const result = await runStudy(study, { ...run, workers: 0 });
    await Deno.writeTextFile(recordingOf(name), studyJson(result));
    console.log(`wrote ${recordingOf(name).pathname}`);
  }
}
