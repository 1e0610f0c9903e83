import {
  FRONTIER_SETTINGS,
  type FrontierArm,
  frontierPlan,
  type FrontierResult,
  isReleased,
  NHANES_FILE,
  RECORD_MECHANISMS,
  runFrontier,
  withEarlierArms,
} from "../../src/studies/frontier.ts";
import {
  frontierCells,
  frontierWinners,
  recordGuarantee,
} from "../../src/studies/frontier_evidence.ts";
import {
  frontierDocument,
  frontierFiles,
  frontierMarkdown,
  type FrontierReport,
  frontierSvg,
  withFrontierDocument,
} from "../../src/studies/frontier_document.ts";
import assert from "node:assert/strict";
import { formatReport } from "../../src/studies/study_document.ts";

/** A released arm with the given S_pMSE and fit health (the other measures unset). */
function arm(
  mechanism: FrontierArm["mechanism"],
  epsilon: number,
  sPMSE: number | null,
  flagged = false,
): FrontierArm {
  return {
    file: "nhanes",
    mechanism,
    epsilon,
    m: 1,
    release: { epsilon, guarantee: "aDP", lipschitz: epsilon / 2, n: 100 },
    fits: 2,
    finalFit: { rhatMax: 1, essBulkMin: 1000, divergences: 0, flagged },
    metrics: {
      marginTvd: {},
      meanTvd: 0.1,
      maxTwoWayTvd: 0.1,
      pMSE: 0.01,
      sPMSE,
      separated: false,
      bias: { hi_chol: 1 },
      ciOverlap: 0.5,
      tableCoverage: 0.9,
      tableError: 2,
    },
  };
}

const SMALL = { ...FRONTIER_SETTINGS, files: [NHANES_FILE], epsilons: [5, 10], ms: [1] };

Deno.test("frontier evidence: the lowest S_pMSE among unflagged record syntheses wins each cell", () => {
  const result: FrontierResult = {
    study: "frontier",
    settings: SMALL,
    planned: 9,
    baselines: [{ file: "nhanes", n: 100, dropped: 0, values: { hi_chol: 10 } }],
    arms: [
      arm("sw", 5, 3),
      arm("lw-final", 5, 2, true), // flagged: does not count
      arm("censored", 5, 4),
      arm("censored-w", 5, 5),
      arm("histogram", 5, 0.1), // one outcome alone: not a record mechanism
      arm("sw", 10, 2),
      arm("lw-final", 10, 1.5),
      arm("censored", 10, null), // no S_pMSE (propensity fit failed): does not count
      { file: "nhanes", mechanism: "censored-w", epsilon: 10, m: 1, error: "not reached" },
    ],
  };
  const cells = frontierCells(result);
  assert.deepEqual(
    cells.map((c) => [c.epsilon, c.best, c.bestDP]),
    [[5, "sw", "censored"], [10, "lw-final", null]],
  );
  const winners = frontierWinners(cells);
  assert.deepEqual(winners.any, { sw: 1, "lw-final": 1 });
  assert.equal(winners.anyWinner, "sw"); // a tie goes to the earlier mechanism of the list
  assert.equal(winners.dpWinner, "censored");
  const markdown = frontierMarkdown(withFrontierDocument(result, { nhanes: "x.svg" }), "");
  assert.match(markdown.split("\n## NHANES")[0], /Where aDP is allowed: \*\*SW\*\*/);
  assert.ok(!markdown.includes("Partial run"));
  assert.match(markdown, /\n\| Censor w \| 10 \| 1 \| not reached: not reached \|{11}\n/);
  assert.match(markdown, /\n!\[NHANES: utility against ε\]\(x\.svg\)\n/);
  assert.ok(markdown.endsWith("the others aDP.\n"), "no footer: one closing newline");
  // A partial run says so before the recommendation.
  const partial = frontierMarkdown(
    withFrontierDocument({ ...result, planned: 12 }, { nhanes: "x.svg" }),
    "---\nf",
  );
  assert.match(partial, /_\n\n> \*\*Partial run: 9 of 12 arms\.\*\* .*\n\n## Recommendation\n/);
  assert.ok(partial.endsWith("the others aDP.\n\n---\nf\n"));
});

Deno.test("frontier: a reduced run releases every planned arm with its measures and figure", async () => {
  const settings = {
    ...SMALL,
    files: [{ ...NHANES_FILE, every: 40 }],
    mechanisms: ["sw", "censored", "histogram", "laplace-table"] as const,
    // ε = 20: SW meets the cap in fewer refits than at ε = 5 (issue 36: 10 → 6 CPU s); the
    // claims are the arms, their measures and the resumed run, not the calibration.
    epsilons: [20],
    draws: 200,
    chains: 2,
    warmup: 150,
  };
  const { result } = await runFrontier(settings);
  assert.equal(result.arms.length, frontierPlan(settings).length);
  assert.deepEqual(result.arms.map((a) => a.mechanism), [
    "sw",
    "censored",
    "histogram",
    "laplace-table",
  ]);
  const released = result.arms.filter(isReleased);
  const censored = released.find((a) => a.mechanism === "censored")!;
  assert.equal(censored.release.guarantee, "DP");
  assert.ok(Math.abs(censored.release.epsilon - 20) < 1e-12);
  assert.ok(censored.metrics.sPMSE! > 0 && censored.metrics.meanTvd! >= 0);
  assert.ok(Number.isFinite(censored.metrics.bias.hi_chol));
  const table = released.find((a) => a.mechanism === "laplace-table")!;
  assert.equal(table.release.guarantee, "DP");
  assert.ok(table.metrics.tableError! > 0);
  assert.equal(result.baselines[0].n, 195);
  // A later run resumes from this result's arms (a committed partial run) without computing any.
  const empty = { get: () => Promise.resolve(undefined), set: () => Promise.resolve() };
  const resumed = await runFrontier(settings, {
    cache: withEarlierArms(empty, result),
    only: () => false,
  });
  assert.deepEqual(resumed.result.arms, result.arms);
  const svg = frontierSvg(result, "nhanes");
  assert.match(svg, /^<svg xmlns/);
  assert.match(svg, /<path d="M/);
});

const DIR = new URL("../../docs/studies/", import.meta.url);

Deno.test("frontier: the committed report is what its committed JSON renders to, the document decided again", async () => {
  const committed = JSON.parse(
    await Deno.readTextFile(new URL("frontier.json", DIR)),
  ) as FrontierReport;
  const figures = { nhanes: "frontier_nhanes.svg", cps1988: "frontier_cps1988.svg" };
  assert.deepEqual(committed.document, formatReport(frontierDocument(committed, figures)));
  const markdown = await Deno.readTextFile(new URL("frontier.md", DIR));
  const footer = markdown.slice(markdown.lastIndexOf("\n---\n") + 1).trimEnd();
  const files = frontierFiles(committed, footer);
  for (const name of ["frontier.json", "frontier.md", "frontier.html", "frontier_nhanes.svg"]) {
    assert.equal(files.get(name), await Deno.readTextFile(new URL(name, DIR)), name);
  }
});

Deno.test("a record mechanism's guarantee is its privacy map's in the mechanism registry", () => {
  assert.deepEqual(RECORD_MECHANISMS, ["sw", "lw-final", "weighted-e", "censored-w", "censored"]);
  assert.deepEqual(RECORD_MECHANISMS.map(recordGuarantee), ["aDP", "aDP", "aDP", "DP", "DP"]);
  assert.throws(
    () => recordGuarantee("laplace-table"),
    /Invalid mechanism: unknown "laplace-table"/,
  );
});
