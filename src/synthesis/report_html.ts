/**
 * The release report: first the release itself (mechanism, settings, ε, guarantee and neighbours,
 * Δ, m, n and the final fit's health: `release_summary.ts`), then the utility report (and, for
 * the owner, the risk report), as one self-contained HTML page: inline SVG plots and inline CSS,
 * no script and nothing fetched (its Content-Security-Policy is `default-src 'none'`), so the page
 * opens from a file on a machine with no network. The plots are figure specs
 * (`report/release_figures.ts`) drawn by the one SVG renderer (`report/svg.ts`), as the studies'
 * figures and the web page's are.
 *
 * Every text (variable names and levels are the data owner's) is escaped.
 *
 * @module
 */
import type { MechanismName } from "../mechanisms/mechanism.ts";
import { readable } from "../report/format.ts";
import {
  CONFIDENTIAL,
  ecdfFigure,
  type Interval,
  intervalsFigure,
  marginalFigure,
  syntheticColour,
} from "../report/release_figures.ts";
import { figureSvg } from "../report/svg.ts";
import { FIT_LIMITS, MECHANISM_DESCRIPTIONS, type ReleaseSummary } from "./release_summary.ts";
import type { RiskReport } from "./risk_report.ts";
import type {
  CategoricalVariableUtility,
  ModelUtility,
  NumericVariableUtility,
  TwoWayUtility,
  UtilityReport,
} from "./utility_report.ts";

/** Options of {@linkcode reportHtml}. */
export interface ReportHtmlOptions {
  /** The release the page is about: its first section. */
  readonly release: ReleaseSummary;
  /** The page's title (default "ppsynth release report"). */
  readonly title?: string;
  /** The identification risk report: confidential, include it only in the owner's page. */
  readonly risk?: RiskReport;
  /** A warning shown first, above the release (a release from a flagged fit). */
  readonly warning?: string;
}

/**
 * Escapes text for HTML element content and double- or single-quoted attribute values.
 *
 * @param text Any text.
 * @returns The text with & < > " ' as character references.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeHtml } from "./report_html.ts";
 * assert.equal(escapeHtml(`<b a="1">'&'</b>`), "&lt;b a=&quot;1&quot;&gt;&#39;&amp;&#39;&lt;/b&gt;");
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** A numeric variable's ECDFs: confidential on top, each synthetic dataset in its colour. */
function ecdfSvg(variable: NumericVariableUtility): string {
  const { probabilities, confidential, synthetic } = variable.ecdf;
  const series = (label: string, color: string, values: readonly number[], className: string) => ({
    label,
    color,
    step: true,
    marks: false,
    width: className.endsWith("confidential") ? 2.5 : 1.5,
    className,
    points: values.map((v, k) => [v, probabilities[k]] as const),
  });
  return figureSvg(ecdfFigure(variable.name, [
    series("confidential", CONFIDENTIAL, confidential, "series confidential"),
    ...synthetic.map((values, l) =>
      series(`synthetic ${l + 1}`, syntheticColour(l), values, "series synthetic")
    ),
  ]));
}

/** Two intervals on their union's scale, confidential above synthetic ("" unless finite). */
function intervalsSvg(confidential: Interval, synthetic: Interval): string {
  const ends = [confidential.lower, synthetic.lower, confidential.upper, synthetic.upper];
  if (![...ends, confidential.estimate, synthetic.estimate].every(Number.isFinite)) return "";
  return figureSvg(intervalsFigure(confidential, synthetic));
}

