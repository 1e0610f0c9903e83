/**
 * The commands' progress on stderr (issue 37), from the fits that run (`FitTracker`): one per
 * conditional, several outcomes being fitted at once.
 *
 * On a terminal: one line per conditional's fit, redrawn in place (its stage, the iteration of
 * the total, the time it has run and the time it has left at its rate so far), so the screen
 * holds at most one line per running fit; `end()` clears them before other output. Lines are cut
 * to the terminal's width, as a wrapped line would break the redraw.
 *
 * Otherwise (a log file, CI, `TERM=dumb`): plain lines, one when a stage's fits have all finished
 * and one summary of the running fits at intervals (10 s, growing to a tenth of the time run so
 * far), so an hour's run writes tens of lines, not thousands.
 *
 * @module
 */
import { type FitStatus, FitTracker } from "../synthesis/fit_progress.ts";

/** Reports `done` of `total` iterations of a named stage, with several outcomes of which one. */
export type StageProgressFn = (
  stage: string,
  done: number,
  total: number,
  conditional?: string,
) => void;

/** The progress of a command: an update function, and `end()` before other output. */
export interface Progress {
  readonly update: StageProgressFn;
  /** Clears the terminal lines (nothing to do otherwise); the next update draws them again. */
  end(): void;
  /** Clears the terminal lines and writes one line: how many fits ran, for how long. */
  close(): void;
}

/** Options of {@linkcode progress} (the defaults write to stderr). */
export interface ProgressOptions {
  /** Redraw in place (default: stderr is a terminal and `TERM` is not `dumb`). */
  readonly terminal?: boolean;
  readonly write?: (text: string) => void;
  /** Milliseconds, for the times. */
  readonly now?: () => number;
  /** The terminal's width in columns (default: stderr's; 0: lines are not cut). */
  readonly columns?: number;
}

/** Milliseconds between two periodic lines into a log, at least. */
export const LOG_INTERVAL_MS = 10_000;
/** Milliseconds between two redraws on a terminal, unless a fit starts or finishes. */
export const REDRAW_INTERVAL_MS = 100;

const encoder = new TextEncoder();

/** m:ss (or h:mm:ss) of a number of seconds. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const [h, m, r] = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
  const minutes = h > 0 ? `${h}:${String(m).padStart(2, "0")}` : String(m);
  return `${minutes}:${String(r).padStart(2, "0")}`;
}

/** Percent done, floored (100 only when done). */
function percent(fit: FitStatus): number {
  return fit.total === 0 ? 100 : Math.floor((fit.iteration / fit.total) * 100);
}

/**
 * A fit's terminal line: `[fit a] lw 50% (600/1200), 0:12 elapsed, 0:12 left`.
 *
 * @param prefix What runs.
 * @param fit The fit.
 */
export function fitLine(prefix: string, fit: FitStatus): string {
  const name = fit.conditional === null ? prefix : `${prefix} ${fit.conditional}`;
  const left = fit.remainingSeconds === null ? "" : `, ${clock(fit.remainingSeconds)} left`;
  return `[${name}] ${fit.stage} ${percent(fit)}% (${fit.iteration}/${fit.total}), ` +
    `${clock(fit.elapsedSeconds)} elapsed${left}`;
}

/** Cuts a line to `columns - 1` characters (the last column would wrap on some terminals). */
function cut(line: string, columns: number): string {
  if (columns <= 1) return line;
  const chars = [...line];
  return chars.length < columns ? line : chars.slice(0, columns - 2).join("") + "…";
}

/** An environment variable, read only where the command may (a prompt would stop it). */
function envOf(name: string): string | undefined {
  const { state } = Deno.permissions.querySync({ name: "env", variable: name });
  return state === "granted" ? Deno.env.get(name) : undefined;
}

/** The width of stderr's terminal, or 0 when it has none. */
function stderrColumns(): number {
  try {
    return Deno.consoleSize().columns;
  } catch {
    return 0;
  }
}

