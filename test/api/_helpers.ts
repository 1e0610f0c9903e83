/**
 * Shared pieces of the API tests: an app on a temporary store with one key per scope, a log
 * that is kept for the leak checks, distinctive confidential data, and polling.
 */
import assert from "node:assert/strict";
import { createApiKey } from "../../src/api/auth.ts";
import { ApiConfig } from "../../src/jobs/config.ts";
import { type ApiContext, openContext } from "../../src/jobs/context.ts";
import type { Scope } from "../../src/jobs/store.ts";
import { mainApp } from "../../functions/main.ts";
import { until } from "../_poll.ts";

/** Confidential outcome values: six-decimal numbers that no log line holds by chance. */
export function confidentialValues(n: number): string[] {
  return Array.from({ length: n }, (_, i) => (2 + ((i * 0.6180339887) % 1) * 2).toFixed(6));
}

/** CSV text with the confidential outcome y and a public covariate z. */
export function confidentialCsv(n: number): string {
  const y = confidentialValues(n);
  return "y,z\n" + y.map((value, i) => `${value},${(i % 10) / 10}`).join("\n") + "\n";
}

/** The quick synthesis settings of the tests (a normal model, seconds on a loaded core). */
export const QUICK = {
  y: "y",
  x: ["z"],
  model: "normal",
  mechanism: "unweighted",
  // Enough for the final fit to pass its diagnostics (R̂ ≤ 1.01, bulk ESS ≥ 400, no divergence),
  // without which nothing is released: at 4,000 draws max R̂ 1.005 over 40 seeds, 0.34 s a fit.
  // 2,000 since issue 36: 400 unseeded jobs of the load scenario (test/api/_load.ts) all
  // released; at 1,000 about 1.5 % of them failed (`fit_flagged`, R̂ 1.010–1.013), too many.
  draws: 2000,
  chains: 4,
  warmup: 300,
} as const;

/** A test server: the app, its context, one key per scope and everything it logged. */
export interface TestApp {
  readonly app: ReturnType<typeof mainApp>;
  readonly context: ApiContext;
  /** Keys by name: all (every scope), submit, read, diagnostics, admin. */
  readonly keys: Record<"all" | Scope, string>;
  readonly logs: string[];
  readonly dir: string;
  close(): Promise<void>;
}

/**
 * Builds the whole app on a temporary data directory.
 *
 * @param settings Settings to override (defaults: 2 workers, fast polling).
 * @param jobs Run the worker pool.
 */
export async function testApp(
  settings: Partial<Record<keyof ApiConfig, number>> = {},
  jobs = true,
): Promise<TestApp> {
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_api_" });
  const logs: string[] = [];
  const config = ApiConfig.parse({
    dataDir: dir,
    workers: 2,
    pollMs: 50,
    progressIntervalMs: 0,
    // Jobs are shown as they finish; test/security/release_time_test.ts tests the release time.
    releaseDelayMs: 0,
    // A request is judged by its answer, not by the 30 s deadline: under `deno test` a worker
    // module's first load type-checks it, which on 2 loaded cores (the suite's parallel run, a
    // clean clone) took a synchronous laplace table past 30 s. The deadline's own tests set it.
    requestTimeoutMs: 300_000,
    ...settings,
  });
  const context = await openContext(config, {
    jobs,
    log: (event, fields = {}) => logs.push(JSON.stringify({ event, ...fields })),
  });
  const keys = {} as Record<"all" | Scope, string>;
  keys.all = (await createApiKey(context.store, ["submit", "read", "diagnostics", "admin"], "all"))
    .secret;
  for (const scope of ["submit", "read", "diagnostics", "admin"] as const) {
    keys[scope] = (await createApiKey(context.store, [scope], scope)).secret;
  }
  return {
    app: mainApp(context),
    context,
    keys,
    logs,
    dir,
    async close() {
      await context.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Headers with a bearer key and, for a body, its content type. */
export function auth(key: string, contentType = "application/json"): HeadersInit {
  return { Authorization: `Bearer ${key}`, "Content-Type": contentType };
}

/** Runs `body`, then closes `t`, whether `body` passed or threw. */
export async function closing(t: TestApp, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } finally {
    await t.close();
  }
}

/** A JSON POST to `path` with a key (and an optional Idempotency-Key). */
export function postJson(
  t: TestApp,
  path: string,
  key: string,
  body: unknown,
  idempotencyKey?: string,
): Promise<Response> {
  return Promise.resolve(t.app.request(path, {
    method: "POST",
    headers: {
      ...auth(key),
      ...(idempotencyKey === undefined ? {} : { "Idempotency-Key": idempotencyKey }),
    },
    body: JSON.stringify(body),
  }));
}

/** Polls a job until it is succeeded or failed. */
export async function waitForJob(
  get: (path: string) => Response | Promise<Response>,
  id: string,
  timeoutMs = 120_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await get(`/v1/syntheses/${id}`);
    assert.equal(response.status, 200);
    const job = await response.json();
    if (job.status === "succeeded" || job.status === "failed") return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Asserts that no log line contains any of the secrets. */
export function assertNoLeak(logs: readonly string[], secrets: readonly string[]): void {
  const text = logs.join("\n");
  secrets.forEach((secret, k) => {
    assert.ok(!text.includes(secret), `the log contains confidential value or key number ${k}`);
  });
}

const SERVE = new URL("../../src/cli/serve.ts", import.meta.url).pathname;
const KEYS = new URL("../../src/cli/keys.ts", import.meta.url).pathname;

/**
 * The environment of a `deno task serve` subprocess: data in `dataDir`, one worker,
 * 127.0.0.1:`port`, jobs shown to analysts as they finish (no release delay).
 */
export function serveEnv(dataDir: string, port: number) {
  return {
    PPSYNTH_DATA_DIR: dataDir,
    PORT: String(port),
    PPSYNTH_HOST: "127.0.0.1",
    PPSYNTH_WORKERS: "1",
    PPSYNTH_RELEASE_DELAY_MS: "0",
  };
}

/** `deno task serve` as a subprocess with `env`, its standard output and error piped or dropped. */
export function serveCommand(env: Record<string, string>, output: "piped" | "null"): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "--allow-sys",
      SERVE,
    ],
    env,
    stdout: output,
    stderr: output,
  });
}

