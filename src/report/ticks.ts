/**
 * Axis ticks for the reports' figures (issue 36): the one `ticks`, called by the one SVG renderer
 * (`svg.ts`) that draws report.html's, the studies' and the web page's figures. The steps are 1, 2
 * or 5 × 10^k on a linear axis, powers of ten on a log one; the linear rule is the one the
 * studies' committed SVGs were drawn with (they are compared byte for byte).
 *
 * @module
 */

/**
 * How the ticks of [lo, hi] are placed:
 * - `log`: every power of ten from 10^⌊log₁₀ lo⌋ to 10^⌈log₁₀ hi⌉ (lo > 0);
 * - `covering`: from ⌊lo / step⌋ · step up to hi, the step the first 1, 2, 5 or 10 × 10^k, with
 *   10^k the decade of (hi − lo) / 4, that leaves at most 6 steps over [lo, hi].
 */
export type TickRule = { readonly kind: "log" } | { readonly kind: "covering" };

/**
 * The ticks of [lo, hi] under a rule.
 *
 * @param lo The low end of the axis.
 * @param hi The high end.
 * @param rule How the ticks are placed ({@linkcode TickRule}).
 * @returns The tick values, increasing.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ticks } from "./ticks.ts";
 * assert.deepEqual(ticks(2, 300, { kind: "log" }), [1, 10, 100, 1000]);
 * assert.deepEqual(ticks(0, 1, { kind: "covering" }), [0, 0.2, 0.4, 0.6000000000000001, 0.8, 1]);
 * ```
 */
export function ticks(lo: number, hi: number, rule: TickRule): number[] {
  const out: number[] = [];
  if (rule.kind === "log") {
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
    return out;
  }
  const step = 10 ** Math.floor(Math.log10((hi - lo) / 4 || 1));
  const nice = [1, 2, 5, 10].map((f) => f * step).find((s) => (hi - lo) / s <= 6)!;
  for (let v = Math.floor(lo / nice) * nice; v <= hi + 1e-12; v += nice) out.push(v);
  return out;
}
