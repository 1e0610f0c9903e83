import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createApiKey } from "../../src/api/auth.ts";
import { announceChromium, CHROMIUM, IGNORE_BROWSER, playwright } from "../_browser.ts";
import { testApp } from "./_helpers.ts";

const DEMO = new URL("../../examples/skewed_counts.csv", import.meta.url);
const SCREENSHOTS = new URL("../../out/browser/", import.meta.url).pathname;
/** What Chromium runs without (`--disable-…`): no GPU, no QUIC and nothing it fetches by itself. */
const CHROMIUM_DISABLED = ["gpu", "quic", "background-networking", "component-update", "sync"];
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--no-first-run",
  ...CHROMIUM_DISABLED.map((what) => `--disable-${what}`),
];

announceChromium("browser test");

Deno.test("the web report and /docs load with no key and take every file from this server", async () => {
  const t = await testApp({}, false);
  try {
    const page = await t.app.request("/");
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type")!, /^text\/html/);
    assert.match(page.headers.get("content-security-policy")!, /script-src 'self'/);
    const html = await page.text();
    const docs = await (await t.app.request("/docs")).text();
    const urls = [...`${html}\n${docs}`.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
      .filter((url) => !url.startsWith("data:"));
    const local = urls.filter((url) => url.startsWith("/"));
    assert.deepEqual(urls, local, "no file from elsewhere");
    for (const url of local) {
      const response = await t.app.request(url);
      assert.equal(response.status, 200, url);
      const type = response.headers.get("content-type")!;
      if (url.endsWith(".js")) assert.match(type, /^text\/javascript/, url);
      if (url.endsWith(".css")) assert.match(type, /^text\/css/, url);
      await response.body?.cancel();
    }
    assert.ok(local.includes("/web/report.js"));
    // The report modules the page imports: the figure specs and the SVG renderer, as JavaScript.
    const modules = await t.app.request("/web/report/svg.ts");
    assert.match(modules.headers.get("content-type")!, /^text\/javascript/);
    assert.match(await modules.text(), /export function figureSvg\(figure\s*\)/);
    assert.ok(local.includes("/assets/swagger-ui-dist/swagger-ui-bundle.js"));
    const d3 = await (await t.app.request("/assets/d3/dist/d3.min.js")).text();
    assert.ok(d3.startsWith("// https://d3js.org v7.9.2"), "the d3 deno.json pins");
    assert.equal((await t.app.request("/assets/d3/package.json")).status, 404);
  } finally {
    await t.close();
  }
});

/** Form fields by selector, with the values to set, in the order they are set. */
type Fields = Readonly<Record<string, string>>;

/** The demo data's first 200 records with survey columns (weight, region, sex) added. */
function surveyDemo(demo: string): string {
  const values = demo.trim().split("\n").slice(1, 201);
  return "y,w,region,sex\n" +
    values.map((y, i) => `${y},${1 + (i * 7) % 5},${"ABCD"[i % 4]},${i % 3 === 0 ? "f" : "m"}`)
      .join("\n") +
    "\n";
}

Deno.test({
  name:
    "the web report in Chromium: register with a policy, synthesize, report and plots; no confidential plot without diagnostics",
  ignore: IGNORE_BROWSER,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "ppsynth_browser_" });
    // The whole app served over loopback from this process (issue 36: not a `deno task serve`
    // subprocess, whose start-up is crash_test's claim; `deno task keys` is deploy_test's), one
    // job worker as that command's.
    const t = await testApp({ workers: 1 });
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, t.app.fetch);
    const base = `http://127.0.0.1:${server.addr.port}`;
    const owner = t.keys.all;
    const analyst = (await createApiKey(t.context.store, ["submit", "read"], "analyst")).secret;
    const { chromium } = await playwright();
    const context = await chromium.launchPersistentContext(`${dir}/profile`, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    try {
      const requested: string[] = [];
      const problems: string[] = [];
      context.on("request", (request) => requested.push(request.url()));
      const open = async (key: string) => {
        const page = await context.newPage();
        page.on("pageerror", (error) => problems.push(error.message));
        await page.goto(`${base}/`);
        await page.fill("#key", key);
        await page.click("#key-form button");
        await page.waitForSelector("#key-status:has-text('key accepted')");
        return page;
      };
      /** Waits until the element is shown, or the page shows an error. */
      const settle = (page: Awaited<ReturnType<typeof open>>, selector: string) =>
        page.locator(`${selector}:not([hidden]), #error:not(:empty)`).first().waitFor({
          timeout: 45_000,
        });
      const count = (page: Awaited<ReturnType<typeof open>>, selector: string) =>
        page.locator(selector).count();
      /** Fills each input with its value, in order. */
      const fill = async (page: Awaited<ReturnType<typeof open>>, values: Fields) => {
        for (const [selector, value] of Object.entries(values)) await page.fill(selector, value);
      };
      /** Selects each `<select>`'s option by value, in order. */
      const select = async (page: Awaited<ReturnType<typeof open>>, values: Fields) => {
        for (const [selector, value] of Object.entries(values)) {
          await page.selectOption(selector, value);
        }
      };

      // The data owner: register the data with region and sex public and public bounds of y,
      // synthesize with LW_final at ε = 8, tabulate.
      const page = await open(owner);
      await page.setInputFiles("#csv-file", {
        name: "skewed_counts.csv",
        mimeType: "text/csv",
        buffer: Buffer.from(surveyDemo(await Deno.readTextFile(DEMO))),
      });
      await settle(page, "#survey");
      await page.selectOption("#y", "y");
      // One "public" box per column, none ticked: strata and by offer no column yet.
      assert.equal(await count(page, "#public-columns input[type=checkbox]"), 4);
      assert.equal(await count(page, "#public-columns input:checked"), 0);
      assert.equal(await count(page, "#by-1 option"), 0);
      await page.check("#public-columns input[value=region]");
      await page.check("#public-columns input[value=sex]");
      assert.deepEqual(
        await page.locator("#by-2 option").allTextContents(),
        ["region", "sex"],
        "only public columns are offered as by",
      );
      // The API's answer to a policy it refuses is shown, code, message and field.
      await fill(page, { "#bound-lower": "1000", "#bound-upper": "0" });
      await page.click("#run");
      await page.locator("#error:not(:empty)").waitFor();
      assert.match((await page.textContent("#error"))!, /^invalid_policy: .*\(bounds\.y\)$/);
      await fill(page, { "#bound-lower": "0", "#bound-upper": "1000" });
      await select(page, { "#model": "negbin", "#mechanism": "lw-final" });
      await fill(page, { "#epsilon": "8", "#m": "2" });
      await page.click("summary");
      await fill(page, { "#draws": "4000", "#chains": "4", "#warmup": "300" });
      // No seed on a registered dataset: the server draws it.
      assert.equal(await page.isDisabled("#seed"), true);
      await page.check("#tabulate");
      await page.selectOption("#weight", "w");
      await fill(page, { "#weight-bound-lower": "0", "#weight-bound-upper": "10" });
      await select(page, { "#strata": "region", "#by-1": "region", "#by-2": "sex" });
      await page.selectOption("#table-method", "laplace");
      await page.fill("#table-epsilon", "2");
      await page.click("#run");
      await settle(page, "#tables-section");
      assert.equal(await page.textContent("#error"), "");
      // The policy of the registered dataset, from the 201 answer.
      const policy = (await page.textContent("#policy"))!;
      assert.match(policy, /Public columns\s*region, sex/);
      assert.match(policy, /Confidential columns\s*y, w/);
      assert.match(policy, /region: A, B, C, D; sex: f, m/);
      assert.match(policy, /Public bounds\s*y: \[0, 1000\]; w: \[0, 10\]/);
      assert.match(policy, /add-remove/);
      assert.match((await page.textContent("#policy-section"))!, /fixed at registration/);
      assert.equal(await page.textContent("#status"), "succeeded");
      // The release first: mechanism, model, guarantee, neighbours, ε, m, n, then the fit.
      const release = (await page.textContent("#report"))!;
      assert.match(
        release,
        /lw-final.*negbin.*aDP.*add-remove.*charged cap\)\s*8.*datasets m\s*2.*Records n\s*200/s,
      );
      assert.match(release, /Final fit\s*passed its diagnostics/);
      // The owner's key also sees the achieved ε and Δ and the fit's diagnostics.
      assert.match(release, /ε achieved \(owner's diagnostics\)\s*[\d.]+/);
      assert.match(release, /Divergent transitions \(owner's diagnostics\)\s*0/);
      assert.match(release, /R̂ max .*Bulk ESS min/s);
      assert.equal(await page.isHidden("#fit-warning"), true);
      // The synthesis (its requested ε = 8) and the table (ε = 2) charged to the budget of 20.
      const spent = /ε spent ([\d.]+) of 20 \(2 charges/.exec(
        (await page.textContent("#budget"))!,
      );
      assert.equal(spent?.[1], "10", "each request's ε is charged when it is accepted");
      // ECDF: the confidential data and the m = 2 synthetic datasets.
      assert.equal(await count(page, "#plot-ecdf svg.ecdf path.series"), 3);
      assert.equal(await count(page, "#plot-ecdf svg path.confidential"), 1);
      const ecdfBox = await page.locator("#plot-ecdf svg path.confidential").boundingBox();
      assert.ok(ecdfBox !== null && ecdfBox.width > 200, JSON.stringify(ecdfBox));
      // The records' bounds Δ_i and the released bound Δ_{α,x}.
      assert.equal(await count(page, "#plot-lipschitz svg path.records"), 1);
      assert.equal(await count(page, "#plot-lipschitz svg path.released"), 1);
      assert.equal(await count(page, "#plot-weights svg circle.record"), 200);
      // The owner's utility report, in its sandboxed frame: its ECDF plot is drawn.
      assert.ok(await page.isVisible("#utility-report"));
      const utility = page.frameLocator("#utility-report");
      assert.ok(await utility.locator("svg").count() >= 1);
      assert.ok(((await utility.locator("svg").first().boundingBox())?.width ?? 0) > 100);
      assert.match((await utility.locator("body").textContent())!, /pMSE/);
      // Its first section is the release: on registered data the cap as analysts read it, then
      // the achieved ε and Δ (the owner's), m, n and the fit's health.
      assert.equal(await utility.locator("body > section").first().getAttribute("id"), "release");
      const cell = (field: string) =>
        utility.locator(`#release tr[data-field="${field}"] td`).innerText();
      assert.match(await cell("Mechanism"), /^lw-final/);
      assert.match(await cell("Guarantee"), /^aDP/);
      assert.match(await cell("ε stated to analysts"), /^8 the cap charged at acceptance/);
      assert.match(await cell("ε achieved"), /^[\d.]+ \([\d.]+ per dataset; the owner's/);
      assert.equal(await cell("Synthetic datasets m"), "2");
      assert.equal(await cell("Records n"), "200");
      assert.match(await cell("Final fit"), /^passed/);
      assert.match(await cell("Target ε"), /^8$/);
      // Survey tables: 4 regions × 2 sexes, and every row of the 5·3 table.
      assert.equal(await count(page, "#plot-tables svg circle.cell"), 8);
      assert.equal(await count(page, "#table-rows tr"), 1 + 15);
      assert.match(
        (await page.textContent("#table-privacy"))!,
        /laplace: ε = 2 \(DP, add-remove neighbours\)/,
      );
      await Deno.mkdir(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}report-owner.png`, fullPage: true });
      console.log(`screenshot: ${SCREENSHOTS}report-owner.png`);

      // An analyst's key (no diagnostics scope) sees the public report only.
      const jobId = await page.inputValue("#job-id");
      const other = await open(analyst);
      await other.fill("#job-id", jobId);
      assert.equal(await other.isHidden("#policy-fields"), true, "no file, no policy to set");
      await other.click("#load-form button");
      await settle(other, "#report-section");
      assert.equal(await other.textContent("#error"), "");
      // The analyst (same tenant) reads the policy through GET /v1/datasets/{id}.
      assert.match((await other.textContent("#policy"))!, /region, sex.*add-remove/s);
      assert.match(
        (await other.textContent("#diagnostics-note"))!,
        /lacks the "diagnostics" scope/,
      );
      assert.equal(await count(other, "#plot-ecdf svg path.series"), 2);
      assert.equal(await count(other, "#plot-ecdf svg path.confidential"), 0);
      assert.equal(await count(other, "#plot-lipschitz svg, #plot-weights svg"), 0);
      // The release as analysts read it: the cap, no Δ, the fit's verdict, no owner's rows.
      const analystRelease = (await other.textContent("#report"))!;
      assert.match(analystRelease, /charged cap\)\s*8/);
      assert.match(analystRelease, /none on registered data\)\s*none/);
      assert.match(analystRelease, /Final fit\s*passed its diagnostics/);
      assert.doesNotMatch(analystRelease, /owner's diagnostics/);
      assert.equal(await other.isHidden("#fig-lipschitz"), true);
      assert.equal(await other.isHidden("#fig-weights"), true);
      await other.screenshot({ path: `${SCREENSHOTS}report-analyst.png`, fullPage: true });
      console.log(`screenshot: ${SCREENSHOTS}report-analyst.png`);

      // /docs in the owner's tab (the key is in its sessionStorage): Swagger UI, from this server,
      // under its Content-Security-Policy (a violation is a console message, not a page error).
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) problems.push(message.text());
      });
      const docs = await page.goto(`${base}/docs`);
      assert.doesNotMatch(docs!.headers()["content-security-policy"], /unsafe/);
      await page.waitForSelector(".opblock-summary-path[data-path='/v1/tables']");
      // An operation opened (parameters, schemas and example bodies rendered).
      await page.click(".opblock-summary-path[data-path='/v1/syntheses']");
      await page.waitForSelector(".opblock.is-open .opblock-section");
      await page.screenshot({ path: `${SCREENSHOTS}docs.png` });
      console.log(`screenshot: ${SCREENSHOTS}docs.png`);

      assert.deepEqual(problems, []);
      assert.deepEqual(requested.filter((url) => !url.startsWith(base)), [], "nothing external");
    } finally {
      await context.close();
      await server.shutdown();
      await t.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
