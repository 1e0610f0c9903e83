/**
 * A toy study for the scheduler's tests: replicate r's record is {r, seed, x}; r = `fail` throws.
 * It imports nothing (a `Study` by shape), so the worker threads that import it load no more.
 */

export interface ToySettings {
  readonly fail: number;
}

interface ToyRecord {
  readonly r: number;
  readonly seed: number;
  readonly x: number;
}

export const study = {
  name: "toy",
  module: import.meta.url,
  replicate(
    r: number,
    seed: number,
    settings: ToySettings,
    stage: (stage: string) => void,
  ): Promise<ToyRecord> {
    stage("half");
    if (r === settings.fail) return Promise.reject(new Error(`boom at ${r}`));
    return Promise.resolve({ r, seed, x: (seed * 31 + r * 7) % 11 });
  },
  aggregate: (records: readonly ToyRecord[]): number =>
    records.reduce((s, record) => s + record.x, 0),
  document: () => ({ verdicts: [], values: {}, tables: {}, figures: {} }),
  template: "",
};
