/**
 * Two results of one study compared verdict by verdict (issue 27: a study run with every fit on
 * the GPU's HMC against the committed run on the CPU's NUTS, the same seed and R),
 *
 *     deno run --allow-read bench/compare_studies.ts docs/studies/reweight.json /tmp/gpu/reweight.json
 *
 * For every verdict of the first result's document, by its quantity: each run's status, and where
 * both carry an interval, the difference of the intervals' centres over their combined half-width
 * √(h_a² + h_b²). A Monte Carlo interval is ours ± 2√2·SE (+ the paper's rounding,
 * `monteCarloInterval`), so a ratio above √2 is a difference beyond 4 combined SE (less where the
 * rounding widens the intervals); other intervals (ranges over the samples, bootstrap intervals)
 * are compared the same way, as a scale. A markdown table to stdout, then the counts: verdicts
 * with the same status, and ratios above √2.
 *
 * @module
 */
import type { Verdict } from "../src/studies/verdict.ts";

interface Result {
  readonly study: string;
  readonly replicates: number;
  readonly settings: { readonly sampler?: { readonly sampler?: string } };
  readonly document: { readonly verdicts: readonly Verdict[] };
}

const [first, second] = await Promise.all(
  Deno.args.slice(0, 2).map(async (path) => JSON.parse(await Deno.readTextFile(path)) as Result),
);
if (first === undefined || second === undefined) {
  throw new Error("Usage: compare_studies.ts A.json B.json");
}
if (first.study !== second.study || first.replicates !== second.replicates) {
  throw new Error(
    `Not the same study and R: ${first.study}/${first.replicates}, ` +
      `${second.study}/${second.replicates}`,
  );
}
const sampler = (r: Result) => r.settings.sampler?.sampler ?? "nuts";
const others = new Map(second.document.verdicts.map((v) => [v.quantity, v]));
console.log(
  `${first.study}, R = ${first.replicates}: ${sampler(first)} against ${sampler(second)}`,
);
console.log("");
console.log(
  `| verdict | ${sampler(first)} | ${sampler(second)} | difference / combined half-width |`,
);
console.log("|---|---|---|---:|");
let same = 0;
let compared = 0;
let beyond = 0;
for (const a of first.document.verdicts) {
  const b = others.get(a.quantity);
  if (b === undefined) continue;
  if (a.status === b.status) same++;
  let ratio = "–";
  if (a.interval && b.interval) {
    const centre = (i: readonly [number, number]) => (i[0] + i[1]) / 2;
    const half = (i: readonly [number, number]) => (i[1] - i[0]) / 2;
    const scale = Math.hypot(half(a.interval), half(b.interval));
    if (scale > 0) {
      const value = (centre(b.interval) - centre(a.interval)) / scale;
      compared++;
      if (Math.abs(value) > Math.SQRT2) beyond++;
      ratio = value.toFixed(2);
    }
  }
  console.log(`| ${a.quantity} | ${a.status}: ${a.ours} | ${b.status}: ${b.ours} | ${ratio} |`);
}
console.log("");
console.log(
  `${same} of ${first.document.verdicts.length} verdicts with the same status; ` +
    `${beyond} of ${compared} differences above √2 combined half-widths.`,
);