function table(head: readonly string[], rows: readonly (readonly string[])[], cls = ""): string {
  return `<table${cls ? ` class="${cls}"` : ""}><thead><tr>${
    head.map((h) => `<th>${h}</th>`).join("")
  }</tr></thead><tbody>${
    rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join("")}</tr>`).join("")
  }</tbody></table>`;
}

function numericSection(variable: NumericVariableUtility, m: number): string {
  const c = variable.confidential;
  const s = variable.mean.synthetic;
  const rows = (["mean", "median", "q15", "q90"] as const).map((key) => [
    { mean: "mean", median: "median", q15: "15th percentile", q90: "90th percentile" }[key],
    readable(c[key]),
    readable(s[key]),
    variable.byDataset.map((d) => readable(d.synthetic[key])).join(", "),
  ]);
  rows.push(
    [
      "ECDF max difference",
      "",
      readable(variable.mean.ecdfMax),
      variable.byDataset.map((d) => readable(d.ecdfMax)).join(", "),
    ],
    [
      "ECDF mean-squared difference",
      "",
      readable(variable.mean.ecdfMeanSquared),
      variable.byDataset.map((d) => readable(d.ecdfMeanSquared)).join(", "),
    ],
  );
  return `<section class="variable numeric"><h3>${
    escapeHtml(variable.name)
  } <small>numeric</small></h3>` +
    `<div class="figure">${ecdfSvg(variable)}</div>` +
    table(["", "confidential", `synthetic (mean of ${m})`, "synthetic 1…m"], rows) +
    "</section>";
}

function categoricalSection(variable: CategoricalVariableUtility, m: number): string {
  const rows = variable.levels.map((level, j) => [
    escapeHtml(level),
    readable(variable.confidential.counts[j]),
    readable(variable.confidential.proportions[j]),
    readable(variable.synthetic.counts[j]),
    readable(variable.synthetic.proportions[j]),
  ]);
  return `<section class="variable categorical"><h3>${
    escapeHtml(variable.name)
  } <small>categorical</small></h3>` +
    `<div class="figure">${
      figureSvg(
        marginalFigure(
          variable.name,
          variable.levels,
          variable.confidential.proportions,
          variable.synthetic.proportions,
          m,
        ),
      )
    }</div>` +
    table(["level", "confidential n", "share", `synthetic n (mean of ${m})`, "share"], rows) +
    `<p class="measure">Total variation distance: <strong>${
      readable(variable.tvd.mean)
    }</strong> (mean of ${m}; by dataset ${
      variable.tvd.byDataset.map((t) => readable(t)).join(", ")
    })</p>` +
    "</section>";
}

function twoWaySection(t: TwoWayUtility, m: number): string {
  const [a, b] = t.variables;
  const [la, lb] = t.levels;
  const nConf = t.confidential.flat().reduce((s, v) => s + v, 0);
  const nSyn = t.synthetic.flat().reduce((s, v) => s + v, 0);
  const rows = la.map((level, r) => [
    escapeHtml(level),
    ...lb.map((_, c) =>
      `${readable(t.confidential[r][c] / nConf, 3)} <span class="syn">${
        readable(t.synthetic[r][c] / nSyn, 3)
      }</span>`
    ),
  ]);
  return `<section class="two-way"><h4>${escapeHtml(a)} × ${escapeHtml(b)}</h4>` +
    table([`${escapeHtml(a)} \\ ${escapeHtml(b)}`, ...lb.map((level) => escapeHtml(level))], rows) +
    `<p class="measure">TVD <strong>${readable(t.tvd.mean)}</strong> (mean of ${m}; by dataset ${
      t.tvd.byDataset.map((v) => readable(v)).join(", ")
    })</p></section>`;
}

function propensitySection(report: UtilityReport): string {
  const p = report.propensity;
  const rows = p.byDataset.map((d, l) => [
    String(l + 1),
    readable(d.pMSE),
    readable(d.expected),
    readable(d.ratio),
    String(d.k),
    String(d.N),
    readable(d.c),
    d.separated ? "yes" : "no",
    d.aliased.map(escapeHtml).join(", ") || "—",
  ]);
  rows.push(["mean", readable(p.mean.pMSE), "", readable(p.mean.ratio), "", "", "", "", ""]);
  return `<section id="propensity"><h2>Propensity-score utility</h2>` +
    `<p>Logistic model <code>${
      escapeHtml(p.model)
    }</code> on the confidential (t = 0) and synthetic (t = 1) records stacked; pMSE = (1/N)Σ(p̂ − c)², its null expectation (k − 1)(1 − c)²c/N and their ratio S<sub>pMSE</sub> (Snoke et al. 2018): near 1 when the model cannot tell the data apart, larger when it can.</p>` +
    table(
      ["dataset", "pMSE", "E[pMSE]", "S<sub>pMSE</sub>", "k", "N", "c", "separated", "aliased"],
      rows,
      "propensity",
    ) +
    "</section>";
}

function modelSection(model: ModelUtility): string {
  const head = `<h3><code>${escapeHtml(model.formula)}</code> <small>${
    model.family === "gaussian" ? "linear regression" : "logistic regression"
  }</small></h3>`;
  if ("error" in model) {
    return `<section class="model">${head}<p class="error">Not compared: ${
      escapeHtml(model.error)
    }</p></section>`;
  }
  const rows = model.coefficients.map((c) => [
    escapeHtml(c.name),
    readable(c.confidential.estimate),
    `[${readable(c.confidential.lower)}, ${readable(c.confidential.upper)}]`,
    readable(c.synthetic.estimate),
    `[${readable(c.synthetic.lower)}, ${readable(c.synthetic.upper)}]`,
    intervalsSvg(c.confidential, c.synthetic),
    readable(c.overlap, 3),
    readable(c.standardizedDifference, 3),
  ]);
  const level = Math.round(model.level * 100);
  return `<section class="model">${head}` +
    table(
      [
        "coefficient",
        "confidential",
        `${level}% interval`,
        "synthetic (combined)",
        `${level}% interval`,
        "intervals",
        "overlap",
        "|β̄ − β|/SE",
      ],
      rows,
      "overlap",
    ) +
    "</section>";
}

function riskSection(risk: RiskReport): string {
  const rows = risk.byDataset.map((d, l) => [
    String(l + 1),
    readable(d.expectedMatchRisk),
    readable(d.trueMatchRate),
    String(d.matched),
    String(d.replicatedUniques),
  ]);
  rows.push([
    "mean",
    readable(risk.mean.expectedMatchRisk),
    readable(risk.mean.trueMatchRate),
    "",
    readable(risk.mean.replicatedUniques),
  ]);
  const keys = risk.keys.map(escapeHtml).join(", ") || "none";
  return `<section id="risk"><h2>Identification risk <small>confidential: the owner's diagnostics</small></h2>` +
    `<p>An intruder knows a record's public keys (${keys}) and its synthesized values (${
      risk.synthesized.map(escapeHtml).join(", ")
    }); a synthetic record matches when the keys and categories are equal and each number lies within ${
      readable(risk.tolerance * 100)
    }% of the record's. ${risk.confidentialUniques} of ${risk.n} confidential records are unique in these values.</p>` +
    table(
      [
        "dataset",
        "expected match risk",
        "true match rate",
        "records matched",
        "replicated uniques",
      ],
      rows,
      "risk",
    ) +
    "</section>";
}

