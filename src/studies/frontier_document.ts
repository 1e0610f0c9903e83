/**
 * The report of a frontier result (`frontier.ts`) as data (issue 25): the recommendation as
 * `frontier_evidence.ts` decides it, then per file its baseline, figure and every arm's numbers,
 * rendered through `templates/frontier.md` (a `templates/frontier_file.md` section per file) to
 * `docs/studies/frontier.md`, with its figure per file ({@linkcode frontierSvg}) and the files a
 * result renders to ({@linkcode frontierFiles}).
 *
 * @module
 */
import {
  type FrontierArm,
  type FrontierFailure,
  type FrontierFile,
  type FrontierMechanism,
  type FrontierResult,
  isReleased,
  MECHANISM_LABELS,
} from "./frontier_settings.ts";
import { type FrontierCell, frontierCells, frontierWinners } from "./frontier_evidence.ts";
import type { Report, StudyDocument, Value } from "./study_document.ts";
import { formatReport, fragment, joined, num, renderStudy, text } from "./study_document.ts";
import type { Series } from "../report/figure.ts";
import { figureSvg } from "../report/svg.ts";
import frontierText from "./templates/frontier.md" with { type: "text" };
import frontierFileText from "./templates/frontier_file.md" with { type: "text" };

/** The report, with `{{files}}` where the file sections go (the file's final newline dropped). */
const FRONTIER_TEMPLATE = frontierText.replace(/\n$/, "");

/** One file's section; `{{file.NAME}}` becomes `{{KEY.NAME}}` (the file's final newline dropped). */
const FRONTIER_FILE_TEMPLATE = frontierFileText.replace(/\n$/, "");

/** The notice of a partial run (`--partial`), followed by a blank line. */
const FRONTIER_PARTIAL =
  `> **Partial run: {{done}} of {{planned}} arms.** The verdicts below read only the arms done so far; \`deno task frontier\` resumes the rest from its cache.

`;

/** The clause on records dropped for a missing value. */
const FRONTIER_DROPPED = " ({{dropped}} dropped for a missing value)";

/** The survey design columns' held-out check, followed by a blank line. */
const FRONTIER_LEAKAGE =
  `Survey design columns: on held-out records {{outcome}} is predicted right {{publicOnly}} of the time from {{public}}, {{withWeight}} adding the weight's ventile, {{withDesign}} adding stratum and PSU as well (\`src/stats/held_out.ts\`): released unsynthesised beside the synthetic records, the design columns would reveal what the mechanism protects, so a default release leaves them out.

`;

/** The header of the table of each cell's best mechanisms. */
const FRONTIER_CELLS_HEADER: readonly string[] = ["file", "m", "ε", "best (any guarantee)"]
  .concat(["its binary outcome's bias (points)", "best pure DP"]);

/**
 * The header of a file's arm table.
 *
 * @param binary The file's binary outcome.
 * @param amount The file's skewed amount.
 */
function frontierArmsHeader(binary = "binary", amount = "amount"): string[] {
  return ["mechanism", "ε target", "m", "ε", "guarantee", "Δ", "fits", "final fit", "S_pMSE"]
    .concat(["mean TVD", `${binary} bias (points)`, `${amount} mean bias (%)`, "CI overlap"])
    .concat(["table coverage", "table error (points)"]);
}

/**
 * The template of a result whose settings hold these files.
 *
 * @param keys The files' keys, in the settings' order.
 * @returns {@linkcode FRONTIER_TEMPLATE} with a {@linkcode FRONTIER_FILE_TEMPLATE} per file.
 */
function frontierTemplate(keys: readonly string[]): string {
  const sections = keys.map((key) => FRONTIER_FILE_TEMPLATE.replaceAll("{{file.", `{{${key}.`));
  return FRONTIER_TEMPLATE.replace("{{files}}", () => sections.join(""));
}

/** A frontier result with its report's document (the JSON file). */
export type FrontierReport = FrontierResult & { readonly document: StudyDocument };
/** The SVG file name of each file's figure, by file key. */
type Figures = Readonly<Record<string, string>>;

const pct = (share: number) => num.percent(share, 0);
const label = (m: string | null) =>
  m === null ? "none" : MECHANISM_LABELS[m as keyof typeof MECHANISM_LABELS];
const tally = (counts: Record<string, number>) =>
  joined(Object.entries(counts).map(([k, v]) => text`${label(k)} ${num.plain(v)}`), ", ");

/** A file's binary outcome (two levels) and skewed amount (lognormal), if any. */
const outcomesOf = (file: FrontierFile) => ({
  binary: file.outcomes.find((o) => file.levels[o.name]?.length === 2)?.name,
  skewed: file.outcomes.find((o) => o.model === "lognormal")?.name,
});

