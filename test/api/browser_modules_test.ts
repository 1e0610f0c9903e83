/**
 * Issue 36: the web page draws with the very renderer and builders of report.html, as the server
 * serves them type-stripped under /web/report/: run from the served text, they draw the same SVG.
 *
 * @module
 */
import assert from "node:assert/strict";
import { REPORT_MODULES } from "../../src/api/browser_modules.ts";
import * as builders from "../../src/report/release_figures.ts";
import { figureSvg } from "../../src/report/svg.ts";

Deno.test("the served report modules draw what src/report draws", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_report_modules_" });
  try {
    for (const [path, source] of REPORT_MODULES) {
      assert.ok(path.startsWith("/web/report/"), path);
      await Deno.writeTextFile(`${dir}/${path.slice("/web/report/".length)}`, source);
    }
    const served: typeof builders = await import(`file://${dir}/release_figures.ts`);
    const svg: { figureSvg: typeof figureSvg } = await import(`file://${dir}/svg.ts`);
    const draw = (b: typeof builders) => [
      b.ecdfFigure("y", [
        b.ecdfSeries("confidential", b.CONFIDENTIAL, [3, 1, 2], "series confidential"),
        b.ecdfSeries("synthetic 1", b.syntheticColour(0), [2.5, 0.5], "series synthetic"),
      ]),
      b.boundsFigure([0.2, 0.9, 0.4], 1),
      b.weightsFigure([0.2, 0.9], [1, 0.5]),
      b.cellsFigure([{ cell: "A · f", lower: 1, estimate: 2, upper: 4 }], "mean"),
      b.marginalFigure("<v>", ["a", "b"], [0.25, 0.75], [0.5, 0.5], 2),
      b.intervalsFigure({ lower: -1, estimate: 0, upper: 2 }, { lower: 0, estimate: 1, upper: 3 }),
    ];
    const expected = draw(builders);
    assert.deepEqual(draw(served), expected);
    assert.deepEqual(draw(served).map(svg.figureSvg), expected.map(figureSvg));
    assert.ok(expected.map(figureSvg).every((s) => s.startsWith("<svg") && s.includes("<title>")));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
