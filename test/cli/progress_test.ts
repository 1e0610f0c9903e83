import assert from "node:assert/strict";
import { LOG_INTERVAL_MS, progress } from "../../src/cli/progress.ts";
import { FitTracker } from "../../src/synthesis/fit_progress.ts";
import { playTerminal } from "./_terminal.ts";

/** `[prefix name]` of a progress row, or null for any other row. */
function fitOf(row: string): string | null {
  return /^\[fit ([^\]]+)\]/.exec(row)?.[1] ?? null;
}

/** Five conditionals fitted at once through two stages, the first one also refitted. */
function fiveOutcomeRun(
  update: (stage: string, done: number, total: number, conditional?: string) => void,
  tick: () => void,
): number {
  const outcomes = ["a", "b", "c", "d", "e"];
  let updates = 0;
  for (
    const [stage, total] of [["unweighted", 1000], ["unweighted", 1500], ["lw", 1000]] as const
  ) {
    // The conditionals run at different speeds: each ends its stage at its own time.
    const finished = new Set<string>();
    for (let step = 1; finished.size < outcomes.length; step++) {
      for (const [j, outcome] of outcomes.entries()) {
        if (finished.has(outcome)) continue;
        const done = Math.min(total, Math.floor((step * 10) / (1 + j * 0.25) / 10) * 10);
        if (done === total) finished.add(outcome);
        tick();
        update(stage, done, total, outcome);
        updates++;
      }
    }
  }
  return updates;
}

Deno.test("a terminal shows one line per running fit, redrawn in place, then a summary", () => {
  const written: string[] = [];
  let clock = 0;
  const shown = progress("fit", {
    terminal: true,
    write: (t) => written.push(t),
    now: () => clock,
    columns: 0,
  });
  const updates = fiveOutcomeRun(shown.update, () => (clock += 37));
  shown.close();
  let most = 0;
  const perFit = new Map<string, number>();
  const final = playTerminal(written.join(""), (screen) => {
    const names = screen.map(fitOf).filter((name) => name !== null);
    most = Math.max(most, names.length);
    for (const name of new Set(names)) {
      const count = names.filter((n) => n === name).length;
      perFit.set(name, Math.max(perFit.get(name) ?? 0, count));
    }
  });
  assert.equal(most, 5, "all five fits on the screen at once, and never more");
  assert.deepEqual([...perFit.keys()].sort(), ["a", "b", "c", "d", "e"]);
  assert.ok([...perFit.values()].every((count) => count === 1), "one line per fit");
  assert.deepEqual(final.filter((row) => row !== "").map((row) => row.replace(/\d+:\d\d$/, "")), [
    "[fit] 15 fits in ",
  ]);
  // Redrawn at most every 100 ms unless a fit starts or finishes: not once per update.
  assert.ok(written.length < updates / 2, `${written.length} writes for ${updates} updates`);
});

Deno.test("a fit's terminal line: stage, iteration of total, elapsed, time left; cut to the width", () => {
  const written: string[] = [];
  let clock = 0;
  const shown = progress("fit", {
    terminal: true,
    write: (t) => written.push(t),
    now: () => clock,
    columns: 40,
  });
  shown.update("lw calibration g=0.1518", 0, 1200, "education");
  clock = 12_000;
  shown.update("lw calibration g=0.1518", 600, 1200, "education");
  const wide = progress("fit", { terminal: true, write: (t) => written.push(t), now: () => clock });
  clock = 0;
  wide.update("lw", 0, 1200, "education");
  clock = 12_000;
  wide.update("lw", 600, 1200, "education");
  assert.equal(written[1], "\r\x1b[2K[fit education] lw calibration g=0.151…");
  assert.equal(written[1].length - "\r\x1b[2K".length, 39);
  assert.equal(written[3], "\r\x1b[2K[fit education] lw 50% (600/1200), 0:12 elapsed, 0:12 left");
  const one = progress("fbs", { terminal: true, write: (t) => written.push(t), now: () => 0 });
  one.update("unweighted", 5, 10);
  assert.equal(written.at(-1), "\r\x1b[2K[fbs] unweighted 50% (5/10), 0:00 elapsed, 0:00 left");
  one.end();
  assert.equal(written.at(-1), "\r\x1b[2K", "end() clears the line");
  one.end();
  assert.equal(written.at(-1), "", "and nothing more once cleared");
});

Deno.test("end() clears every line of the fits; the next update draws them again", () => {
  const written: string[] = [];
  const shown = progress("fit", {
    terminal: true,
    write: (t) => written.push(t),
    now: () => 0,
    columns: 0,
  });
  for (const outcome of ["a", "b", "c"]) shown.update("lw", 0, 100, outcome);
  assert.deepEqual(playTerminal(written.join("")).map(fitOf), ["a", "b", "c"]);
  shown.end();
  written.push("a note\n");
  assert.deepEqual(playTerminal(written.join("")).filter((row) => row !== ""), ["a note"]);
  shown.update("lw", 50, 100, "b");
  assert.deepEqual(playTerminal(written.join("")).map(fitOf), [null, "a", "b", "c"]);
});

