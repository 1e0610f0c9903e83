/**
 * A progress line on stderr: redrawn in place on a terminal, one line per tenth otherwise.
 *
 * @module
 */

/** Reports `done` of `total` steps of a named stage. */
export type ProgressFn = (done: number, total: number) => void;

/**
 * Creates a progress reporter for one stage of a command.
 *
 * @param stage A short label, e.g. "fit".
 */
export function progressLine(stage: string): ProgressFn {
  const encoder = new TextEncoder();
  const terminal = Deno.stderr.isTerminal();
  let lastTenth = -1;
  return (done, total) => {
    const fraction = total === 0 ? 1 : done / total;
    const percent = Math.floor(fraction * 100);
    if (terminal) {
      const end = done >= total ? "\n" : "";
      Deno.stderr.writeSync(encoder.encode(`\r[${stage}] ${percent}% (${done}/${total})${end}`));
      return;
    }
    const tenth = Math.floor(fraction * 10);
    if (tenth > lastTenth) {
      lastTenth = tenth;
      Deno.stderr.writeSync(encoder.encode(`[${stage}] ${percent}% (${done}/${total})\n`));
    }
  };
}
