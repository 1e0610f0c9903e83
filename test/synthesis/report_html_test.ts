import assert from "node:assert/strict";
import { announceChromium, CHROMIUM, IGNORE_BROWSER, playwright } from "../_browser.ts";
import type { OutputColumn } from "../../src/data/csv.ts";
import { escapeHtml, reportHtml } from "../../src/synthesis/report_html.ts";
import {
  FLAGGED_WARNING,
  releaseSettings,
  type ReleaseSummary,
} from "../../src/synthesis/release_summary.ts";
import type { ReleaseManifest } from "../../src/synthesis/report.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";
import { riskReport } from "../../src/synthesis/risk_report.ts";
import { type ReportVariable, utilityReport } from "../../src/synthesis/utility_report.ts";
import { readUtilityReference } from "./_utility_reference.ts";

const SCREENSHOTS = new URL("../../out/browser/", import.meta.url).pathname;

announceChromium("report browser test");

/** A variable name an owner might type, and one meant to break the page. */
const HOSTILE = `B <script>alert("x")</script>`;
const HOSTILE_LEVEL = `<img src=x onerror=alert(1)>`;

/** The request behind the release the pages describe (three outcomes, LW_final at ε = 20). */
const SPEC = SynthesisSpec.parse({
  y: ["A", HOSTILE, "D"],
  model: ["normal", "categorical", "logistic"],
  x: ["x1", "region"],
  mechanism: "lw-final",
  epsilon: 20,
  m: 2,
  draws: 4000,
  warmup: 300,
});

/** report.json of that release, as the command line writes it (the owner's own data). */
const REPORT: ReleaseManifest = {
  mechanism: "lw-final",
  model: "joint",
  outcomes: [{ y: "A", model: "normal" }, { y: HOSTILE, model: "categorical" }, {
    y: "D",
    model: "logistic",
  }],
  n: 300,
  m: 2,
  lipschitz: 4.871234,
  lipschitzOverDraws: "max",
  epsilonPerDataset: 9.742468,
  epsilon: 19.484936,
  guarantee: "aDP",
  neighbours: "add-remove",
  backend: "cpu",
  columns: ["x1", "region", "A", HOSTILE, "D"],
  software: { name: "ppsynth", version: "0.0.0-test" },
  seedPolicy: "fresh: a secret seed drawn from the operating system's CSPRNG, not released",
  coefficientPrior: "student-t",
};

const FIT = { flagged: false, divergences: 0, rhatMax: 1.0042, essBulkMin: 812.5 };

/** The release section's input: the command line's (report.json, the request, the fit). */
const RELEASE: ReleaseSummary = { report: REPORT, settings: releaseSettings(SPEC), fit: FIT };

/** The reference data (confidential and m = 2 synthetic), B renamed and one level made hostile. */
async function reports() {
  const all = await readUtilityReference();
  const dataset = all.columns.get("dataset") as { values: Float64Array };
  const datasets: Map<string, OutputColumn>[] = [0, 1, 2].map(() => new Map());
  for (const name of all.names.filter((name) => name !== "dataset")) {
    const column = all.columns.get(name)!;
    datasets.forEach((map, d) => {
      const rows = [...dataset.values.keys()].filter((i) => dataset.values[i] === d);
      if (column.kind === "numeric") {
        map.set(
          name,
          Float64Array.from(rows, (i) => column.values[i]),
        );
      } else {
        const cells = rows.map((i) => column.levels[column.codes[i]]);
        map.set(
          name === "B" ? HOSTILE : name,
          name === "B" ? cells.map((c) => c === "c" ? HOSTILE_LEVEL : c) : cells,
        );
      }
    });
  }
  const [confidential, ...synthetic] = datasets;
  const synthesized: ReportVariable[] = [
    { name: "A", kind: "numeric" },
    { name: HOSTILE, kind: "categorical", levels: ["a", "b", HOSTILE_LEVEL] },
    { name: "D", kind: "categorical", levels: ["no", "yes"] },
  ];
  const input = { confidential, synthetic, synthesized, public: ["x1", "region"] };
  const utility = utilityReport(input, {
    models: [`A ~ x1 + \`${HOSTILE}\``, "D ~ x1 + region", "D ~ A + region"],
  });
  return { utility, risk: riskReport(input) };
}