/** An arm's cells; an arm that was not reached has four (its error last). */
function armCells(arm: FrontierArm | FrontierFailure, file: FrontierFile): Value[] {
  const head = [MECHANISM_LABELS[arm.mechanism], num.plain(arm.epsilon), num.plain(arm.m)];
  if (!isReleased(arm)) return [...head, `not reached: ${arm.error.replace(/\|/g, "/")}`];
  const { binary, skewed } = outcomesOf(file);
  const [f, t, r] = [arm.finalFit, arm.metrics, arm.release];
  const amount = skewed === undefined || t.bias[skewed] === undefined ? null : 100 * t.bias[skewed];
  const fit = f?.flagged
    ? text`**flagged** (${num.plain(f.divergences)} div., R̂ ${num.significant(f.rhatMax, 4)})`
    : "ok";
  const cells: Value[] = [...head, num.significant(r.epsilon), r.guarantee];
  return cells.concat([num.significant(r.lipschitz), num.plain(arm.fits)])
    .concat([
      f === null ? "–" : fit,
      text`${num.significant(t.sPMSE)}${t.separated ? " (sep.)" : ""}`,
    ])
    .concat([
      num.significant(t.meanTvd),
      binary === undefined ? "–" : num.significant(t.bias[binary], 2),
    ])
    .concat([skewed === undefined ? "–" : num.significant(amount, 3), num.significant(t.ciOverlap)])
    .concat([num.significant(t.tableCoverage, 2), num.significant(t.tableError, 2)]);
}

/** A file's arm table as markdown; a row with fewer cells ends in empty ones (`||…`). */
function armTable(result: FrontierResult, file: FrontierFile): Value {
  const { binary, skewed } = outcomesOf(file);
  const header = frontierArmsHeader(binary, skewed);
  const rows = result.arms.filter((a) => a.file === file.key).map((a) => armCells(a, file));
  const line = (cells: readonly Value[]) =>
    text`| ${joined(cells, " | ")} ${"|".repeat(Math.max(1, header.length - cells.length))}`;
  return joined([header, header.map(() => "---"), ...rows].map(line), "\n");
}

/** The binary outcome's bias of a cell's best arm, e.g. "hi_chol −0.56", or "–". */
function bestBias(result: FrontierResult, { file, m, epsilon, best }: FrontierCell): Value {
  const arm = result.arms.filter(isReleased).find((a) =>
    a.file === file && a.m === m && a.epsilon === epsilon && a.mechanism === best
  );
  const { binary } = outcomesOf(result.settings.files.find((f) => f.key === file)!);
  const bias = arm === undefined || binary === undefined ? undefined : arm.metrics.bias[binary];
  return bias === undefined || binary === undefined
    ? "–"
    : text`${binary} ${num.significant(bias, 2)}`;
}

