/**
 * Issue 37: the R client (`clients/r/ppsynth`). Its combining-rule fixture must equal a fresh
 * recording from the project's own `combine.ts`; and `R CMD build` then `R CMD check --no-manual`
 * must pass with no error or warning, against a live server (this test starts one on a
 * temporary store and gives R its URL, an owner key and the repository): the build knits the
 * vignette (the bundled ACS excerpt released whole, a svyby estimate combined over the synthetic
 * files) into the tarball's `inst/doc`, and the check installs that tarball, checks its vignette
 * files, and runs the testthat tests on the same server (PPSYNTH_TEST_URL, with an owner and an
 * analyst key: no second server, store or keys; run by hand they start their own `deno task
 * serve`), which run the vignette's steps end to end. The check does not knit the vignette a
 * second time (`--no-vignettes`): the build's knit is the one that ran against the server, and
 * the HTML the check installs from the tarball is read back here for its printed results.
 *
 * Needs R with httr2, jsonlite, survey, testthat, knitr, rmarkdown and processx (Debian's
 * r-cran-* packages; `.ci/run` installs them) and pandoc; skipped where R is absent, except
 * under CI=true, where it fails. 1 to 3 minutes (one whole-file release of the ACS excerpt and
 * one of a subsample).
 *
 * @module
 */
import assert from "node:assert/strict";
import { createKeyCommand, serveCommand, serveEnv } from "../api/_helpers.ts";
import { freePort, until } from "../_poll.ts";
import { FIXTURE, fixtureText } from "../../scripts/r_combine_fixture.ts";

const REPO = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
const PACKAGE = `${REPO}/clients/r/ppsynth`;
const CI = Deno.env.get("CI") === "true";

/** Whether `R` runs here. */
async function hasR(): Promise<boolean> {
  try {
    const { code } = await new Deno.Command("R", { args: ["--version"], stdout: "null" }).output();
    return code === 0;
  } catch {
    return false;
  }
}

const R_PRESENT = await hasR();

Deno.test("R client: the combining-rule fixture is combine.ts's own numbers", async () => {
  assert.equal(await Deno.readTextFile(FIXTURE), fixtureText());
});

/** Runs a command in `cwd` with `env` added; its output, and a failure naming it. */
async function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<string> {
  const result = await new Deno.Command(command, {
    args,
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(result.stdout) +
    new TextDecoder().decode(result.stderr);
  assert.equal(result.code, 0, `${command} ${args.join(" ")} failed:\n${text}`);
  return text;
}

/** A stream's text so far, gathered as it arrives (`done` when the stream ends). */
function collect(stream: ReadableStream<Uint8Array>): { text: string; done: Promise<void> } {
  const gathered = { text: "", done: Promise.resolve() };
  gathered.done = stream.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (gathered.text += chunk) }),
  );
  return gathered;
}

/** The text of the knitted vignette's code blocks (code and `#>` output), tags and entities undone. */
function vignetteOutput(html: string): string {
  const blocks = [...html.matchAll(/<pre[^>]*>([\s\S]*?)<\/pre>/g)].map((m) => m[1]);
  return blocks.join("\n").replace(/<[^>]+>/g, "").replace(/&gt;/g, ">").replace(/&lt;/g, "<")
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
}