Deno.test("`reportHtml()` escapes every name and level and refers to nothing outside the page", async () => {
  const { utility, risk } = await reports();
  const html = reportHtml(utility, { release: RELEASE, risk, title: `Report <for> "me"` });
  assert.ok(!html.includes(HOSTILE), "the raw name");
  assert.ok(!html.includes(HOSTILE_LEVEL), "the raw level");
  assert.ok(html.includes(escapeHtml(HOSTILE)));
  assert.ok(html.includes(escapeHtml(HOSTILE_LEVEL)));
  assert.ok(html.includes("<title>Report &lt;for&gt; &quot;me&quot;</title>"));
  // Escaped text holds no "<", so every "<" opens real markup: only these tags and attributes.
  const tags = new Set([
    "!DOCTYPE",
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "h1",
    "h2",
    "h3",
    "h4",
    "p",
    "section",
    "div",
    "small",
    "strong",
    "span",
    "code",
    "sub",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "svg",
    "g",
    "line",
    "text",
    "path",
    "rect",
    "circle",
  ]);
  const attributes = new Set([
    "lang",
    "charset",
    "http-equiv",
    "content",
    "name",
    "id",
    "class",
    "style",
    "role",
    "aria-label",
    "width",
    "height",
    "viewBox",
    "x",
    "y",
    "x1",
    "x2",
    "y1",
    "y2",
    "cx",
    "cy",
    "r",
    "d",
    "fill",
    "stroke",
    "stroke-width",
    "stroke-opacity",
    "text-anchor",
    "dominant-baseline",
    "stroke-dasharray",
    "transform",
    "font-family",
    "font-size",
    "font-weight",
    "xmlns",
    "html",
    "data-field",
  ]);
  for (const [, tag, rest] of html.matchAll(/<\/?([!\w-]+)([^>]*)>/g)) {
    assert.ok(tags.has(tag), `tag <${tag}>`);
    const names = rest.replace(/"[^"]*"/g, '""');
    for (const [, attribute] of names.matchAll(/\s([\w:-]+)(?==|\s|$)/g)) {
      assert.ok(attributes.has(attribute), `attribute ${attribute} on <${tag}>`);
    }
  }
  assert.doesNotMatch(html, /url\(|javascript:|@import/i, "nothing CSS could load");
  assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
  // No number is NaN or infinite anywhere in the plots.
  assert.doesNotMatch(html, /NaN|Infinity/);
  // Without the risk report, no risk section (the public page).
  assert.ok(!reportHtml(utility, { release: RELEASE }).includes("Identification risk"));
});

/** The text of the release section's row `field` (tags removed, spaces collapsed). */
function releaseRow(html: string, field: string): string {
  const row = new RegExp(`<tr data-field="${field}"><th>[^<]*</th><td>(.*?)</td></tr>`).exec(html);
  assert.ok(row, `no release row "${field}"`);
  return row[1].replace(/<[^>]+>/g, "").replace(/&amp;/g, "&").replace(/\s+/g, " ").trim();
}

/** The ids of the page's sections, in order. */
function sectionIds(html: string): string[] {
  return [...html.matchAll(/<section id="([^"]+)"/g)].map((m) => m[1]);
}

Deno.test("`reportHtml()` opens with the release: mechanism, settings, ε target and achieved, guarantee and neighbours, Δ, m, n, fit health", async () => {
  const { utility, risk } = await reports();
  const html = reportHtml(utility, { release: RELEASE, risk });
  const ids = sectionIds(html);
  assert.equal(ids[0], "release", ids.join(", "));
  assert.ok(ids.indexOf("release") < ids.indexOf("summary"));
  assert.ok(ids.indexOf("summary") < ids.indexOf("propensity"));
  assert.ok(ids.indexOf("propensity") < ids.indexOf("risk"));
  assert.match(html, /<section id="release"><h2>Release<\/h2>/);
  assert.match(releaseRow(html, "Mechanism"), /^lw-final LW re-weighted toward the target/);
  assert.match(releaseRow(html, "Model"), /^joint: A \(normal\), B .* \(categorical\), D/);
  assert.match(releaseRow(html, "Guarantee"), /^aDP asymptotic DP: ε = 2Δ·m is the local bound/);
  assert.match(releaseRow(html, "Neighbours"), /^add-remove: .*one record added or removed/);
  assert.equal(releaseRow(html, "Target ε"), "20");
  assert.equal(releaseRow(html, "ε of the release"), "19.4849 = 2Δ·m");
  assert.equal(releaseRow(html, "ε per dataset"), "9.74247");
  assert.match(
    releaseRow(html, "Δ"),
    /^4\.87123 \(max over every record and every posterior draw\)/,
  );
  assert.equal(releaseRow(html, "Synthetic datasets m"), "2");
  assert.equal(releaseRow(html, "Records n"), "300");
  assert.match(releaseRow(html, "Final fit"), /^passed its diagnostics/);
  assert.equal(releaseRow(html, "Divergent transitions"), "0");
  assert.equal(releaseRow(html, "R̂ max"), "1.004 (≤ 1.01)");
  assert.equal(releaseRow(html, "Bulk ESS min"), "812.5 (≥ 400)");
  assert.match(releaseRow(html, "Seed"), /^fresh/);
  // The request's settings, the hostile outcome name escaped.
  const settings = /<table class="settings">.*?<\/table>/.exec(html)![0];
  assert.match(settings, /weight shift g<\/td><td>calibrated to the target ε/);
  assert.match(settings, /weight scale c<\/td><td>1 \(default\)/);
  assert.match(settings, /sampler<\/td><td>nuts, 4 chains, 300 warmup, 4000 draws/);
  assert.match(settings, /public covariates<\/td><td>x1, region/);
  assert.ok(settings.includes(escapeHtml(HOSTILE)) && !settings.includes(HOSTILE));
  assert.doesNotMatch(html, /id="warning"/, "no warning for a fit that passed");
});

Deno.test("`reportHtml()` keeps a flagged fit's warning above the release, which names the failed checks", async () => {
  const { utility } = await reports();
  const html = reportHtml(utility, {
    release: {
      ...RELEASE,
      report: { ...REPORT, fitFlagged: true },
      fit: { flagged: true, divergences: 3, rhatMax: 1.05, essBulkMin: 120 },
    },
    warning: FLAGGED_WARNING,
  });
  const warning = html.indexOf('id="warning"');
  assert.ok(warning > 0 && warning < html.indexOf('<section id="release"'));
  assert.ok(html.indexOf("<h1>") < warning);
  assert.match(releaseRow(html, "Final fit"), /^flagged: it failed its diagnostics/);
  assert.equal(releaseRow(html, "Divergent transitions"), "3 fails");
  assert.equal(releaseRow(html, "R̂ max"), "1.05 (≤ 1.01) fails");
  assert.equal(releaseRow(html, "Bulk ESS min"), "120 (≥ 400) fails");
});

Deno.test("`reportHtml()` on registered data: the cap as analysts read it, the achieved Δ and ε as the owner's", async () => {
  const { utility } = await reports();
  // publicRelease's masking: ε the cap, cap/m per dataset, no Δ; the achieved in diagnostics.
  const html = reportHtml(utility, {
    release: {
      ...RELEASE,
      report: { ...REPORT, epsilon: 20, epsilonPerDataset: 10, lipschitz: null },
      achieved: { lipschitz: 4.871234, epsilonPerDataset: 9.742468, epsilon: 19.484936 },
    },
  });
  assert.match(
    releaseRow(html, "ε stated to analysts"),
    /^20 the cap charged at acceptance \(10 per dataset\); the public report states no Δ/,
  );
  assert.equal(
    releaseRow(html, "ε achieved"),
    "19.4849 (9.74247 per dataset; the owner's diagnostics)",
  );
  assert.equal(releaseRow(html, "Δ"), "4.87123 (the owner's diagnostics)");
  assert.doesNotMatch(html, /data-field="ε of the release"/);
});

Deno.test("`reportHtml()` of the perturbed histogram: ε-DP, no Δ, no fit", async () => {
  const { utility } = await reports();
  const html = reportHtml(utility, {
    release: {
      report: {
        ...REPORT,
        mechanism: "histogram",
        model: "normal",
        outcomes: undefined,
        lipschitz: null,
        epsilon: 2,
        epsilonPerDataset: 2,
        guarantee: "DP",
      },
      settings: releaseSettings(
        SynthesisSpec.parse({
          y: "A",
          model: "normal",
          mechanism: "histogram",
          epsilon: 2,
          lower: 0,
          upper: 10,
        }),
      ),
      fit: null,
    },
  });
  assert.match(
    releaseRow(html, "Guarantee"),
    /^DP ε-differential privacy for every database/,
  );
  assert.match(releaseRow(html, "Δ"), /^— \(none/);
  assert.equal(releaseRow(html, "Final fit"), "none (no posterior was fitted)");
  assert.doesNotMatch(html, /data-field="R̂ max"/);
  assert.match(html, /public bounds<\/td><td>\[0, 10\]/);
  assert.doesNotMatch(html, /<td>sampler<\/td>/);
});

/** Headless Chromium with no sandbox, GPU, first-run page or background requests. */
async function launchChromium() {
  const { chromium } = await playwright();
  return await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
}

Deno.test({
  name: "the HTML report in Chromium: plots drawn and visible, names shown as text, no request",
  ignore: IGNORE_BROWSER,
  async fn() {
    const { utility, risk } = await reports();
    const dir = await Deno.makeTempDir({ prefix: "ppsynth_report_" });
    const file = `${dir}/report.html`;
    await Deno.writeTextFile(file, reportHtml(utility, { release: RELEASE, risk }));
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      const requested: string[] = [];
      const problems: string[] = [];
      context.on("request", (request) => requested.push(request.url()));
      const page = await context.newPage();
      page.on("pageerror", (error) => problems.push(error.message));
      page.on("dialog", (dialog) => {
        problems.push(`dialog: ${dialog.message()}`);
        dialog.dismiss();
      });
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text());
      });
      await page.goto(`file://${file}`);
      const count = (selector: string) => page.locator(selector).count();
      // One ECDF (A): the confidential line and m = 2 synthetic lines, drawn with real extent.
      assert.equal(await count("svg.ecdf"), 1);
      assert.equal(await count("svg.ecdf path.series"), 3);
      assert.equal(await count("svg.ecdf path.confidential"), 1);
      const ecdf = page.locator("svg.ecdf").first();
      assert.ok(await ecdf.isVisible());
      const line = await page.locator("svg.ecdf path.confidential").boundingBox();
      assert.ok(line !== null && line.width > 200 && line.height > 100, JSON.stringify(line));
      // Bars: 3 levels of B and 2 of D, each with a confidential and a synthetic bar.
      assert.equal(await count("svg.bars"), 2);
      assert.equal(await count("svg.bars rect.bar"), 2 * (3 + 2));
      const bar = await page.locator("svg.bars rect.bar.confidential").first().boundingBox();
      assert.ok(bar !== null && bar.width > 10, JSON.stringify(bar));
      // The tables: pMSE (2 datasets and their mean), CI overlap (3 models), risk.
      assert.equal(await count("table.propensity tbody tr"), 3);
      assert.equal(await count("table.overlap"), 3);
      assert.equal(await count("svg.intervals"), 4 + 4 + 4);
      assert.ok(await page.locator("svg.intervals").first().isVisible());
      assert.equal(await count("table.risk tbody tr"), 3);
      // The hostile name and level are text on the page, not markup.
      const text = (await page.textContent("body"))!;
      assert.ok(text.includes(HOSTILE));
      assert.ok(text.includes(HOSTILE_LEVEL));
      assert.equal(await count("body script, body img"), 0);
      await Deno.mkdir(SCREENSHOTS, { recursive: true });
      const shot = `${SCREENSHOTS}utility-report.png`;
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`screenshot: ${shot}`);
      assert.deepEqual(problems, []);
      assert.deepEqual(requested, [`file://${file}`], "the page itself and nothing else");
      await context.close();
    } finally {
      await browser.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "report.html in Chromium: the first section is the release (mechanism, ε, guarantee, m, n, fit health); a flagged fit's warning above it",
  ignore: IGNORE_BROWSER,
  async fn() {
    const { utility, risk } = await reports();
    const dir = await Deno.makeTempDir({ prefix: "ppsynth_release_" });
    const file = `${dir}/report.html`;
    const flaggedFile = `${dir}/flagged.html`;
    await Deno.writeTextFile(file, reportHtml(utility, { release: RELEASE, risk }));
    await Deno.writeTextFile(
      flaggedFile,
      reportHtml(utility, {
        release: {
          ...RELEASE,
          report: { ...REPORT, fitFlagged: true },
          fit: { flagged: true, divergences: 3, rhatMax: 1.05, essBulkMin: 120 },
        },
        risk,
        warning: FLAGGED_WARNING,
      }),
    );
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      const problems: string[] = [];
      const page = await context.newPage();
      page.on("pageerror", (error) => problems.push(error.message));
      await page.goto(`file://${file}`);
      // The first section of the page, and the first thing under the title, is the release.
      assert.equal(await page.locator("body > section").first().getAttribute("id"), "release");
      assert.equal(await page.locator("#release h2").innerText(), "Release");
      const release = (await page.locator("#release").boundingBox())!;
      const title = (await page.locator("h1").boundingBox())!;
      const summary = (await page.locator("#summary").boundingBox())!;
      assert.ok(title.y < release.y && release.y + release.height <= summary.y);
      assert.ok(release.y < 900, "the release is in the first screen");
      const row = (field: string) =>
        page.locator(`#release table.release tr[data-field="${field}"] td`).innerText();
      assert.match(await row("Mechanism"), /^lw-final LW re-weighted toward the target/);
      assert.equal(await row("Target ε"), "20");
      assert.equal(await row("ε of the release"), "19.4849 = 2Δ·m");
      assert.match(await row("Guarantee"), /^aDP asymptotic DP: ε = 2Δ·m is the local bound/);
      assert.match(await row("Neighbours"), /^add-remove/);
      assert.match(await row("Δ"), /^4\.87123/);
      assert.equal(await row("Synthetic datasets m"), "2");
      assert.equal(await row("Records n"), "300");
      assert.match(await row("Final fit"), /^passed its diagnostics/);
      assert.equal(await row("Divergent transitions"), "0");
      assert.equal(await row("R̂ max"), "1.004 (≤ 1.01)");
      assert.equal(await row("Bulk ESS min"), "812.5 (≥ 400)");
      assert.ok(await page.locator("#release table.release").isVisible());
      assert.ok(await page.locator("#release table.settings").isVisible());
      assert.equal(await page.locator("#warning").count(), 0);
      await Deno.mkdir(SCREENSHOTS, { recursive: true });
      const shot = `${SCREENSHOTS}report-release.png`;
      await page.screenshot({ path: shot });
      console.log(`screenshot: ${shot}`);

      // A flagged fit: the warning first, above the release, and the fit's row says so.
      await page.goto(`file://${flaggedFile}`);
      const warning = (await page.locator("#warning").boundingBox())!;
      const flaggedRelease = (await page.locator("#release").boundingBox())!;
      assert.ok(warning.y + warning.height <= flaggedRelease.y, "the warning above the release");
      assert.match(await page.locator("#warning").innerText(), /^Not a release/);
      assert.match(await row("Final fit"), /^flagged/);
      assert.equal(await row("Divergent transitions"), "3 fails");
      const flaggedShot = `${SCREENSHOTS}report-release-flagged.png`;
      await page.screenshot({ path: flaggedShot });
      console.log(`screenshot: ${flaggedShot}`);
      assert.deepEqual(problems, []);
      await context.close();
    } finally {
      await browser.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
