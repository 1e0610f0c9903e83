import assert from "node:assert/strict";
import fs from "node:fs";
import { parseCsv } from "../../src/data/csv.ts";
import type { OutputColumn } from "../../src/data/csv.ts";
import { escapeHtml, reportHtml } from "../../src/synthesis/report_html.ts";
import { riskReport } from "../../src/synthesis/risk_report.ts";
import { type ReportVariable, utilityReport } from "../../src/synthesis/utility_report.ts";

const DATA = new URL("../reference/utility_reference_data.csv", import.meta.url);
const SCREENSHOTS = new URL("../../out/browser/", import.meta.url).pathname;
const CHROMIUM = "/usr/bin/chromium";

const hasChromium = await Deno.stat(CHROMIUM).then(() => true, () => false);
const inCi = Deno.env.get("CI") === "true";
if (!hasChromium && !inCi) {
  console.log(`report browser test ignored: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
}

/** A variable name an owner might type, and one meant to break the page. */
const HOSTILE = `B <script>alert("x")</script>`;
const HOSTILE_LEVEL = `<img src=x onerror=alert(1)>`;

/** The reference data (confidential and m = 2 synthetic), B renamed and one level made hostile. */
async function reports() {
  const all = parseCsv(await Deno.readTextFile(DATA), "utility_reference_data.csv");
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
  const html = reportHtml(utility, { risk, title: `Report <for> "me"` });
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
    "html",
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
  assert.ok(!reportHtml(utility).includes("Identification risk"));
});

/**
 * playwright-core, loaded once `fs.existsSync` answers false where it cannot look (as in
 * test/api/browser_test.ts: Deno's `existsSync` refuses /proc/sys/fs/binfmt_misc/WSLInterop).
 */
async function playwright(): Promise<typeof import("playwright-core")> {
  const existsSync = fs.existsSync;
  fs.existsSync = (path) => {
    try {
      return existsSync(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotCapable) return false;
      throw error;
    }
  };
  return await import("playwright-core");
}

Deno.test({
  name: "the HTML report in Chromium: plots drawn and visible, names shown as text, no request",
  ignore: !hasChromium && !inCi,
  async fn() {
    const { utility, risk } = await reports();
    const dir = await Deno.makeTempDir({ prefix: "ppsynth_report_" });
    const file = `${dir}/report.html`;
    await Deno.writeTextFile(file, reportHtml(utility, { risk }));
    const { chromium } = await playwright();
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
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