/**
 * `deno task keys create --scopes …` (with `--name` where given) in `env`: asserts that it
 * succeeded and returns the key it printed once.
 */
export async function createKeyCommand(
  env: Record<string, string>,
  scopes: string,
  name?: string,
): Promise<string> {
  const named = name === undefined ? [] : ["--name", name];
  const created = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "--allow-net",
      KEYS,
      "create",
      "--scopes",
      scopes,
      ...named,
    ],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(created.code, 0, new TextDecoder().decode(created.stderr));
  return new TextDecoder().decode(created.stdout).trim();
}

/**
 * A synthesis that runs for a while (normal model, censored LW, loose ε), for tests that watch a running
 * job: add `datasetId` and `draws`.
 */
export const SLOW_SYNTHESIS = {
  y: "y",
  x: ["z"],
  model: "normal",
  // Censored: the normal model's density sums every record (its uncensored densities read the
  // weighting's sums, O(K²) per gradient), so the job stays seconds long.
  mechanism: "censored-w",
  epsilon: 1e6,
  c: 1,
  g: 0.2,
  chains: 2,
  warmup: 300,
} as const;

/** A JSON client of the API at `base` with a bearer `key`: asserts each status is below 500. */
export function apiClient(base: string, key: string) {
  const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
  return async (path: string, init?: RequestInit) => {
    const response = await fetch(base + path, { headers, ...init });
    assert.ok(response.status < 500, `${path}: ${response.status}`);
    return await response.json();
  };
}

/**
 * Registers a 200-record confidential dataset, submits a slow synthesis of it (m = 2, 8000 draws)
 * and waits until the job runs and reports progress; returns the dataset and the job.
 */
export async function startSlowJob(
  api: ReturnType<typeof apiClient>,
): Promise<{ dataset: { id: string }; id: string }> {
  const dataset = await api("/v1/datasets", {
    method: "POST",
    body: JSON.stringify({ epsilonTotal: 1e9, csv: confidentialCsv(200), publicColumns: ["z"] }),
  });
  const { id } = await api("/v1/syntheses", {
    method: "POST",
    body: JSON.stringify({ datasetId: dataset.id, ...SLOW_SYNTHESIS, m: 2, draws: 8000 }),
  });
  await until("the job to run", async () => {
    const job = await api(`/v1/syntheses/${id}`);
    return job.status === "running" && job.progress?.fraction > 0 ? job : undefined;
  });
  return { dataset, id };
}

/** Polls job `id` until it has succeeded or failed; returns it. */
export function untilJobEnds(api: ReturnType<typeof apiClient>, id: string) {
  return until("the job to finish", async () => {
    const job = await api(`/v1/syntheses/${id}`);
    return job.status === "succeeded" || job.status === "failed" ? job : undefined;
  });
}
