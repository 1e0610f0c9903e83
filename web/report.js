// The web report (served at / by functions/report.ts): submit a synthesis through the HTTP API,
// follow its job, and draw the public privacy report. Its figures are the figure specs of
// src/report/release_figures.ts drawn by src/report/svg.ts, the renderer of report.html and the
// studies' figures, which this server serves as JavaScript under /web/report/ with the formatter
// of report.html's numbers; the global `d3` (served by this server too) reads CSV. The
// confidential plots (record-level Lipschitz bounds, weights, the confidential ECDF) are drawn
// only when the key may read the job's diagnostics.
// The key lives in sessionStorage (this tab only), under the name /docs uses too.
// A registered dataset carries the release policy its owner sets once at registration: the
// public columns (the only ones a request may name as covariates, strata or table labels) and
// public bounds and stratum sizes; requests on it state their ε and never a seed (the server
// takes stratum sizes and bounds from the policy).

import {
  boundsFigure,
  cellsFigure,
  CONFIDENTIAL,
  ecdfFigure,
  ecdfSeries,
  syntheticColour,
  weightsFigure,
} from "/web/report/release_figures.ts";
import { readable } from "/web/report/format.ts";
import { figureSvg } from "/web/report/svg.ts";

const KEY = "ppsynth-api-key";
const { d3 } = globalThis;
const $ = (id) => document.getElementById(id);

/** What the page knows of the uploaded file (kept in this tab only): its header and rows. */
const data = { name: "", csv: "", columns: [], rows: [], numeric: [] };

/** CSV text as its header and rows of cells (csvParseRows: no eval, which the CSP forbids). */
function parse(text) {
  const [columns, ...rows] = d3.csvParseRows(text);
  return { columns, rows: rows.filter((row) => row.some((cell) => cell !== "")) };
}

/** The numbers of a named column. */
function column(table, name) {
  const j = table.columns.indexOf(name);
  return table.rows.map((row) => Number(row[j]));
}

/** An API error: its status and the error body's code, message and field. */
class ApiFailure extends Error {
  constructor(status, error) {
    const detail = error ?? { code: `http_${status}`, message: "request failed" };
    super(`${detail.code}: ${detail.message}${detail.field ? ` (${detail.field})` : ""}`);
    this.status = status;
  }
}

