/**
 * The report of a frontier result (`frontier.ts`) as data (issue 25): the recommendation as
 * `frontier_evidence.ts` decides it, then per file its baseline, figure and every arm's numbers,
 * rendered through `frontier_template.ts` to `docs/studies/frontier.md`.
 *
 * @module
 */
import type { FrontierArm, FrontierFailure, FrontierFile, FrontierResult } from "./frontier.ts";
import { isReleased, MECHANISM_LABELS } from "./frontier.ts";
import { type FrontierCell, frontierCells, frontierWinners } from "./frontier_evidence.ts";
import * as T from "./frontier_template.ts";
import { percent, significant } from "../report/format.ts";
import { fillTemplate, renderStudy, type StudyDocument } from "./study_document.ts";

/** A frontier result with its report's document (the JSON file). */
export type FrontierReport = FrontierResult & { readonly document: StudyDocument };
/** The SVG file name of each file's figure, by file key. */
type Figures = Readonly<Record<string, string>>;

const pct = (share: number) => percent(share, 0);
const label = (m: string | null) =>
  m === null ? "none" : MECHANISM_LABELS[m as keyof typeof MECHANISM_LABELS];
const tally = (counts: Record<string, number>) =>
  Object.entries(counts).map(([k, v]) => `${label(k)} ${v}`).join(", ");

/** A fragment of the template filled with values. */
function fragment(template: string, values: Record<string, string>): string {
  return fillTemplate(template, { verdicts: [], values, tables: {}, figures: {} });
}

/** A file's binary outcome (two levels) and skewed amount (lognormal), if any. */
const outcomesOf = (file: FrontierFile) => ({
  binary: file.outcomes.find((o) => file.levels[o.name]?.length === 2)?.name,
  skewed: file.outcomes.find((o) => o.model === "lognormal")?.name,
});

/** An arm's cells; an arm that was not reached has four (its error last). */
function armCells(arm: FrontierArm | FrontierFailure, file: FrontierFile): string[] {
  const head = [MECHANISM_LABELS[arm.mechanism], `${arm.epsilon}`, `${arm.m}`];
  if (!isReleased(arm)) return [...head, `not reached: ${arm.error.replace(/\|/g, "/")}`];
  const { binary, skewed } = outcomesOf(file);
  const [f, t, r] = [arm.finalFit, arm.metrics, arm.release];
  const amount = skewed === undefined || t.bias[skewed] === undefined ? null : 100 * t.bias[skewed];
  const fit = f?.flagged
    ? `**flagged** (${f.divergences} div., R̂ ${significant(f.rhatMax, 4)})`
    : "ok";
  return [...head, significant(r.epsilon), r.guarantee, significant(r.lipschitz), `${arm.fits}`]
    .concat([f === null ? "–" : fit, `${significant(t.sPMSE)}${t.separated ? " (sep.)" : ""}`])
    .concat([significant(t.meanTvd), binary === undefined ? "–" : significant(t.bias[binary], 2)])
    .concat([skewed === undefined ? "–" : significant(amount, 3), significant(t.ciOverlap)])
    .concat([significant(t.tableCoverage, 2), significant(t.tableError, 2)]);
}

/** A file's arm table as markdown; a row with fewer cells ends in empty ones (`||…`). */
function armTable(result: FrontierResult, file: FrontierFile): string {
  const { binary, skewed } = outcomesOf(file);
  const header = T.frontierArmsHeader(binary, skewed);
  const rows = result.arms.filter((a) => a.file === file.key).map((a) => armCells(a, file));
  const line = (cells: string[]) =>
    `| ${cells.join(" | ")} ${"|".repeat(Math.max(1, header.length - cells.length))}`;
  return [header, header.map(() => "---"), ...rows].map(line).join("\n");
}

/** The binary outcome's bias of a cell's best arm, e.g. "hi_chol −0.56", or "–". */
function bestBias(result: FrontierResult, { file, m, epsilon, best }: FrontierCell): string {
  const arm = result.arms.filter(isReleased).find((a) =>
    a.file === file && a.m === m && a.epsilon === epsilon && a.mechanism === best
  );
  const { binary } = outcomesOf(result.settings.files.find((f) => f.key === file)!);
  const bias = arm === undefined || binary === undefined ? undefined : arm.metrics.bias[binary];
  return bias === undefined ? "–" : `${binary} ${significant(bias, 2)}`;
}

