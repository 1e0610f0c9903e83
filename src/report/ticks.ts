/**
 * Axis ticks for the reports' figures (issue 36): the one `ticks` that report.html's ECDFs and
 * bars (`synthesis/report_html.ts`) and the studies' figures (`studies/figure_svg.ts`) call. The
 * steps are 1, 2 or 5 × 10^k on a linear axis, powers of ten on a log one. The two linear rules
 * are kept as their figures drew them (the studies' SVGs are committed and compared byte for
 * byte); drawing both with one rule would move some of those figures' ticks.
 *
 * @module
 */

/**
 * How the ticks of [lo, hi] are placed:
 * - `log`: every power of ten from 10^⌊log₁₀ lo⌋ to 10^⌈log₁₀ hi⌉ (lo > 0);
 * - `inside` (report.html): about `count` ticks within [lo, hi], the step the first 1, 2, 5 or
 *   10 × 10^k at least (hi − lo) / count, each tick rounded to 12 significant digits and −0 as 0;
 *   [lo] alone when hi ≤ lo;
 * - `covering` (the studies' figures): from ⌊lo / step⌋ · step up to hi, the step the first 1,
 *   2, 5 or 10 × 10^k, with 10^k the decade of (hi − lo) / 4, that leaves at most 6 steps over
 *   [lo, hi].
 */
export type TickRule =
  | { readonly kind: "log" }
  | { readonly kind: "inside"; readonly count: number }
  | { readonly kind: "covering" };

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
 * assert.deepEqual(ticks(0, 1, { kind: "inside", count: 5 }), [0, 0.2, 0.4, 0.6, 0.8, 1]);
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
  if (rule.kind === "inside") {
    if (!(hi > lo)) return [lo];
    const raw = (hi - lo) / rule.count;
    const power = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((f) => f * power).find((s) => s >= raw) ?? 10 * power;
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
      out.push(Math.abs(t) < step * 1e-9 ? 0 : Number(t.toPrecision(12)));
    }
    return out;
  }
  const step = 10 ** Math.floor(Math.log10((hi - lo) / 4 || 1));
  const nice = [1, 2, 5, 10].map((f) => f * step).find((s) => (hi - lo) / s <= 6)!;
  for (let v = Math.floor(lo / nice) * nice; v <= hi + 1e-12; v += nice) out.push(v);
  return out;
}