function request(path, init = {}) {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${sessionStorage.getItem(KEY) ?? ""}`);
  return fetch(path, { ...init, headers });
}

async function json(path, init) {
  const response = await request(path, init);
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new ApiFailure(response.status, body?.error);
  return body;
}

function post(path, body) {
  const id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16)).join("");
  return json(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": id },
    body: JSON.stringify(body),
  });
}

function fail(error) {
  $("error").textContent = error instanceof Error ? error.message : String(error);
}

function options(select, values, chosen) {
  select.replaceChildren(...values.map((value) => new Option(value, value)));
  if (chosen !== undefined && values.includes(chosen)) select.value = chosen;
}

/** Checks the key (any valid key reads the OpenAPI document) and lists models and mechanisms. */
async function useKey() {
  const doc = await json("/openapi.json");
  const fields = doc.components.schemas.SynthesisRequest.properties;
  // `model` is one name or a list of names (several outcomes): the page takes one.
  const models = fields.model.enum ?? fields.model.anyOf.find((choice) => choice.enum).enum;
  options($("model"), models, $("model").value || "negbin");
  options($("mechanism"), fields.mechanism.enum, $("mechanism").value || "lw-final");
  $("key-status").textContent = "key accepted";
}

function guess(columns, pattern, fallback) {
  return columns.find((name) => pattern.test(name)) ?? fallback;
}

const registered = () => $("register").checked;

/** The columns the owner ticked as public. */
function publicColumns() {
  return Array.from(document.querySelectorAll("#public-columns input:checked"), (box) => box.value);
}

/** Fills a select, keeping its choice when it is still offered. */
function refill(select, values, fallback) {
  options(select, values, values.includes(select.value) ? select.value : fallback);
}

/** The survey selects; strata and `by` offer only the public columns of data to register. */
function survey() {
  const shown = data.columns.length >= 4;
  $("survey").hidden = !shown;
  if (!shown) return;
  const numeric = data.numeric;
  const others = (registered() ? publicColumns() : data.columns)
    .filter((name) => name !== $("y").value);
  const strata = guess(others, /strat|field|region/i, others[1]);
  refill($("weight"), numeric, guess(numeric, /^(w|wt|weight)$/i, numeric.at(-1)));
  refill($("strata"), others, strata);
  refill($("by-1"), others, strata);
  refill($("by-2"), others, others.find((name) => name !== strata && !numeric.includes(name)));
}

/** Shows the policy fields and hides the seed when the data will be registered. */
function policyFields() {
  $("policy-fields").hidden = !registered() || data.columns.length === 0;
  $("seed").disabled = registered();
  $("seed-note").textContent = registered()
    ? "registered data: the server draws a secret seed"
    : "";
  $("bounds-column").textContent = $("y").value;
  survey();
}

async function readFile(file) {
  data.name = file.name;
  data.csv = await file.text();
  Object.assign(data, parse(data.csv));
  data.numeric = data.columns.filter((_name, j) =>
    data.rows.every((row) => row[j] !== "" && Number.isFinite(Number(row[j])))
  );
  const numeric = data.numeric;
  $("data-summary").textContent = `${data.rows.length} records: ${data.columns.join(", ")}`;
  options($("y"), numeric, guess(numeric, /^(y|salary|income|count)$/i, numeric[0]));
  $("public-columns").replaceChildren(
    "Public columns:",
    ...data.columns.map((name) => {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.value = name;
      label.append(box, ` ${name}`);
      return label;
    }),
  );
  policyFields();
}

const number = (id) => $(id).value === "" ? undefined : Number($(id).value);

function stratumSizes() {
  const text = $("stratum-sizes").value.trim();
  if (text === "") return undefined;
  return Object.fromEntries(
    text.split(",").map((pair) => {
      const [label, size] = pair.split("=");
      return [label.trim(), Number(size)];
    }),
  );
}

/** A request field only inline data may set (a registered dataset's policy or server does). */
const inline = (source, value) => source.datasetId === undefined ? value : undefined;

function sampler(source) {
  return {
    draws: number("draws"),
    chains: number("chains"),
    warmup: number("warmup"),
    seed: inline(source, number("seed")),
  };
}

/** One column's public bounds from two inputs, when the owner gave them. */
function columnBounds(column, lowerId, upperId, what) {
  const [lower, upper] = [number(lowerId), number(upperId)];
  if (lower === undefined && upper === undefined) return {};
  if (lower === undefined || upper === undefined) {
    throw new Error(`give both public bounds of ${what}, or neither`);
  }
  return { [column]: [lower, upper] };
}

/** The public bounds of the outcome and of the survey weight, when the owner gave them. */
function bounds() {
  const declared = {
    ...columnBounds($("y").value, "bound-lower", "bound-upper", "the outcome"),
    ...($("survey").hidden
      ? {}
      : columnBounds($("weight").value, "weight-bound-lower", "weight-bound-upper", "the weight")),
  };
  return Object.keys(declared).length === 0 ? undefined : declared;
}

/** Polls a job until it has finished, showing its progress; throws when it failed. */
async function follow(path) {
  $("progress-section").hidden = false;
  for (;;) {
    const job = await json(path);
    const progress = job.progress ?? { stage: job.status, fraction: 0 };
    $("progress").value = job.status === "succeeded" ? 1 : progress.fraction;
    $("status").textContent = job.status === "running"
      ? `running: ${progress.stage} ${Math.round(100 * progress.fraction)}%`
      : job.status;
    if (job.status === "failed") throw new Error(`${job.error.code}: ${job.error.message}`);
    if (job.status === "succeeded") return job;
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
}

// The release first, in the order of report.html's first section: what was released, under
// which guarantee, and how healthy the fit behind it was.
const REPORT_FIELDS = [
  ["mechanism", "Mechanism"],
  ["model", "Model"],
  ["guarantee", "Guarantee (DP, or aDP: asymptotic)"],
  ["neighbours", "Neighbouring datasets"],
  ["epsilon", "ε of the release (2Δm; on registered data the charged cap)"],
  ["epsilonPerDataset", "ε per dataset (2Δ; on registered data the cap's share)"],
  ["lipschitz", "Lipschitz bound Δ (max over records and draws; none on registered data)"],
  ["m", "Synthetic datasets m"],
  ["n", "Records n"],
  ["seedPolicy", "Seed"],
  ["backend", "Backend"],
];

/** The warning atop a release from a flagged fit (`allowFlagged`, research). */
const FLAGGED =
  "Not a release: the final fit failed its diagnostics (a divergence, R̂ > 1.01 or bulk ESS " +
  "< 400), so its Δ and the ε resting on it are not established.";

/**
 * The rows of the release: the public report's fields (null ones as "none"), the final fit's
 * verdict and, for a key with the diagnostics scope, the achieved Δ and ε on registered data and
 * the fit's divergences, R̂ and bulk ESS (the owner's diagnostics).
 */
function releaseRows(report, diagnostics) {
  const rows = REPORT_FIELDS.filter(([field]) => report[field] !== undefined)
    .map(([field, label]) => [label, report[field] ?? "none"]);
  rows.push([
    "Final fit",
    report.fitFlagged ? "flagged: failed its diagnostics" : "passed its diagnostics",
  ]);
  const achieved = diagnostics?.achieved;
  if (achieved) {
    rows.push(
      ["ε achieved (owner's diagnostics)", achieved.epsilon],
      ["Δ achieved (owner's diagnostics)", achieved.lipschitz ?? "none"],
    );
  }
  const fit = diagnostics?.fit;
  if (fit) {
    rows.push(
      ["Divergent transitions (owner's diagnostics)", fit.divergences],
      ["R̂ max (≤ 1.01; owner's diagnostics)", fit.rhatMax],
      ["Bulk ESS min (≥ 400; owner's diagnostics)", fit.essBulkMin],
    );
  }
  return rows;
}

/** A value as text: a number as report.html prints it (six significant digits). */
const format = (value) => typeof value === "number" ? readable(value, 6) : String(value);

function tableRows(table, pairs) {
  table.replaceChildren(...pairs.map(([label, value]) => {
    const row = table.insertRow();
    const head = document.createElement("th");
    head.textContent = label;
    row.append(head);
    row.insertCell().textContent = format(value);
    return row;
  }));
}

/** `name: value; …` of an object's entries, or "none". */
function listed(object, show) {
  const entries = Object.entries(object ?? {});
  return entries.length === 0
    ? "none"
    : entries.map(([name, value]) => `${name}: ${show(value)}`).join("; ");
}

/** A registered dataset and its release policy (the 201 answer or GET /v1/datasets/{id}). */
function showPolicy(dataset) {
  const policy = dataset.policy;
  const confidential = dataset.columns.filter((name) => !policy.publicColumns.includes(name));
  tableRows($("policy"), [
    ["Dataset", `${dataset.name} (${dataset.id})`],
    ["Records n (public)", dataset.n],
    ["Total budget ε_total", dataset.epsilonTotal],
    ["Public columns", policy.publicColumns.join(", ") || "none"],
    ["Confidential columns", confidential.join(", ") || "none"],
    ["Levels of the public columns", listed(policy.levels, (levels) => levels.join(", "))],
    ["Public bounds", listed(policy.bounds, ([lower, upper]) => `[${lower}, ${upper}]`)],
    [
      "Stratum sizes",
      listed(policy.stratumSizes, (sizes) => listed(sizes, format).replaceAll(";", ",")),
    ],
    ["Neighbouring datasets", policy.neighbours],
  ]);
  $("policy-section").hidden = false;
}

async function showBudget(datasetId) {
  const budget = datasetId === null ? null : await json(`/v1/datasets/${datasetId}/budget`);
  $("budget").textContent = budget === null
    ? "Inline data: no budget is kept (the report still states the release's ε)."
    : `Budget of the dataset: ε spent ${format(budget.spent)} of ${format(budget.epsilonTotal)}` +
      ` (${budget.releases.length} charges, each a request's ε, charged when it was accepted).`;
}

/** Draws a figure spec into the element `id` (the renderer escapes every text). */
function draw(id, figure) {
  $(id).innerHTML = figureSvg(figure);
}

/** The public report of a succeeded synthesis, and the owner's plots when the key allows. */
async function showReport(job, y) {
  const report = job.report;
  const answer = await request(`/v1/syntheses/${job.id}/diagnostics`);
  const diagnostics = answer.ok ? await answer.json() : null;
  if (!answer.ok && answer.status !== 403) {
    throw new ApiFailure(answer.status, (await answer.json()).error);
  }
  $("fit-warning").hidden = !report.fitFlagged;
  $("fit-warning").textContent = report.fitFlagged ? FLAGGED : "";
  tableRows($("report"), releaseRows(report, diagnostics));
  await showBudget(job.datasetId);
  const outcome = report.columns.includes(y) ? y : report.columns[0];
  const synthetic = await Promise.all(job.datasets.map(async (url, k) => {
    const response = await request(url);
    if (!response.ok) throw new ApiFailure(response.status, (await response.json()).error);
    const values = column(parse(await response.text()), outcome);
    return ecdfSeries(`synthetic ${k + 1}`, syntheticColour(k), values, "series synthetic");
  }));
  $("diagnostics-note").textContent = diagnostics === null
    ? 'This key lacks the "diagnostics" scope, so only the public report is shown: the ' +
      "record-level Lipschitz bounds, the weights and the confidential data are the data " +
      "owner's."
    : "Confidential diagnostics shown: this key has the diagnostics scope.";
  const local = diagnostics !== null && data.columns.includes(outcome) &&
    data.rows.length === report.n;
  const series = local
    ? [
      ecdfSeries("confidential", CONFIDENTIAL, column(data, outcome), "series confidential"),
      ...synthetic,
    ]
    : synthetic;
  $("ecdf-caption").textContent = local
    ? "Confidential and synthetic outcomes (empirical CDFs)"
    : "Synthetic outcomes (empirical CDFs)";
  draw("plot-ecdf", ecdfFigure(outcome, series));
  const bounds = diagnostics?.recordLipschitz ?? null;
  $("fig-lipschitz").hidden = bounds === null;
  $("fig-weights").hidden = bounds === null;
  if (bounds === null) {
    $("plot-lipschitz").replaceChildren();
    $("plot-weights").replaceChildren();
  } else {
    // On registered data the public report states no Δ: the owner's diagnostics hold it.
    draw(
      "plot-lipschitz",
      boundsFigure(bounds, diagnostics.achieved?.lipschitz ?? report.lipschitz),
    );
    draw("plot-weights", weightsFigure(bounds, diagnostics.alpha ?? bounds.map(() => 1)));
  }
  await showUtility(job, diagnostics);
  $("report-section").hidden = false;
}

/**
 * The owner's release report page (`/v1/syntheses/{id}/report.html`: self-contained, no script;
 * the release first, then utility and risk),
 * in a sandboxed frame, when the job has one and the key may read it.
 */
async function showUtility(job, diagnostics) {
  const frame = $("utility-report");
  frame.hidden = true;
  if (!diagnostics?.utilityReport) return;
  const page = await request(`/v1/syntheses/${job.id}/report.html`);
  if (!page.ok) return;
  frame.srcdoc = await page.text();
  frame.hidden = false;
}

/** The survey tables: an interval plot of the interior cells' means, then every row. */
function showTable(table) {
  const [a, b] = table.by;
  const privacy = table.privacy;
  $("table-privacy").textContent = privacy === null
    ? "sample: the confidential estimates themselves (not private)."
    : `${table.method}: ε = ${privacy.epsilon} (${privacy.guarantee}` +
      `${privacy.neighbours ? `, ${privacy.neighbours} neighbours` : ""}), charged once.`;
  const cells = table.rows.filter((row) =>
    row[a] !== "all" && row[b] !== "all" && row.mean !== null
  )
    .map((row) => ({
      cell: `${row[a]} · ${row[b]}`,
      estimate: row.mean,
      lower: row.meanLower ?? row.mean - 1.96 * row.meanSE,
      upper: row.meanUpper ?? row.mean + 1.96 * row.meanSE,
    }));
  draw("plot-tables", cellsFigure(cells, "mean (95% interval)"));
  const names = Object.keys(table.rows[0]);
  const head = document.createElement("tr");
  head.append(...names.map((name) => {
    const th = document.createElement("th");
    th.textContent = name;
    return th;
  }));
  const body = table.rows.map((row) => {
    const tr = document.createElement("tr");
    tr.append(...names.map((name) => {
      const td = document.createElement("td");
      const value = row[name];
      td.textContent = value === null ? "–" : format(value);
      return td;
    }));
    return tr;
  });
  $("table-rows").replaceChildren(head, ...body);
  $("tables-section").hidden = false;
}

/** Asks for the survey tables (following the job of fbs and fbp); returns the table. */
async function tabulate(source) {
  const method = $("table-method").value;
  const body = {
    ...source,
    y: $("y").value,
    weight: $("weight").value,
    strata: $("strata").value,
    by: [$("by-1").value, $("by-2").value],
    method,
    ...(method === "sample" ? {} : { epsilon: number("table-epsilon") }),
    ...(method === "fbs" || method === "fbp"
      ? { m: number("m"), stratumSizes: inline(source, stratumSizes()), ...sampler(source) }
      : {}),
  };
  const answer = await post("/v1/tables", body);
  return answer.rows === undefined ? (await follow(answer.location)).table : answer;
}

/**
 * Registers the file with its release policy (JSON, so that bounds can go with it); stratum
 * sizes, when given, are the public sizes of the chosen strata column.
 */
async function register() {
  const sizes = stratumSizes();
  const dataset = await post("/v1/datasets", {
    epsilonTotal: number("epsilon-total"),
    name: data.name,
    csv: data.csv,
    publicColumns: publicColumns(),
    bounds: bounds(),
    stratumSizes: sizes === undefined ? undefined : { [$("strata").value]: sizes },
  });
  showPolicy(dataset);
  return { datasetId: dataset.id };
}

async function run() {
  if (data.csv === "") throw new Error("choose a CSV file first");
  if (registered() && number("epsilon") === undefined) {
    throw new Error(
      "ε is required on a registered dataset (it is charged when the job is accepted)",
    );
  }
  $("policy-section").hidden = true;
  const source = registered() ? await register() : { csv: data.csv };
  const model = $("model").value;
  const survey = model === "fbs" || model === "fbp";
  const accepted = await post("/v1/syntheses", {
    ...source,
    y: $("y").value,
    model,
    mechanism: $("mechanism").value,
    // The owner's utility report (ECDFs, pMSE), shown below for a key with diagnostics.
    report: true,
    epsilon: number("epsilon"),
    m: number("m"),
    ...sampler(source),
    ...(survey
      ? {
        weight: $("weight").value,
        strata: $("strata").value,
        stratumSizes: inline(source, stratumSizes()),
      }
      : {}),
  });
  $("job-id").value = accepted.id;
  await showReport(await follow(accepted.location), $("y").value);
  if (!$("survey").hidden && $("tabulate").checked) {
    const table = await tabulate(source);
    await showBudget(source.datasetId ?? null);
    showTable(table);
  }
}

/** Runs a form's action, showing its error instead of throwing. */
function handle(form, action) {
  $(form).addEventListener("submit", async (event) => {
    event.preventDefault();
    $("error").textContent = "";
    try {
      await action();
    } catch (error) {
      fail(error);
    }
  });
}

handle("key-form", async () => {
  sessionStorage.setItem(KEY, $("key").value.trim());
  await useKey();
});
handle("run-form", run);
handle("load-form", async () => {
  const job = await follow(`/v1/syntheses/${encodeURIComponent($("job-id").value.trim())}`);
  $("policy-section").hidden = true;
  if (job.datasetId !== null) showPolicy(await json(`/v1/datasets/${job.datasetId}`));
  await showReport(job, $("y").value);
});
$("csv-file").addEventListener("change", () => {
  const file = $("csv-file").files[0];
  if (file !== undefined) readFile(file).catch(fail);
});
$("register").addEventListener("change", policyFields);
$("public-columns").addEventListener("change", survey);
$("y").addEventListener("change", policyFields);
policyFields();
if (sessionStorage.getItem(KEY)) {
  $("key").value = sessionStorage.getItem(KEY);
  useKey().catch(fail);
}
