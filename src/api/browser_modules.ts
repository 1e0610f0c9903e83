/**
 * The report modules the web page runs (issue 36): `src/report`'s figure specs, their builders
 * and the one SVG renderer, served at `/web/report/NAME.ts` as JavaScript (their types stripped
 * once, at load), so that the page draws its figures with the very code that draws report.html's
 * and the studies'. They import only each other, by relative paths that resolve under
 * `/web/report/`.
 *
 * @module
 */
import { stripTypeScriptTypes } from "node:module";
import figure from "../report/figure.ts" with { type: "text" };
import format from "../report/format.ts" with { type: "text" };
import releaseFigures from "../report/release_figures.ts" with { type: "text" };
import svg from "../report/svg.ts" with { type: "text" };
import ticks from "../report/ticks.ts" with { type: "text" };

/**
 * URL path → the module as JavaScript: every module `release_figures.ts` and `svg.ts` import.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { REPORT_MODULES } from "./browser_modules.ts";
 * assert.ok(REPORT_MODULES.get("/web/report/svg.ts")!.includes("export function figureSvg("));
 * ```
 */
export const REPORT_MODULES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    "figure.ts": figure,
    "format.ts": format,
    "release_figures.ts": releaseFigures,
    "svg.ts": svg,
    "ticks.ts": ticks,
  }).map(([name, source]) => [`/web/report/${name}`, stripTypeScriptTypes(source)]),
);