/** A file's values, named `KEY.NAME`. */
function fileValues(result: FrontierResult, file: FrontierFile, figures: Figures) {
  const baseline = result.baselines.find((b) => b.file === file.key)!;
  const [leak, dropped] = [baseline.designLeakage, `${baseline.dropped}`];
  const values: Record<string, string> = {
    label: file.label,
    data: file.data,
    every: file.every === 1 ? "record" : `${file.every}th record`,
    n: `${baseline.n}`,
    dropped: baseline.dropped > 0 ? fragment(T.FRONTIER_DROPPED, { dropped }) : "",
    outcomes: file.outcomes.map((o) => `${o.name} (${o.model})`).join(", "),
    public: file.public.join(", "),
    confidential: Object.entries(baseline.values).map(([k, v]) => `${k} ${significant(v, 4)}`).join(
      ", ",
    ),
    leakage: leak === undefined ? "" : fragment(T.FRONTIER_LEAKAGE, {
      outcome: leak.outcome,
      publicOnly: pct(leak.publicOnly),
      public: file.public.join(" and "),
      withWeight: pct(leak.withWeight),
      withDesign: pct(leak.withDesign),
    }),
    figure: figures[file.key],
    arms: armTable(result, file),
  };
  return Object.entries(values).map(([name, value]) => [`${file.key}.${name}`, value]);
}

/**
 * The document of a result.
 *
 * @param result The result.
 * @param figures The SVG file name of each file's figure (by file key).
 * @returns The document; its verdicts are empty (the recommendation is no comparison with a paper).
 */
export function frontierDocument(result: FrontierResult, figures: Figures): StudyDocument {
  const cells = frontierCells(result);
  const winners = frontierWinners(cells);
  const [done, planned] = [`${result.arms.length}`, `${result.planned}`];
  const values: Record<string, string> = {
    partial: result.arms.length < result.planned
      ? fragment(T.FRONTIER_PARTIAL, { done, planned })
      : "",
    anyWinner: label(winners.anyWinner),
    anyWins: `${winners.anyWinner === null ? 0 : winners.any[winners.anyWinner]}`,
    cellCount: `${cells.length}`,
    anyTally: tally(winners.any),
    dpWinner: label(winners.dpWinner),
    dpTally: tally(winners.dp) || "none released",
    ...Object.fromEntries(result.settings.files.flatMap((f) => fileValues(result, f, figures))),
  };
  const rows = cells.map((c) =>
    [c.file, `${c.m}`, `${c.epsilon}`, `${label(c.best)} (${significant(c.bestSPMSE)})`]
      .concat([bestBias(result, c), `${label(c.bestDP)} (${significant(c.bestDPSPMSE)})`])
  );
  const header = T.FRONTIER_CELLS_HEADER;
  return { verdicts: [], values, tables: { cells: { header, rows } }, figures: {} };
}

/**
 * The result with its document, decided again from the rest (any document it held is replaced).
 *
 * @param result The result.
 * @param figures The SVG file name of each file's figure (by file key).
 * @returns The result, its keys in the order of the JSON: the document before the arms.
 */
export function withFrontierDocument(result: FrontierResult, figures: Figures): FrontierReport {
  const { study, settings, planned, baselines, arms } = result;
  return { study, settings, planned, baselines, document: frontierDocument(result, figures), arms };
}

/**
 * The markdown of a result with its document.
 *
 * @param report The result with its document ({@linkcode withFrontierDocument}).
 * @param footer The wall-time footer (machine-dependent), or "".
 * @returns The markdown text, ending in a newline.
 */
export function frontierMarkdown(report: FrontierReport, footer: string): string {
  const template = T.frontierTemplate(report.settings.files.map((f) => f.key));
  return footer === ""
    ? `${fillTemplate(template, report.document)}\n`
    : renderStudy(template, report.document, footer);
}