Deno.test("a log gets a line per finished stage and periodic summaries, not one per update", () => {
  const written: string[] = [];
  let clock = 0;
  const shown = progress("fit", {
    terminal: false,
    write: (t) => written.push(t),
    now: () => clock,
  });
  fiveOutcomeRun(shown.update, () => (clock += 37));
  shown.close();
  const text = written.join("");
  assert.ok(!text.includes("\r") && !text.includes("\x1b"), "plain text");
  const lines = text.trimEnd().split("\n");
  const done = lines.filter((line) => / done, /.test(line));
  // 0.037 s per update: 97 s, so one periodic line of the running fits every 10 s.
  const periodic = lines.filter((line) => /^\[fit\] \d+:\d\d: /.test(line));
  assert.deepEqual(done.map((line) => line.replace(/, \d+:\d\d$/, "")), [
    "[fit] unweighted: done, 5 fits",
    "[fit] unweighted: done, 5 fits",
    "[fit] lw: done, 5 fits",
  ]);
  assert.ok(periodic.length >= 8 && periodic.length <= 10, lines.join("\n"));
  assert.match(
    periodic[0],
    /^\[fit\] 0:1\d: a unweighted \d+%, b unweighted \d+%, .*e unweighted \d+%; 0:\d\d left$/,
  );
  assert.match(lines.at(-1)!, /^\[fit\] 15 fits in 1:37$/);
  assert.equal(lines.length, done.length + periodic.length + 1);
});

Deno.test("a log's periodic lines thin out as the run grows: an hour is tens of lines", () => {
  const written: string[] = [];
  let clock = 0;
  const shown = progress("fit", {
    terminal: false,
    write: (t) => written.push(t),
    now: () => clock,
  });
  // One fit of an hour, reported every second.
  for (let done = 0; done <= 3600; done++) {
    clock = done * 1000;
    shown.update("lw", done, 3600);
  }
  const lines = written.join("").trimEnd().split("\n");
  assert.ok(lines.length >= 20 && lines.length <= 60, `${lines.length} lines`);
  assert.equal(lines.at(-1), "[fit] lw: done, 1 fit, 1:00:00");
  assert.ok(LOG_INTERVAL_MS >= 1000);
});

Deno.test("FitTracker: a refit under the same label, a new stage or a new total is a new fit", () => {
  let clock = 0;
  const fits = new FitTracker(() => clock);
  assert.equal(fits.update("unweighted", 10, 100, "a"), "start");
  clock = 1000;
  assert.equal(fits.update("unweighted", 20, 100, "a"), "progress");
  assert.equal(fits.update("unweighted", 100, 100, "a"), "finish");
  assert.equal(fits.update("unweighted", 100, 100, "a"), "progress", "a repeated end is no news");
  assert.equal(fits.update("unweighted", 10, 100, "a"), "start", "a refit from fewer iterations");
  assert.equal(fits.update("unweighted", 20, 150, "a"), "start", "a continuation: a new total");
  assert.equal(fits.update("lw", 20, 150, "a"), "start");
  assert.equal(fits.update("lw", 10, 100, "b"), "start");
  assert.equal(fits.count, 5);
  assert.deepEqual(fits.fits().map((fit) => [fit.conditional, fit.stage, fit.iteration]), [
    ["a", "lw", 20],
    ["b", "lw", 10],
  ]);
});

Deno.test("FitTracker: elapsed and time left at the fit's rate so far; none before or after", () => {
  let clock = 5_000;
  const fits = new FitTracker(() => clock);
  fits.update("lw", 0, 400);
  assert.equal(fits.fits()[0].remainingSeconds, null, "no rate before the first iteration");
  clock = 15_000;
  fits.update("lw", 100, 400);
  assert.deepEqual(fits.fits()[0], {
    stage: "lw",
    conditional: null,
    iteration: 100,
    total: 400,
    elapsedSeconds: 10,
    remainingSeconds: 30,
  });
  clock = 25_000; // no report for 10 s: the estimate counts the time since down
  assert.equal(fits.fits()[0].remainingSeconds, 20);
  assert.equal(fits.fits()[0].elapsedSeconds, 20);
  fits.update("lw", 400, 400);
  clock = 99_000;
  assert.equal(fits.fits()[0].remainingSeconds, null);
  assert.equal(fits.fits()[0].elapsedSeconds, 20, "a finished fit's time stops");
  assert.equal(fits.elapsedSeconds, 94);
});
