/**
 * The GPU study sampler check's study (`study_sampler_test.ts`): study 3 at a reduced size, and
 * what the check reads of a replicate. `test/reference/study_sampler_nuts.ts` records the NUTS
 * side (`test/reference/study_sampler_nuts.json`).
 *
 * @module
 */
import { FIVE_MECHANISMS, FIVE_SETTINGS, type FiveSettings } from "../../src/studies/five.ts";
import type { FiveMechanism, FiveRecord } from "../../src/studies/five_settings.ts";
import type { SampleSummary } from "../../src/stats/sample_summary.ts";

/** The study seed (replicate r's data is the same for any number of replicates). */
export const STUDY_SEED = 5;

/** Study 3 with n = 150, ε ∈ {5, 3}, no downscaling arm, 2 chains × (150 warmup + 150 draws). */
export const SMALL: FiveSettings = {
  ...FIVE_SETTINGS,
  n: 150,
  epsilons: [5, 3],
  downscaling: null,
  sampler: { chains: 2, warmup: 150, draws: 150 },
};

/** One synthesizer's measures in a replicate (null where its calibration failed). */
export type Measures = { readonly ecdfMax: number; readonly lipschitz: number | null } | null;

/** What the check reads of replicate r: its data's summary; per ε, each synthesizer's measures. */
export interface Measured {
  readonly r: number;
  readonly data: SampleSummary;
  readonly epsilons: readonly Record<FiveMechanism, Measures>[];
}

/** {@linkcode Measured} of a record. */
export function measured(record: FiveRecord): Measured {
  return {
    r: record.r,
    data: record.data,
    epsilons: record.epsilons.map((e) =>
      Object.fromEntries(FIVE_MECHANISMS.map((mechanism) => {
        const entry = e.mechanisms[mechanism];
        return [
          mechanism,
          entry === null ? null : { ecdfMax: entry.ecdfMax, lipschitz: entry.lipschitz },
        ];
      })) as Record<FiveMechanism, Measures>
    ),
  };
}
