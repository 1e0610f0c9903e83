/**
 * Where a backend choice's last pass ran and why the CPU ran when a GPU was wanted: the state that
 * `select_lipschitz.ts` (the GLM kernels) and `select_term.ts` (the whole-file kernels) share.
 *
 * @module
 */

/** The last pass's device and the note of its fall-back, each distinct reason logged once. */
export class BackendTrace {
  #name: "cpu" | "gpu" = "cpu";
  #note: string | null = null;
  readonly #logged = new Set<string>();
  readonly #log: (line: string) => void;

  /**
   * @param log Where fall-back notes go (prefixed "ppsynth: ").
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { BackendTrace } from "./backend_trace.ts";
   * const lines: string[] = [];
   * const trace = new BackendTrace((line) => lines.push(line));
   * trace.fallBack("no WebGPU adapter");
   * trace.fallBack("no WebGPU adapter");
   * assert.deepEqual(lines, ["ppsynth: no WebGPU adapter"]);
   * assert.equal(trace.note, "no WebGPU adapter");
   * ```
   */
  constructor(log: (line: string) => void) {
    this.#log = log;
  }

  /** Where the last pass ran. */
  get name(): "cpu" | "gpu" {
    return this.#name;
  }

  /** Why the CPU ran when a GPU was wanted, if it did. */
  get note(): string | null {
    return this.#note;
  }

  /** Records where a pass ran. */
  ran(name: "cpu" | "gpu"): void {
    this.#name = name;
  }

  /** Sets the note without logging it (a choice, not a failure: auto declining a software GPU). */
  explain(note: string): void {
    this.#note = note;
  }

  /** Sets the note and logs it, once per distinct reason. */
  fallBack(why: string): void {
    this.#note = why;
    if (!this.#logged.has(why)) this.#log(`ppsynth: ${why}`);
    this.#logged.add(why);
  }
}
