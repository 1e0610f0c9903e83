/**
 * The frontier figure (`frontier.ts`): per file, utility against ε on a log axis, one line per
 * mechanism (solid m = 1, dashed m = 3), as an SVG string for the markdown and the HTML report.
 * Left: S_pMSE (log scale; 1 is indistinguishable from the confidential data) of the record
 * mechanisms. Right (log scale): the file's headline error — on a survey file the survey table's mean cell
 * error, else the skewed amount's relative mean bias — for every mechanism that releases it.
 *
 * @module
 */
import {
  type FrontierArm,
  type FrontierFile,
  type FrontierMechanism,
  type FrontierResult,
  isReleased,
  MECHANISM_LABELS,
} from "./frontier.ts";

/** One line of a panel. */
interface Series {
  readonly label: string;
  readonly color: string;
  readonly dashed: boolean;
  /** (ε, value, whether the arm's final fit was flagged: drawn hollow). */
  readonly points: readonly (readonly [number, number, boolean])[];
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

const WIDTH = 360;
const HEIGHT = 260;
const LEFT = 56;
const RIGHT = 12;
const TOP = 28;
const BOTTOM = 40;

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Round ticks of a linear or log10 range. */
function ticks(lo: number, hi: number, log: boolean): number[] {
  if (log) {
    const out: number[] = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
    return out;
  }
  const step = 10 ** Math.floor(Math.log10((hi - lo) / 4 || 1));
  const nice = [1, 2, 5, 10].map((f) => f * step).find((s) => (hi - lo) / s <= 6)!;
  const out: number[] = [];
  for (let v = Math.floor(lo / nice) * nice; v <= hi + 1e-12; v += nice) out.push(v);
  return out;
}

function label(v: number): string {
  return Math.abs(v) >= 1000 || (Math.abs(v) < 0.01 && v !== 0)
    ? v.toExponential(0)
    : String(Number(v.toPrecision(3)));
}

/** One panel at (x0, 0): axes, ticks, lines and points. */
function panel(
  x0: number,
  title: string,
  yLabel: string,
  xs: readonly number[],
  series: readonly Series[],
  logY: boolean,
): string {
  const ys = series.flatMap((s) => s.points.map(([, y]) => y)).filter((y) =>
    Number.isFinite(y) && (!logY || y > 0)
  );
  const parts = [`<g transform="translate(${x0},0)">`];
  parts.push(
    `<text x="${WIDTH / 2}" y="16" text-anchor="middle" font-weight="bold">${escape(title)}</text>`,
  );
  if (ys.length === 0) {
    parts.push(`<text x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle">no data</text></g>`);
    return parts.join("");
  }
  let lo = Math.min(...ys);
  let hi = Math.max(...ys);
  if (!logY) lo = Math.min(0, lo);
  if (hi === lo) hi = lo + 1;
  const yTicks = ticks(lo, hi, logY);
  lo = Math.min(lo, yTicks[0]);
  hi = Math.max(hi, yTicks[yTicks.length - 1]);
  const fy = (y: number) => {
    const t = logY
      ? (Math.log10(y) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))
      : (y - lo) / (hi - lo);
    return TOP + (1 - t) * (HEIGHT - TOP - BOTTOM);
  };
  const xlo = Math.log10(Math.min(...xs));
  const xhi = Math.log10(Math.max(...xs));
  const fx = (x: number) =>
    LEFT + ((Math.log10(x) - xlo) / (xhi - xlo || 1)) * (WIDTH - LEFT - RIGHT);
  parts.push(
    `<line x1="${LEFT}" y1="${HEIGHT - BOTTOM}" x2="${WIDTH - RIGHT}" y2="${
      HEIGHT - BOTTOM
    }" stroke="#444"/>`,
    `<line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${HEIGHT - BOTTOM}" stroke="#444"/>`,
  );
  for (const x of xs) {
    parts.push(
      `<text x="${fx(x).toFixed(1)}" y="${HEIGHT - BOTTOM + 14}" text-anchor="middle">${
        label(x)
      }</text>`,
    );
  }
  for (const y of yTicks) {
    const py = fy(y).toFixed(1);
    parts.push(
      `<line x1="${LEFT - 3}" y1="${py}" x2="${WIDTH - RIGHT}" y2="${py}" stroke="#ddd"/>`,
      `<text x="${LEFT - 5}" y="${py}" text-anchor="end" dominant-baseline="middle">${
        label(y)
      }</text>`,
    );
  }
  parts.push(
    `<text x="${(LEFT + WIDTH - RIGHT) / 2}" y="${
      HEIGHT - 8
    }" text-anchor="middle">ε (log scale)</text>`,
    `<text transform="translate(12,${
      (TOP + HEIGHT - BOTTOM) / 2
    }) rotate(-90)" text-anchor="middle">${escape(yLabel)}</text>`,
  );
  for (const s of series) {
    const points = s.points.filter(([, y]) => Number.isFinite(y) && (!logY || y > 0));
    if (points.length === 0) continue;
    const path = points.map(([x, y], j) =>
      `${j === 0 ? "M" : "L"}${fx(x).toFixed(1)},${fy(y).toFixed(1)}`
    )
      .join(" ");
    parts.push(
      `<path d="${path}" fill="none" stroke="${s.color}" stroke-width="1.6"${
        s.dashed ? ' stroke-dasharray="5,3"' : ""
      }><title>${escape(s.label)}</title></path>`,
    );
    for (const [x, y, flagged] of points) {
      parts.push(
        `<circle cx="${fx(x).toFixed(1)}" cy="${fy(y).toFixed(1)}" r="2.6" stroke="${s.color}" ` +
          `fill="${flagged ? "white" : s.color}"/>`,
      );
    }
  }
  parts.push("</g>");
  return parts.join("");
}

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
  const xs = result.settings.epsilons;
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
  const legendY = HEIGHT + 6;
  const legend = result.settings.mechanisms.map((mechanism, j) => {
    const x = 10 + (j % 4) * 180;
    const y = legendY + 16 * Math.floor(j / 4);
    return `<line x1="${x}" y1="${y}" x2="${x + 22}" y2="${y}" stroke="${
      COLORS[mechanism]
    }" stroke-width="2"/>` +
      `<text x="${x + 28}" y="${y}" dominant-baseline="middle">${
        escape(MECHANISM_LABELS[mechanism])
      }</text>`;
  }).join("");
  const height = legendY + 16 * Math.ceil(result.settings.mechanisms.length / 4) + 18;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${2 * WIDTH} ${height}" width="${
      2 * WIDTH
    }" height="${height}" font-family="sans-serif" font-size="11">`,
    `<title>${escape(file.label)}: utility against ε, per mechanism</title>`,
    panel(0, `${file.label}: S_pMSE`, "S_pMSE (log scale)", xs, left, true),
    panel(WIDTH, `${file.label}: headline error`, headlineLabel(file), xs, right, true),
    legend,
    `<text x="10" y="${
      height - 4
    }">solid: m = 1; dashed: m = 3 (ε is the total for the m datasets); hollow: final fit flagged</text>`,
    "</svg>",
  ].join("\n") + "\n";
}
