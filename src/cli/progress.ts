/**
 * The commands' progress on stderr. On a terminal: one line, redrawn in place across every stage
 * of the run (stage, percent, steps, and the time left in the stage at its rate so far), cleared
 * by `end()`. Otherwise (a log file, CI): one line per tenth of each stage.
 *
 * @module
 */

/** Reports `done` of `total` steps of a named stage. */
export type StageProgressFn = (stage: string, done: number, total: number) => void;

/** The progress of a command: an update function, and `end()` before other output. */
export interface Progress {
  readonly update: StageProgressFn;
  /** Clears the terminal line (nothing to do otherwise). */
  end(): void;
}

/** Options of {@linkcode progress} (the defaults write to stderr). */
export interface ProgressOptions {
  readonly terminal?: boolean;
  readonly write?: (text: string) => void;
  /** Milliseconds, for the time left. */
  readonly now?: () => number;
}

const encoder = new TextEncoder();

/** m:ss (or h:mm:ss) of a number of seconds. */
function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const [h, m, r] = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
  const minutes = h > 0 ? `${h}:${String(m).padStart(2, "0")}` : String(m);
  return `${minutes}:${String(r).padStart(2, "0")}`;
}

/**
 * Creates the progress display of a command.
 *
 * @param prefix What runs, e.g. "fit" or "lw-final".
 * @param options Where it writes, whether that is a terminal, and the clock.
 * @returns `update(stage, done, total)` and `end()`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { progress } from "./progress.ts";
 * const lines: string[] = [];
 * const p = progress("fit", { terminal: false, write: (t) => lines.push(t) });
 * p.update("unweighted", 5, 10);
 * assert.deepEqual(lines, ["[fit unweighted] 50% (5/10)\n"]);
 * ```
 */
export function progress(prefix: string, options: ProgressOptions = {}): Progress {
  const terminal = options.terminal ?? Deno.stderr.isTerminal();
  const write = options.write ?? ((text: string) => Deno.stderr.writeSync(encoder.encode(text)));
  const now = options.now ?? (() => performance.now());
  let stage = "";
  let lastTenth = -1;
  let started = 0;
  let drawn = false;
  return {
    update(name, done, total) {
      if (name !== stage) {
        stage = name;
        lastTenth = -1;
        started = now();
      }
      const fraction = total === 0 ? 1 : done / total;
      const percent = Math.floor(fraction * 100);
      const label = `[${prefix} ${stage}] ${percent}% (${done}/${total})`;
      if (terminal) {
        const elapsed = (now() - started) / 1000;
        const left = done > 0 && done < total
          ? `, ${clock((elapsed / done) * (total - done))} left`
          : "";
        write(`\r\x1b[2K${label}${left}`);
        drawn = true;
        return;
      }
      const tenth = Math.floor(fraction * 10);
      if (tenth > lastTenth) {
        lastTenth = tenth;
        write(`${label}\n`);
      }
    },
    end() {
      if (drawn) write("\r\x1b[2K");
      drawn = false;
    },
  };
}
