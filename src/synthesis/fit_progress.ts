/**
 * The fits that a synthesis is running, as a person reads them (issue 37): one entry per
 * conditional (several outcomes are fitted at once, `joint_fit.ts`), each with its stage, the
 * iteration it is at of its total, the time it has run and the time it has left at its rate so
 * far. The command line draws them (`src/cli/progress.ts`) and the API's job `progress` carries
 * them (`src/jobs/synthesis_job.ts`).
 *
 * @module
 */

/** One running (or last finished) fit of one conditional. */
export interface FitStatus {
  /** The fit's label ("unweighted", "lw calibration g=0.15", "reweight k=0.95"…). */
  readonly stage: string;
  /** The outcome whose conditional it fits; null with one outcome. */
  readonly conditional: string | null;
  /** Sampler iterations done, over every chain. */
  readonly iteration: number;
  readonly total: number;
  /** Seconds since this fit started. */
  readonly elapsedSeconds: number;
  /** Seconds left at its rate so far; null before its first iteration and once it is done. */
  readonly remainingSeconds: number | null;
}

/** What an update did to its conditional's fit. */
export type FitEvent = "start" | "progress" | "finish";

interface Entry {
  stage: string;
  conditional: string | null;
  iteration: number;
  total: number;
  started: number;
  at: number;
}

/**
 * The fits of a synthesis, one per conditional, from the fits' progress callbacks
 * (`SynthesisProgress`): a new stage, fewer iterations than before (a refit under the same
 * label: the short warmup tried first, or a continuation) or a new total starts a new fit of that
 * conditional, which replaces its previous one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FitTracker } from "./fit_progress.ts";
 * let clock = 0;
 * const fits = new FitTracker(() => clock);
 * fits.update("unweighted", 0, 100, "a");
 * clock = 10_000;
 * assert.equal(fits.update("unweighted", 50, 100, "a"), "progress");
 * assert.deepEqual(fits.fits(), [{
 *   stage: "unweighted",
 *   conditional: "a",
 *   iteration: 50,
 *   total: 100,
 *   elapsedSeconds: 10,
 *   remainingSeconds: 10,
 * }]);
 * ```
 */
export class FitTracker {
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  readonly #started: number;
  #count = 0;

  /** @param now Milliseconds (default `performance.now()`). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
    this.#started = now();
  }

  /**
   * Records a fit's progress.
   *
   * @param stage The fit's label.
   * @param done Iterations done.
   * @param total Iterations in all.
   * @param conditional The outcome of its conditional (absent with one outcome).
   * @returns Whether it started a fit, moved one on, or finished one.
   */
  update(stage: string, done: number, total: number, conditional?: string): FitEvent {
    const key = conditional ?? "";
    const time = this.#now();
    const entry = this.#entries.get(key);
    const fresh = entry === undefined || entry.stage !== stage || entry.total !== total ||
      done < entry.iteration;
    // A finished fit reported again is no news (a refit under its label starts from fewer).
    if (!fresh && entry.iteration >= entry.total) return "progress";
    if (fresh) {
      this.#count++;
      this.#entries.set(key, {
        stage,
        conditional: conditional ?? null,
        iteration: done,
        total,
        started: time,
        at: time,
      });
    } else {
      entry.iteration = done;
      entry.at = time;
    }
    if (done >= total) return "finish";
    return fresh ? "start" : "progress";
  }

  /** The fits, one per conditional, in the order their conditionals first reported. */
  fits(): FitStatus[] {
    const time = this.#now();
    return [...this.#entries.values()].map((entry) => {
      const finished = entry.iteration >= entry.total;
      const elapsed = ((finished ? entry.at : time) - entry.started) / 1000;
      // The rate up to the last report, over the time up to now: a stalled fit's estimate grows.
      const remaining = finished || entry.iteration <= 0 ? null : Math.max(
        0,
        ((entry.at - entry.started) / 1000 / entry.iteration) *
            (entry.total - entry.iteration) - (time - entry.at) / 1000,
      );
      return {
        stage: entry.stage,
        conditional: entry.conditional,
        iteration: entry.iteration,
        total: entry.total,
        elapsedSeconds: elapsed,
        remainingSeconds: remaining,
      };
    });
  }

  /** How many fits have started. */
  get count(): number {
    return this.#count;
  }

  /** Seconds since the tracker was made. */
  get elapsedSeconds(): number {
    return (this.#now() - this.#started) / 1000;
  }
}
