/**
 * Issue 37: the R client (`clients/r/ppsynth`). Its combining-rule fixture must equal a fresh
 * recording from the project's own `combine.ts`; and `R CMD build` then `R CMD check --no-manual`
 * must pass with no error or warning, against a live server (this test starts one on a
 * temporary store and gives R its URL, an owner key and the repository): the build knits the
 * vignette (the bundled ACS excerpt released whole, a svyby estimate combined over the synthetic
 * files), and the check re-runs it and runs the testthat tests, which start their own
 * `deno task serve` (this Deno, PPSYNTH_DENO) and run the vignette's steps end to end.
 *
 * Needs R with httr2, jsonlite, survey, testthat, knitr, rmarkdown and processx (Debian's
 * r-cran-* packages; `.ci/run` installs them) and pandoc; skipped where R is absent, except
 * under CI=true, where it fails. 2 to 5 minutes (two whole-file releases of the ACS excerpt and
 * one of a subsample; 2 min 11 s on an idle development machine).
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
    const server = serveCommand(env, "null").spawn();
    try {
      const url = `http://127.0.0.1:${port}`;
      await until("the server", async () => (await fetch(`${url}/healthz`)).ok || undefined);
      const rEnv = {
        PPSYNTH_URL: url,
        PPSYNTH_KEY: key,
        PPSYNTH_REPO: REPO,
        PPSYNTH_DENO: Deno.execPath(),
        // The check re-builds the vignette (a release on the server) and so skips running its
        // tangled code a second time; an error there is still a WARNING.
        _R_CHECK_VIGNETTES_SKIP_RUN_MAYBE_: "true",
      };
      const build = await run("R", ["CMD", "build", PACKAGE], dir, rEnv);
      assert.match(build, /creating vignettes \.\.\. OK/);
      const tarball = [...Deno.readDirSync(dir)].find((e) => /^ppsynth_.*\.tar\.gz$/.test(e.name));
      assert.ok(tarball, build);
      await run("R", ["CMD", "check", "--no-manual", tarball.name], dir, rEnv);
      const log = await Deno.readTextFile(`${dir}/ppsynth.Rcheck/00check.log`);
      assert.doesNotMatch(log, /WARNING|ERROR/, log);
      assert.match(log, /checking tests \.\.\.[\s\S]*OK/, log);
      assert.match(log, /checking re-building of vignette outputs \.\.\. OK/, log);
      // The server tests ran: none skipped, none failed.
      const tests = await Deno.readTextFile(`${dir}/ppsynth.Rcheck/tests/testthat.Rout`);
      const summary = tests.match(/\[ FAIL (\d+) \| WARN (\d+) \| SKIP (\d+) \| PASS (\d+) \]/);
      assert.ok(summary, tests);
      assert.deepEqual(summary.slice(1, 4), ["0", "0", "0"], summary[0]);
      assert.ok(Number(summary[4]) >= 250, summary[0]);
      // The vignette was evaluated against the server: its release printed the job (ε/m = 10/3 < 5: SW).
      const html = await Deno.readTextFile(`${dir}/ppsynth.Rcheck/ppsynth/doc/ppsynth.html`);
      assert.match(html, /sw \/ bayes-net, epsilon 10/);
      console.log(`R client: ${summary[0]}; ${log.match(/Status: .*/)?.[0]}`);
    } finally {
      server.kill("SIGTERM");
      await server.status;
      await Deno.remove(dir, { recursive: true });
    }
  },
});