Deno.test({
  name: "R client: R CMD check is clean, the vignette and the testthat tests run on a live server",
  ignore: !R_PRESENT && !CI,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    assert.ok(R_PRESENT, "CI=true but R is absent: .ci/run installs r-base-core and r-cran-*");
    const dir = await Deno.makeTempDir({ prefix: "ppsynth_r_client_" });
    const port = freePort();
    const env = serveEnv(`${dir}/data`, port);
    const key = await createKeyCommand(env, "submit,read,diagnostics,admin", "r-vignette");
    const analystKey = await createKeyCommand(env, "submit,read", "r-analyst");
    const server = serveCommand(env, "piped").spawn();
    const serverLog = collect(server.stdout);
    const serverErrors = collect(server.stderr);
    try {
      const url = `http://127.0.0.1:${port}`;
      await until("the server", async () => (await fetch(`${url}/healthz`)).ok || undefined);
      const rEnv = {
        PPSYNTH_URL: url,
        PPSYNTH_KEY: key,
        PPSYNTH_REPO: REPO,
        PPSYNTH_DENO: Deno.execPath(),
        PPSYNTH_TEST_URL: url,
        PPSYNTH_TEST_OWNER_KEY: key,
        PPSYNTH_TEST_ANALYST_KEY: analystKey,
      };
      // The build installs the package and knits the vignette against the server (an error in a
      // chunk fails it); the HTML goes into the tarball's inst/doc.
      const build = await run("R", ["CMD", "build", PACKAGE], dir, rEnv);
      assert.match(build, /installing the package to build vignettes/);
      assert.match(build, /creating vignettes \.\.\. OK/);
      const tarball = [...Deno.readDirSync(dir)].find((e) => /^ppsynth_.*\.tar\.gz$/.test(e.name));
      assert.ok(tarball, build);
      // The check runs on that tarball; --no-vignettes spares it a second knit (a second
      // whole-file release: the rebuild, or the run of the tangled code) of what the build just
      // knitted. It still checks the vignette's sources and the built outputs in inst/doc.
      await run("R", ["CMD", "check", "--no-manual", "--no-vignettes", tarball.name], dir, rEnv);
      const log = await Deno.readTextFile(`${dir}/ppsynth.Rcheck/00check.log`);
      assert.doesNotMatch(log, /WARNING|ERROR/, log);
      assert.match(log, /checking tests \.\.\.[\s\S]*OK/, log);
      assert.match(log, /checking files in .vignettes. \.\.\. OK/, log);
      assert.match(log, /checking package vignettes in .inst\/doc. \.\.\. OK/, log);
      // The server tests ran: none skipped, none failed.
      const tests = await Deno.readTextFile(`${dir}/ppsynth.Rcheck/tests/testthat.Rout`);
      const summary = tests.match(/\[ FAIL (\d+) \| WARN (\d+) \| SKIP (\d+) \| PASS (\d+) \]/);
      assert.ok(summary, tests);
      assert.deepEqual(summary.slice(1, 4), ["0", "0", "0"], summary[0]);
      assert.ok(Number(summary[4]) >= 250, summary[0]);
      // They ran on this server: its log has the vignette's registration and the tests' three
      // (two in test-api.R, one end to end).
      const registered = serverLog.text.match(/"route":"\/v1\/datasets","status":201/g) ?? [];
      assert.ok(registered.length >= 4, `${serverLog.text}\n${serverErrors.text}`);
      // The vignette, as installed from the tarball, was evaluated against the server: the whole
      // file registered and released (ε/m = 10/3 < 5: SW) into three files, and the analysis
      // printed its five PUMAs' confidential and combined synthetic estimates; no chunk warned.
      const html = await Deno.readTextFile(`${dir}/ppsynth.Rcheck/ppsynth/doc/ppsynth.html`);
      const output = vignetteOutput(html);
      assert.match(output, /^#> +n = 7634, 23 columns, epsilon total 30$/m, output);
      assert.match(output, /^#> +sw \/ bayes-net, epsilon 10 \(.*\), m = 3, n = 7634$/m, output);
      assert.match(output, /^length\(files\)\n#> \[1\] 3$/m, output);
      const rows = output.match(/^#> [1-5] 25-\d{5}( +-?\d+\.\d+){6}$/gm) ?? [];
      assert.equal(rows.length, 5, output);
      assert.doesNotMatch(output, /^#> (Warning|Error)/m, output);
      console.log(`R client: ${summary[0]}; ${log.match(/Status: .*/)?.[0]}`);
    } finally {
      server.kill("SIGTERM");
      await server.status;
      await Promise.all([serverLog.done, serverErrors.done]);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
