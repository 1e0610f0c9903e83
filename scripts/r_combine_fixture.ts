/**
 * Records the project's own combining rules (`src/stats/partial_synthesis.ts` and
 * `src/survey/combine.ts`) on fixed inputs, for the R client's tests (issue 37): the R package's
 * `ppsynth_combine()` must give these numbers.
 *
 *     deno run --allow-read --allow-write scripts/r_combine_fixture.ts
 *
 * writes `clients/r/ppsynth/tests/testthat/fixtures/combine_expected.json`; with `--check` it
 * writes nothing and exits 1 when the committed file differs from a fresh recording
 * (`test/clients/r_client_test.ts` runs that).
 *
 * Numbers are JSON numbers in shortest round-trip form; a non-finite one is the string
 * "Infinity" or "NaN".
 *
 * @module
 */
import { combinePartialSynthesis } from "../src/stats/partial_synthesis.ts";
import { combineTables } from "../src/survey/combine.ts";
import type { SurveyTable } from "../src/survey/tables.ts";

/** The fixture's path. */
export const FIXTURE = new URL(
  "../clients/r/ppsynth/tests/testthat/fixtures/combine_expected.json",
  import.meta.url,
);

/** One estimand's inputs. */
interface EstimateCase {
  readonly name: string;
  readonly q: readonly number[];
  readonly u: readonly number[];
  readonly level: number;
}

const ESTIMATES: readonly EstimateCase[] = [
  { name: "the doc example", q: [1, 2, 3], u: [0.5, 0.5, 0.5], level: 0.95 },
  {
    name: "five prevalences, 90 %",
    q: [0.1234, 0.1301, 0.1188, 0.1276, 0.1222],
    u: [2.1e-5, 1.9e-5, 2.4e-5, 2.0e-5, 2.2e-5],
    level: 0.9,
  },
  { name: "equal estimates: b = 0, normal interval", q: [4, 4, 4], u: [1, 2, 3], level: 0.95 },
  { name: "one dataset", q: [7.5], u: [0.04], level: 0.95 },
  { name: "two datasets, wide between", q: [10, 30], u: [1, 1.5], level: 0.99 },
  {
    name: "small between (large df)",
    q: [100.01, 99.99, 100.02, 99.98],
    u: [4, 4.2, 3.9, 4.1],
    level: 0.95,
  },
];

/** Three 2 × 2 tables (grand total and margins left out), one cell's mean undefined in one. */
function tables(): SurveyTable[] {
  const counts = [[120, 80, 60, 40], [118, 83, 57, 42], [125, 77, 63, 35]];
  const countSEs = [[10, 8, 7, 6], [9.5, 8.2, 7.1, 6.4], [10.4, 7.7, 6.8, 5.9]];
  const means = [[0.21, 0.35, 0.12, 0.5], [0.19, 0.33, 0.14, NaN], [0.24, 0.36, 0.11, 0.47]];
  const meanSEs = [[0.03, 0.05, 0.04, 0.08], [0.031, 0.052, 0.043, NaN], [
    0.029,
    0.049,
    0.038,
    0.081,
  ]];
  return counts.map((count, l) => ({
    by: ["a", "b"] as const,
    labels: [["a1", "a1", "a2", "a2"], ["b1", "b2", "b1", "b2"]] as const,
    count: Float64Array.from(count),
    countSE: Float64Array.from(countSEs[l]),
    mean: Float64Array.from(means[l]),
    meanSE: Float64Array.from(meanSEs[l]),
  }));
}

/** A number as JSON: finite ones as numbers, others as "Infinity", "-Infinity" or "NaN". */
function num(x: number): number | string {
  return Number.isFinite(x) ? x : String(x);
}

/** The fixture's text, from the project's functions. */
export function fixtureText(): string {
  const estimates = ESTIMATES.map((c) => {
    const r = combinePartialSynthesis(c.q, c.u, c.level);
    return {
      ...c,
      expected: {
        estimate: num(r.estimate),
        between: num(r.between),
        within: num(r.within),
        variance: num(r.variance),
        se: num(r.se),
        df: num(r.df),
        lower: num(r.lower),
        upper: num(r.upper),
      },
    };
  });
  const input = tables();
  const combined = combineTables(input, 0.95);
  const kinds = ["count", "mean"] as const;
  const table = {
    level: 0.95,
    input: kinds.map((kind) => ({
      kind,
      q: input.map((t) => Array.from(t[kind], num)),
      se: input.map((t) => Array.from(t[`${kind}SE`], num)),
    })),
    expected: kinds.map((kind) => ({
      kind,
      estimate: Array.from(combined[kind], num),
      se: Array.from(combined[`${kind}SE`], num),
      df: Array.from(combined[`${kind}Df`], num),
      lower: Array.from(combined[`${kind}Lower`], num),
      upper: Array.from(combined[`${kind}Upper`], num),
    })),
  };
  return JSON.stringify(
    {
      source: "src/stats/partial_synthesis.ts combinePartialSynthesis, " +
        "src/survey/combine.ts combineTables",
      command: "deno run --allow-read --allow-write scripts/r_combine_fixture.ts",
      estimates,
      table,
    },
    null,
    2,
  ) + "\n";
}

if (import.meta.main) {
  const text = fixtureText();
  if (Deno.args.includes("--check")) {
    const committed = await Deno.readTextFile(FIXTURE);
    if (committed !== text) {
      console.error(`${FIXTURE.pathname} differs from a fresh recording; rerun the script`);
      Deno.exit(1);
    }
  } else {
    await Deno.writeTextFile(FIXTURE, text);
    console.error(`wrote ${FIXTURE.pathname}`);
  }
}