/** A file's values, named `KEY.NAME`. */
function fileValues(result: FrontierResult, file: FrontierFile, figures: Figures) {
  const baseline = result.baselines.find((b) => b.file === file.key)!;
  const [leak, dropped] = [baseline.designLeakage, num.plain(baseline.dropped)];
  const values: Record<string, Value> = {
    label: file.label,
    data: file.data,
    every: file.every === 1 ? "record" : `${file.every}th record`,
    n: num.plain(baseline.n),
    dropped: baseline.dropped > 0 ? fragment(FRONTIER_DROPPED, { dropped }) : "",
    outcomes: file.outcomes.map((o) => `${o.name} (${o.model})`).join(", "),
    public: file.public.join(", "),
    confidential: joined(
      Object.entries(baseline.values).map(([k, v]) => text`${k} ${num.significant(v, 4)}`),
      ", ",
    ),
    leakage: leak === undefined ? "" : fragment(FRONTIER_LEAKAGE, {
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
export function frontierDocument(result: FrontierResult, figures: Figures): Report {
  const cells = frontierCells(result);
  const winners = frontierWinners(cells);
  const [done, planned] = [num.plain(result.arms.length), num.plain(result.planned)];
  const values: Record<string, Value> = {
    partial: result.arms.length < result.planned
      ? fragment(FRONTIER_PARTIAL, { done, planned })
      : "",
    anyWinner: label(winners.anyWinner),
    anyWins: num.plain(winners.anyWinner === null ? 0 : winners.any[winners.anyWinner]),
    cellCount: num.plain(cells.length),
    anyTally: tally(winners.any),
    dpWinner: label(winners.dpWinner),
    dpTally: Object.keys(winners.dp).length === 0 ? "none released" : tally(winners.dp),
    ...Object.fromEntries(result.settings.files.flatMap((f) => fileValues(result, f, figures))),
  };
  const rows = cells.map((c): Value[] => [
    c.file,
    num.plain(c.m),
    num.plain(c.epsilon),
    text`${label(c.best)} (${num.significant(c.bestSPMSE)})`,
    bestBias(result, c),
    text`${label(c.bestDP)} (${num.significant(c.bestDPSPMSE)})`,
  ]);
  const header = FRONTIER_CELLS_HEADER;
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
  const document = formatReport(frontierDocument(result, figures));
  return { study, settings, planned, baselines, document, arms };
}

/**
 * The markdown of a result with its document.
 *
 * @param report The result with its document ({@linkcode withFrontierDocument}).
 * @param footer The wall-time footer (machine-dependent), or "".
 * @returns The markdown text, ending in a newline.
 */
export function frontierMarkdown(report: FrontierReport, footer: string): string {
  const template = frontierTemplate(report.settings.files.map((f) => f.key));
  return renderStudy(template, report.document, footer);
}

/** The files a result renders to, by name. */
export function frontierFiles(result: FrontierResult, footer: string): Map<string, string> {
  const figures = Object.fromEntries(
    result.settings.files.map((f) => [f.key, `frontier_${f.key}.svg`]),
  );
  const report = withFrontierDocument(result, figures);
  const markdown = frontierMarkdown(report, footer);
  const files = new Map<string, string>([
    ["frontier.json", JSON.stringify(report, null, 2) + "\n"],
    ["frontier.md", markdown],
  ]);
  const svgs = result.settings.files.map((f) => frontierSvg(result, f.key));
  result.settings.files.forEach((f, j) => files.set(figures[f.key], svgs[j]));
  // The HTML page: the figures inline, then the markdown's text as preformatted tables.
  const escaped = markdown.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  files.set(
    "frontier.html",
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>ppsynth: utility against ε</title></head>\n` +
      `<body>\n<h1>Utility against ε on real files</h1>\n${
        svgs.join("\n")
      }\n<pre>${escaped}</pre>\n</body></html>\n`,
  );
  return files;
}

/** Colour of each mechanism (Okabe–Ito, distinguishable with colour-blindness). */
const COLORS: Readonly<Record<FrontierMechanism, string>> = {
  "sw": "#0072B2",
  "lw-final": "#D55E00",
  "weighted-e": "#CC79A7",
  "censored-w": "#009E73",
  "censored": "#56B4E9",
  "histogram": "#E69F00",
  "laplace-table": "#000000",
};

/** The right panel's measure of an arm on a file, or NaN where the arm does not release it. */
export function headlineError(file: FrontierFile, arm: FrontierArm): number {
  if (file.table !== undefined) return arm.metrics.tableError ?? NaN;
  const skewed = file.outcomes.find((o) => o.model === "lognormal")?.name;
  const bias = skewed === undefined ? undefined : arm.metrics.bias[skewed];
  return bias === undefined ? NaN : 100 * Math.abs(bias);
}

/** The right panel's axis title for a file. */
export function headlineLabel(file: FrontierFile): string {
  if (file.table !== undefined) return `table: mean |cell error| of ${file.table.y} (points)`;
  const skewed = file.outcomes.find((o) => o.model === "lognormal")?.name ?? "amount";
  return `|mean bias| of ${skewed} (%)`;
}

/**
 * The figure of one file of a result: two panels and the legend.
 *
 * @param result A frontier result.
 * @param fileKey The file's key.
 * @returns An SVG document.
 */
export function frontierSvg(result: FrontierResult, fileKey: string): string {
  const file = result.settings.files.find((f) => f.key === fileKey)!;
  const arms = result.arms.filter(isReleased).filter((a) => a.file === fileKey);
  const seriesOf = (measure: (arm: FrontierArm) => number) =>
    result.settings.mechanisms.flatMap((mechanism) =>
      result.settings.ms.map((m): Series => ({
        label: `${MECHANISM_LABELS[mechanism]}, m = ${m}`,
        color: COLORS[mechanism],
        dashed: m !== 1,
        points: arms.filter((a) => a.mechanism === mechanism && a.m === m)
          .sort((a, b) => a.epsilon - b.epsilon)
          .map((a) => [a.epsilon, measure(a), a.finalFit?.flagged === true] as const),
      }))
    );
  const left = seriesOf((a) =>
    a.mechanism === "histogram" || a.finalFit === null ? NaN : a.metrics.sPMSE ?? NaN
  );
  const right = seriesOf((a) => headlineError(file, a));
  const axes = { xLabel: "ε (log scale)", logX: true, logY: true };
  return figureSvg({
    title: `${file.label}: utility against ε, per mechanism`,
    panels: [
      { ...axes, title: `${file.label}: S_pMSE`, yLabel: "S_pMSE (log scale)", series: left },
      {
        ...axes,
        title: `${file.label}: headline error`,
        yLabel: headlineLabel(file),
        series: right,
      },
    ],
    legend: result.settings.mechanisms.map((m) => [MECHANISM_LABELS[m], COLORS[m]] as const),
    caption: "solid: m = 1; dashed: m = 3 (ε is the total for the m datasets); hollow: final " +
      "fit flagged",
  }) + "\n";
}
