/**
 * Issue 36: the files `deno task test:quick` runs, and how `deno task test` splits the suite
 * between a parallel and a serial `deno test`, printed one a line.
 *
 * The quick rule: every test file in the lower layers' folders ({@link QUICK_FOLDERS}: pure
 * functions, random numbers, data, statistics, models, samplers, mechanisms, survey tables, the
 * reports' figures and the architecture checks), less the files named in {@link SLOW_FILES} —
 * those that fit a posterior against rstan, a real file or an exact posterior, draw a large
 * sample for a distribution test or run a mechanism end to end (each several seconds or more on
 * an idle 2-core machine). The other folders ({@link SLOW_FOLDERS}) start servers, subprocesses,
 * browsers, the GPU, databases or whole syntheses and studies, and run only in `deno task test`.
 * Every test file is in one of the sets; test/architecture/test_sets_test.ts fails otherwise, so
 * a new file or folder is classified.
 *
 * The full suite (`deno task test`, scripts/test_suite.ts) runs every test file and the doc tests
 * of src/ and functions/ in two `deno test` runs side by side, after one type check of both:
 * {@link parallelRoots} with `--parallel` (one file more than the cores at once) at the lowest CPU
 * priority, and the {@link SERIAL_FILES} — files whose wall-clock claims (a `/healthz` deadline, a
 * release time, leases shared by two workers) miss when another file's work shares the cores at
 * their priority — one at a time at normal priority.
 *
 *     deno run --allow-read scripts/test_quick.ts             # the quick set
 *     deno run --allow-read scripts/test_quick.ts --parallel  # the full suite's parallel run
 *     deno run --allow-read scripts/test_quick.ts --serial    # the full suite's serial run
 *
 * (`deno test --ignore=…` with several folders applies the ignores to the first folder only, in
 * Deno 2.9.6, hence a list of files rather than folders with `--ignore`.)
 *
 * @module
 */

/** The folders whose test files are quick, less {@link SLOW_FILES}. */
export const QUICK_FOLDERS: readonly string[] = [
  "test/architecture",
  "test/random",
  "test/data",
  "test/stats",
  "test/models",
  "test/mcmc",
  "test/mechanisms",
  "test/survey",
  "test/report",
];

/** Slow files inside {@link QUICK_FOLDERS}: file → why it is slow. */
export const SLOW_FILES: Readonly<Record<string, string>> = {
  "test/mcmc/latent_class_gibbs_test.ts": "the Gibbs sampler against exact pseudo posteriors",
  "test/mcmc/stan_covariates_test.ts": "NUTS against rstan",
  "test/mcmc/stan_reference_test.ts": "NUTS against rstan",
  "test/mechanisms/auto_test.ts": "runs the auto mechanism twice on a file",
  "test/mechanisms/run_mechanism_test.ts": "every mechanism run end to end with fits",
  "test/mechanisms/secure_laplace_test.ts": "KS and chi-square tests on large samples",
  "test/models/cps1988_stan_test.ts": "NUTS on the 28,155-row CPS file against rstan",
  "test/models/fbs_test.ts": "FBS fits on a §4.1 PPS sample",
  "test/models/joint_test.ts": "joint and conditional fits compared",
  "test/models/outcomes_stan_test.ts": "NUTS against rstan (logistic, categorical, hurdle)",
  "test/stats/file_metrics_test.ts": "k-marginal on ma2019 subsamples against NIST's baselines",
  "test/survey/fbs_sizes_test.ts": "FBS fits with and without declared sizes",
};

/** Folders whose test files all run only in `deno task test`: folder → why. */
export const SLOW_FOLDERS: Readonly<Record<string, string>> = {
  "test/api": "the HTTP app with jobs, a browser and Postgres",
  "test/cli": "the CLIs run as subprocesses",
  "test/clients": "R CMD check against a live server",
  "test/golden": "committed outputs recomputed",
  "test/gpu": "WebGPU shaders and samplers",
  "test/jobs": "the job runner with whole syntheses",
  "test/reference": "the rstan reference scripts and fits (no tests)",
  "test/scale": "Redis, Postgres and queue workers",
  "test/security": "requests and jobs end to end",
  "test/studies": "studies run and their committed reports",
  "test/synthesis": "whole syntheses and report.html in a browser",
};

/**
 * Test files that `deno task test` runs one at a time at normal priority, beside the nice-19
 * parallel run (scripts/test_suite.ts): file → the wall-clock claim
 * that another file beside it on 2 cores makes miss (the first three did in the clean-clone CI of
 * 2026-11-28 — F6 then in public_shapes_test.ts — the fourth in the parallel run that day; the
 * last two hold deadlines of 1 and 2 s).
 */
export const SERIAL_FILES: Readonly<Record<string, string>> = {
  "test/security/request_thread_test.ts": "/healthz answers within 1 s during the four stalls",
  "test/security/release_time_test.ts": "F6: jobs end at the request-fixed release time",
  "test/scale/edge_test.ts": "two workers share the jobs on their leases",
  "test/security/store_hygiene_test.ts": "a 16 MiB upload leaves /healthz under 2 s",
  "test/api/file_synthesis_test.ts": "the event loop is never held 1 s during a file job",
  "test/security/table_work_test.ts": "/healthz answers within 2 s while a table runs",
};

/** The folders of the doc tests (`--doc`) of `deno task test`, beside test/. */
export const DOC_ROOTS: readonly string[] = ["src/", "functions/"];

const ROOT = new URL("../", import.meta.url).pathname;

/** Whether `deno test` takes a file name as a test module. */
export function isTestFile(name: string): boolean {
  return /(?:^|[._])test\.(?:ts|tsx|mts|js|mjs|jsx)$/.test(name);
}

/** Every test file under `dir` (relative to the repository root), sorted. */
export async function testFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await testFiles(path));
    else if (entry.isFile && isTestFile(entry.name)) out.push(path);
  }
  return out.sort();
}

/** The quick set: the test files of {@link QUICK_FOLDERS} less {@link SLOW_FILES}. */
export async function quickFiles(): Promise<string[]> {
  const out: string[] = [];
  for (const folder of QUICK_FOLDERS) out.push(...await testFiles(folder));
  return out.filter((file) => !(file in SLOW_FILES));
}

/**
 * What the full suite's parallel run takes: every test file under test/ less the
 * {@link SERIAL_FILES}, then the {@link DOC_ROOTS}.
 */
export async function parallelRoots(): Promise<string[]> {
  const files = (await testFiles("test")).filter((file) => !(file in SERIAL_FILES));
  return [...files, ...DOC_ROOTS];
}

if (import.meta.main) {
  const mode = Deno.args[0];
  const list = mode === "--parallel"
    ? await parallelRoots()
    : mode === "--serial"
    ? Object.keys(SERIAL_FILES)
    : mode === undefined
    ? await quickFiles()
    : null;
  if (list === null) {
    console.error(`test_quick.ts: unknown argument ${mode} (--parallel, --serial or none)`);
    Deno.exit(2);
  }
  console.log(list.join("\n"));
}
