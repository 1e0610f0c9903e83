import assert from "node:assert/strict";
import { progress } from "../../src/cli/progress.ts";

Deno.test("`progress()` on a terminal keeps one line across stages, with the time left", () => {
  const written: string[] = [];
  let clock = 0;
  const shown = progress("fit", {
    terminal: true,
    write: (t) => written.push(t),
    now: () => clock,
  });
  for (const stage of ["unweighted", "lw", "calibration"]) {
    for (let done = 0; done <= 100; done += 10) {
      clock += 500; // 0.5 s per tenth: 5 s per stage
      shown.update(stage, done, 100);
    }
  }
  shown.end();
  const text = written.join("");
  assert.ok(!text.includes("\n"), "no new line: one line redrawn in place");
  assert.equal(written.length, 34);
  assert.ok(written.every((t) => t.startsWith("\r\x1b[2K")));
  assert.equal(written[1], "\r\x1b[2K[fit unweighted] 10% (10/100), 0:05 left");
  assert.equal(written[12], "\r\x1b[2K[fit lw] 10% (10/100), 0:05 left");
  assert.equal(written.at(-2), "\r\x1b[2K[fit calibration] 100% (100/100)");
  assert.equal(written.at(-1), "\r\x1b[2K", "end() clears the line");
});

Deno.test("`progress()` into a log writes one line per tenth of each stage", () => {
  const written: string[] = [];
  const shown = progress("fbs", { terminal: false, write: (t) => written.push(t) });
  for (const stage of ["unweighted", "lw"]) {
    for (let done = 0; done <= 1000; done += 7) shown.update(stage, done, 1000);
  }
  shown.end();
  assert.equal(written.length, 2 * 10);
  assert.equal(written[0], "[fbs unweighted] 0% (0/1000)\n");
  assert.equal(written[10], "[fbs lw] 0% (0/1000)\n");
  assert.ok(written.every((t) => t.endsWith("\n") && !t.includes("\r")));
});