const GUARANTEES: Readonly<Record<string, string>> = {
  DP: "ε-differential privacy for every database (the clamp or the noise bounds every record's " +
    "effect, whatever the data)",
  aDP: "asymptotic DP: ε = 2Δ·m is the local bound of this database; Δ contracts onto a global " +
    "bound as n grows, but it is not a worst case over all databases",
};

const NEIGHBOUR_TEXT: Readonly<Record<string, string>> = {
  "add-remove": "add-remove: databases that differ by one record added or removed (n is public " +
    "by the owner's declaration)",
};

/** The first section: what was released, under which guarantee, from how healthy a fit. */
function releaseSection(release: ReleaseSummary): string {
  const { report, achieved, fit, settings } = release;
  const mechanism = MECHANISM_DESCRIPTIONS[report.mechanism as MechanismName];
  const models = report.outcomes === undefined
    ? escapeHtml(report.model)
    : `joint: ${
      report.outcomes.map(({ y, model }) => `${escapeHtml(y)} (${escapeHtml(model)})`).join(", ")
    }`;
  const target = settings?.find((s) => s.label === "target ε")?.value;
  const exact = (x: number | null) => readable(x, 6);
  const rows: [string, string][] = [
    [
      "Mechanism",
      `<strong>${escapeHtml(report.mechanism)}</strong>${
        mechanism === undefined ? "" : ` <small>${escapeHtml(mechanism)}</small>`
      }`,
    ],
    ["Model", models],
    [
      "Guarantee",
      `<strong>${escapeHtml(report.guarantee)}</strong> <small>${
        escapeHtml(GUARANTEES[report.guarantee] ?? "")
      }</small>`,
    ],
    ["Neighbours", escapeHtml(NEIGHBOUR_TEXT[report.neighbours] ?? report.neighbours)],
    ["Target ε", target === undefined ? "not recorded" : escapeHtml(target)],
  ];
  if (achieved === undefined) {
    rows.push(
      ["ε of the release", `<strong>${exact(report.epsilon)}</strong> <small>= 2Δ·m</small>`],
      ["ε per dataset", exact(report.epsilonPerDataset)],
      [
        "Δ",
        report.lipschitz === null
          ? "— <small>(none: the histogram's ε is its noise's)</small>"
          : `${exact(report.lipschitz)} <small>(${
            report.mechanism.startsWith("censored")
              ? "the censoring level"
              : "max over every record and every posterior draw"
          })</small>`,
      ],
    );
  } else {
    rows.push(
      [
        "ε stated to analysts",
        `<strong>${exact(report.epsilon)}</strong> <small>the cap charged at acceptance ` +
        `(${exact(report.epsilonPerDataset)} per dataset); the public report states no Δ</small>`,
      ],
      [
        "ε achieved",
        `${exact(achieved.epsilon)} <small>(${
          exact(achieved.epsilonPerDataset)
        } per dataset; the owner's diagnostics)</small>`,
      ],
      [
        "Δ",
        achieved.lipschitz === null
          ? "— <small>(none: the histogram's ε is its noise's)</small>"
          : `${exact(achieved.lipschitz)} <small>(the owner's diagnostics)</small>`,
      ],
    );
  }
  rows.push(
    ["Synthetic datasets m", String(report.m)],
    ["Records n", String(report.n)],
    ["Final fit", fitText(report, fit)],
  );
  if (fit) {
    const mark = (ok: boolean) => ok ? "" : ' <strong class="bad">fails</strong>';
    rows.push(
      [
        "Divergent transitions",
        `${fit.divergences}${mark(fit.divergences <= FIT_LIMITS.divergences)}`,
      ],
      [
        "R̂ max",
        `${readable(fit.rhatMax)} <small>(≤ ${FIT_LIMITS.rhatMax})</small>${
          mark(fit.rhatMax <= FIT_LIMITS.rhatMax)
        }`,
      ],
      [
        "Bulk ESS min",
        `${readable(fit.essBulkMin)} <small>(≥ ${FIT_LIMITS.essBulkMin})</small>${
          mark(fit.essBulkMin >= FIT_LIMITS.essBulkMin)
        }`,
      ],
    );
  }
  rows.push(
    ["Seed", escapeHtml(report.seedPolicy)],
    ["Software", `${escapeHtml(report.software.name)} ${escapeHtml(report.software.version)}`],
  );
  const settingRows = (settings ?? []).filter((s) => s.label !== "target ε").map((s) => [
    escapeHtml(s.label),
    escapeHtml(s.value),
  ]);
  return `<section id="release"><h2>Release</h2>` +
    `<table class="release"><tbody>${
      rows.map(([head, cell]) =>
        `<tr data-field="${escapeHtml(head)}"><th>${head}</th><td>${cell}</td></tr>`
      ).join("")
    }</tbody></table>` +
    (settingRows.length === 0
      ? ""
      : `<h3>Settings</h3>${table(["setting", "value"], settingRows, "settings")}`) +
    "</section>";
}