/**
 * Creates the progress display of a command.
 *
 * @param prefix What runs, e.g. "fit" or "lw-final".
 * @param options Where it writes, whether that is a terminal, its width, and the clock.
 * @returns `update(stage, done, total, conditional?)`, `end()` and `close()`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { progress } from "./progress.ts";
 * const lines: string[] = [];
 * const p = progress("fit", { terminal: false, write: (t) => lines.push(t), now: () => 0 });
 * p.update("unweighted", 5, 10);
 * p.update("unweighted", 10, 10);
 * assert.deepEqual(lines, ["[fit] unweighted: done, 1 fit, 0:00\n"]);
 * ```
 */
export function progress(prefix: string, options: ProgressOptions = {}): Progress {
  const terminal = options.terminal ?? (Deno.stderr.isTerminal() && envOf("TERM") !== "dumb");
  const write = options.write ?? ((text: string) => Deno.stderr.writeSync(encoder.encode(text)));
  const now = options.now ?? (() => performance.now());
  const columns = options.columns ?? (terminal ? stderrColumns() : 0);
  const fits = new FitTracker(now);
  const started = now();
  // Terminal: how many lines are on the screen, the cursor at the end of the last.
  let drawn = 0;
  let lastDraw = -Infinity;
  // Log: when the last periodic line was written, and the stages with a fit not yet finished.
  let lastLog = started;
  const open = new Map<string, { fits: number; started: number }>();

  const erase = (): string => {
    if (drawn === 0) return "";
    const text = "\r\x1b[2K" + "\x1b[1A\x1b[2K".repeat(drawn - 1);
    drawn = 0;
    return text;
  };

  const draw = () => {
    const lines = fits.fits().map((fit) => cut(fitLine(prefix, fit), columns));
    const up = drawn > 1 ? `\r\x1b[${drawn - 1}A` : "";
    write(up + lines.map((line) => `\r\x1b[2K${line}`).join("\n"));
    drawn = lines.length;
    lastDraw = now();
  };

  const logLine = () => {
    const running = fits.fits().filter((fit) => fit.iteration < fit.total);
    if (running.length === 0) return;
    const parts = running.map((fit) =>
      `${fit.conditional === null ? "" : `${fit.conditional} `}${fit.stage} ${percent(fit)}%`
    );
    const left = Math.max(...running.map((fit) => fit.remainingSeconds ?? 0));
    write(
      `[${prefix}] ${clock((now() - started) / 1000)}: ${parts.join(", ")}` +
        (left > 0 ? `; ${clock(left)} left` : "") + "\n",
    );
  };

  return {
    update(stage, done, total, conditional) {
      const event = fits.update(stage, done, total, conditional);
      if (terminal) {
        if (event !== "progress" || drawn === 0 || now() - lastDraw >= REDRAW_INTERVAL_MS) draw();
        return;
      }
      if (event === "start") {
        const round = open.get(stage);
        open.set(stage, { fits: (round?.fits ?? 0) + 1, started: round?.started ?? now() });
      }
      if (event === "finish") {
        const unfinished = fits.fits().some((fit) =>
          fit.stage === stage && fit.iteration < fit.total
        );
        const round = open.get(stage) ?? { fits: 1, started: now() };
        if (!unfinished) {
          open.delete(stage);
          const count = `${round.fits} fit${round.fits === 1 ? "" : "s"}`;
          write(`[${prefix}] ${stage}: done, ${count}, ${clock((now() - round.started) / 1000)}\n`);
        }
        return;
      }
      const time = now();
      const interval = Math.max(LOG_INTERVAL_MS, (time - started) / 10);
      if (time - lastLog >= interval) {
        lastLog = time;
        logLine();
      }
    },
    end() {
      if (terminal) write(erase());
    },
    close() {
      const cleared = terminal ? erase() : "";
      if (fits.count === 0) {
        if (cleared !== "") write(cleared);
        return;
      }
      const count = `${fits.count} fit${fits.count === 1 ? "" : "s"}`;
      write(`${cleared}[${prefix}] ${count} in ${clock((now() - started) / 1000)}\n`);
    },
  };
}