/** The final fit's verdict: from the report (flagged or not) and, when known, its diagnostics. */
function fitText(report: ReleaseSummary["report"], fit: ReleaseSummary["fit"]): string {
  if (report.fitFlagged || fit?.flagged) {
    return '<strong class="bad">flagged</strong>: it failed its diagnostics, so Δ and ε are ' +
      "not established";
  }
  if (fit === null) return "none <small>(no posterior was fitted)</small>";
  return '<strong class="good">passed</strong> its diagnostics <small>(no divergence, R̂ ≤ ' +
    `${FIT_LIMITS.rhatMax}, bulk ESS ≥ ${FIT_LIMITS.essBulkMin})</small>`;
}

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1000px; color: #222; padding: 0 16px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ddd; }
h3 { font-size: 15px; margin-bottom: 4px; } small { color: #666; font-weight: normal; }
table { border-collapse: collapse; margin: 8px 0; } td, th { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: right; vertical-align: middle; }
td { white-space: nowrap; }
td:first-child, th:first-child { text-align: left; }
.syn { color: ${syntheticColour(0)}; margin-left: 4px; }
.warning { background: #fde8e8; border: 2px solid #b91c1c; color: #7f1d1d; padding: 8px 12px; }
table.release th { text-align: left; padding-right: 16px; white-space: nowrap; } table.release td, table.settings td, table.settings th { text-align: left; white-space: normal; }
.bad { color: #b91c1c; } .good { color: #15803d; }
svg text { font: 11px system-ui, sans-serif; fill: #333; }
.key { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 10px; vertical-align: -1px; }
.error { color: #a00; } code { background: #f4f4f4; padding: 1px 4px; }
`;

/**
 * The report as one HTML page: a flagged fit's warning above everything; first the release
 * ({@linkcode ReleaseSummary}: mechanism and settings, guarantee and neighbours, ε, Δ, m, n and the
 * fit's health); then a summary of the synthesis; per numeric variable its ECDF plot
 * (confidential and each synthetic dataset) and summary table; per categorical variable a bar
 * chart and table of the marginal with its TVD; the two-way tables; the propensity pMSE and
 * S_pMSE table; each utility model's CI overlap table with the two intervals drawn; and, when
 * given, the identification risk table. Inline SVG and CSS only: no script, no request.
 *
 * @param utility The utility report.
 * @param options The release; the title; the risk report (owner only); a warning.
 * @returns The page's HTML.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reportHtml } from "./report_html.ts";
 * import { utilityReport } from "./utility_report.ts";
 * const html = reportHtml(
 *   utilityReport({
 *     confidential: new Map([["<b>", ["a", "b"]]]),
 *     synthetic: [new Map([["<b>", ["b", "b"]]])],
 *     synthesized: [{ name: "<b>", kind: "categorical", levels: ["a", "b"] }],
 *     public: [],
 *   }),
 *   {
 *     release: {
 *       report: {
 *         mechanism: "histogram", model: "categorical", n: 2, m: 1, lipschitz: null,
 *         lipschitzOverDraws: "max", epsilonPerDataset: 1, epsilon: 1, guarantee: "DP",
 *         neighbours: "add-remove", backend: "cpu", columns: ["<b>"],
 *         software: { name: "ppsynth", version: "0" }, seedPolicy: "secret",
 *       },
 *       fit: null,
 *     },
 *   },
 * );
 * assert.ok(html.includes("&lt;b&gt;") && !html.includes("<b>"));
 * assert.ok(html.indexOf('id="release"') < html.indexOf('id="summary"'));
 * ```
 */
export function reportHtml(utility: UtilityReport, options: ReportHtmlOptions): string {
  const title = escapeHtml(options.title ?? "ppsynth release report");
  const m = utility.m;
  const describe = (v: UtilityReport["synthesized"][number]) =>
    `${escapeHtml(v.name)} <small>(${
      v.kind === "numeric" ? "numeric" : `${v.levels.length} levels`
    })</small>`;
  const variables = utility.variables.map((v) =>
    v.kind === "numeric" ? numericSection(v, m) : categoricalSection(v, m)
  ).join("");
  const twoWay = utility.twoWay.length === 0
    ? ""
    : `<section id="two-way"><h2>Two-way tables</h2>` +
      `<p>Shares of all records: confidential, then <span class="syn">synthetic (mean of ${m})</span>; TVD = ½Σ|p − p*| per synthetic dataset.</p>${
        utility.twoWay.map((t) => twoWaySection(t, m)).join("")
      }</section>`;
  const models = utility.models.length === 0
    ? ""
    : `<section id="models"><h2>Utility models: confidence-interval overlap</h2>` +
      `<p>Each model fitted to the confidential data and to every synthetic dataset, the synthetic fits combined by the partial-synthesis rules (q̄, T = b/m + ū, t<sub>ν</sub>). Overlap (Karr et al. 2006) is 1 for identical intervals and negative for disjoint ones; |β̄ − β|/SE is in confidential standard errors. <span class="key" style="background:${CONFIDENTIAL}"></span>confidential <span class="key" style="background:${
        syntheticColour(0)
      }"></span>synthetic</p>` +
      utility.models.map(modelSection).join("") + "</section>";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${title}</h1>
${
    options.warning === undefined
      ? ""
      : `<p id="warning" class="warning" role="alert"><strong>${
        escapeHtml(options.warning)
      }</strong></p>`
  }
${releaseSection(options.release)}
<section id="summary"><h2>Utility</h2><p>${utility.n} confidential records, ${m} synthetic dataset${
    m === 1 ? "" : "s"
  }. Synthesized: ${utility.synthesized.map(describe).join(", ")}. Public: ${
    utility.public.map(describe).join(", ") || "none"
  }.</p></section>
<section id="variables"><h2>Synthesized variables</h2>${variables}</section>
${twoWay}
${propensitySection(utility)}
${models}
${options.risk === undefined ? "" : riskSection(options.risk)}
</body>
</html>
`;
}
