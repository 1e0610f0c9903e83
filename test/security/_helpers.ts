/**
 * Shared pieces of the attack tests (issue 11): per-tenant keys (an owner who registers and an
 * analyst with `submit,read` only), registration with a release policy, survey data, and the
 * requests an analyst sends through `app.request()`.
 */
import assert from "node:assert/strict";
import { createApiKey } from "../../src/api/auth.ts";
import type { JobStore } from "../../src/jobs/store.ts";
import {
  auth,
  closing,
  confidentialCsv,
  postJson,
  QUICK,
  type TestApp,
  waitForJob,
} from "../api/_helpers.ts";

export {
  auth,
  confidentialCsv,
  confidentialValues,
  postJson as post,
  QUICK,
  SLOW_SYNTHESIS,
  testApp,
  waitForJob,
} from "../api/_helpers.ts";
export type { TestApp } from "../api/_helpers.ts";

/** `createApiKey(store, scopes, name, tenant)`, typed loosely so that it also runs where the
 * tenant argument does not exist yet. */
const createKey = createApiKey as unknown as (
  store: JobStore,
  scopes: readonly string[],
  name: string,
  tenant?: string,
) => Promise<{ secret: string }>;

/** The keys of one tenant: the data owner's and an analyst's (`submit,read` only). */
export interface TenantKeys {
  readonly owner: string;
  readonly analyst: string;
}

/**
 * Creates an owner key (admin, diagnostics, read) and an analyst key (submit, read) in `tenant`.
 *
 * @param t The test app.
 * @param tenant The tenant's name.
 */
export async function tenantKeys(t: TestApp, tenant = "default"): Promise<TenantKeys> {
  const store = t.context.store as unknown as JobStore;
  return {
    owner: (await createKey(store, ["admin", "diagnostics", "read"], `${tenant}-owner`, tenant))
      .secret,
    analyst: (await createKey(store, ["submit", "read"], `${tenant}-analyst`, tenant)).secret,
  };
}

/**
 * Runs `body` with the default tenant's keys (`tenantKeys`), then closes `t`, whether `body`
 * passed or threw.
 *
 * @param t The test app.
 * @param body The test, given the owner's and the analyst's keys.
 */
export function withTenant(
  t: TestApp,
  body: (keys: TenantKeys) => Promise<void>,
): Promise<void> {
  return closing(t, async () => body(await tenantKeys(t)));
}

/**
 * A key of `tenant` with the given scopes.
 *
 * @param t The test app.
 * @param scopes The scopes.
 * @param tenant The tenant.
 */
export async function keyOf(t: TestApp, scopes: string[], tenant: string): Promise<string> {
  return (await createKey(t.context.store as unknown as JobStore, scopes, `${tenant}-key`, tenant))
    .secret;
}

const POLICY_FIELDS = ["publicColumns", "bounds", "stratumSizes", "levels", "allowUnweighted"];

/**
 * Registers a dataset with a release policy as the owner (JSON body), 201 expected.
 *
 * Code without release policies refuses the policy's fields as unknown keys; the dataset is then
 * registered without them (`legacy: true`), so that the attack itself runs against that code and
 * the test fails on what the attack obtains rather than on the registration.
 *
 * @param t The test app.
 * @param owner The owner's key.
 * @param body `{epsilonTotal, csv | records, publicColumns?, bounds?, levels?, stratumSizes?}`.
 * @returns The dataset's id, the 201 body, and whether the policy was dropped.
 */
export async function register(
  t: TestApp,
  owner: string,
  body: Record<string, unknown>,
): Promise<{ id: string; info: Record<string, unknown>; legacy: boolean }> {
  const post = (json: Record<string, unknown>) =>
    t.app.request("/v1/datasets", {
      method: "POST",
      headers: auth(owner),
      body: JSON.stringify(json),
    });
  // These fixtures' owners allow `unweighted` (the attacks on it set allowUnweighted: false).
  let response = await post({ allowUnweighted: true, ...body });
  let legacy = false;
  if (response.status === 400) {
    const { error } = await response.clone().json();
    if (error.code === "invalid_request" && /unrecognized key/i.test(error.message)) {
      legacy = true;
      response = await post(
        Object.fromEntries(Object.entries(body).filter(([k]) => !POLICY_FIELDS.includes(k))),
      );
    }
  }
  const info = await response.json();
  assert.equal(response.status, 201, JSON.stringify(info));
  return { id: info.id, info, legacy };
}

/** A GET with a key. */
export function get(t: TestApp, path: string, key: string): Promise<Response> {
  return Promise.resolve(t.app.request(path, { headers: auth(key) }));
}

/**
 * Polls a job's location (`/v1/syntheses/{id}` or `/v1/tables/{id}`) until it is succeeded or
 * failed.
 */
export async function waitFor(
  t: TestApp,
  location: string,
  key: string,
  timeoutMs = 60_000,
): Promise<Record<string, unknown>> {
  const id = location.split("/").pop()!;
  const base = location.slice(0, -id.length - 1);
  return await waitForJob(
    (path) => get(t, path.replace("/v1/syntheses", base), key),
    id,
    timeoutMs,
  );
}

/**
 * Asserts that `response` accepted a job (202) and waits for it to finish (`waitFor`).
 *
 * @returns The finished job.
 */
export async function acceptedJob(
  t: TestApp,
  response: Response,
  key: string,
): Promise<Record<string, unknown>> {
  const body = await response.json();
  assert.equal(response.status, 202, JSON.stringify(body));
  return await waitFor(t, body.location, key);
}

/**
 * Submits a `QUICK` synthesis with `request`'s fields, waits for it and asserts it succeeded.
 *
 * @returns The finished job.
 */
export async function succeededSynthesis(
  t: TestApp,
  key: string,
  request: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const job = await acceptedJob(
    t,
    await postJson(t, "/v1/syntheses", key, { ...QUICK, ...request }),
    key,
  );
  assert.equal(job.status, "succeeded", JSON.stringify(job.error));
  return job;
}

/**
 * Asserts a request was refused with `status`, `code` and (when given) `field`. When the server
 * accepted a job instead, waits for it and puts what the attacker obtained in the message.
 *
 * @returns The error body.
 */
export async function assertRefused(
  t: TestApp,
  response: Response,
  expected: { status: number; code?: string; field?: string },
  reader: string,
  what: string,
): Promise<{ code: string; message: string; field?: string }> {
  const body = await response.json();
  if (response.status !== expected.status) {
    let obtained = JSON.stringify(body).slice(0, 400);
    if (response.status === 202 && typeof body.location === "string" && t.context.pool) {
      const job = await waitFor(t, body.location, reader);
      obtained = JSON.stringify({
        status: job.status,
        error: job.error,
        n: (job.report as { n?: number } | undefined)?.n,
      }).slice(0, 400);
    }
    assert.fail(
      `${what}: expected ${expected.status} ${expected.code ?? ""}, got ${response.status}: ` +
        obtained,
    );
  }
  const { error } = body;
  if (expected.code !== undefined) assert.equal(error.code, expected.code, what);
  if (expected.field !== undefined) assert.equal(error.field, expected.field, what);
  return error;
}

/** The R-checked survey sample of the reference tests: field, gender, salary, w. */
const SAMPLE_CSV = await Deno.readTextFile(
  new URL("../reference/survey_sample.csv", import.meta.url),
);

/**
 * Every fifth unit of the reference survey sample (200 units; 8 fields, 2 genders, and no
 * female unit in field2, so the observed cross product has an empty cell).
 */
export const SURVEY_CSV = SAMPLE_CSV.trim().split("\n").filter((_, i) => i === 0 || i % 5 === 1)
  .join("\n") + "\n";

/**
 * Declared public bounds of the survey sample's salary and weight, which a Laplace table on
 * registered data needs (issue 22).
 */
export const SURVEY_BOUNDS = { salary: [0, 600_000], w: [0, 1000] };

/** The table columns of the survey sample. */
export const SURVEY_COLUMNS = {
  y: "salary",
  weight: "w",
  strata: "field",
  by: ["field", "gender"],
} as const;

/** The survey sample's rows as records (salary and w numbers). */
export function surveyRows(
  csv = SURVEY_CSV,
): { field: string; gender: string; salary: number; w: number }[] {
  return csv.trim().split("\n").slice(1).map((line) => {
    const [field, gender, salary, w] = line.split(",");
    return { field, gender, salary: Number(salary), w: Number(w) };
  });
}

/**
 * Registers n records of a confidential count y (0–8) with the public covariate z, for jobs that
 * must run long in the chain workers: the negative binomial's density visits every record on
 * every gradient, where the normal model's unweighted fit reads sufficient statistics (a
 * long normal job is long in its main-thread diagnostics instead, which no timer interrupts).
 */
export function registerCounts(
  t: TestApp,
  owner: string,
  epsilonTotal: number,
  n: number,
): Promise<{ id: string; info: Record<string, unknown>; legacy: boolean }> {
  const rows = Array.from({ length: n }, (_, i) => `${(i * 7919) % 9},${(i % 10) / 10}`);
  return register(t, owner, {
    epsilonTotal,
    csv: `y,z\n${rows.join("\n")}\n`,
    publicColumns: ["z"],
  });
}

/**
 * Registers `confidentialCsv(n)` with a budget of `epsilonTotal` as the owner, `z` public and `y`
 * confidential (201 expected; see `register`).
 */
export function registerConfidential(
  t: TestApp,
  owner: string,
  epsilonTotal: number,
  n: number,
): Promise<{ id: string; info: Record<string, unknown>; legacy: boolean }> {
  return register(t, owner, { epsilonTotal, csv: confidentialCsv(n), publicColumns: ["z"] });
}

/**
 * Registers `SURVEY_CSV` with field and gender public, a budget of `epsilonTotal` and the rest of
 * its policy in `policy` (bounds, levels, …); 201 expected (see `register`).
 */
export function registerSurvey(
  t: TestApp,
  owner: string,
  epsilonTotal: number,
  policy: Record<string, unknown> = {},
): Promise<{ id: string; info: Record<string, unknown>; legacy: boolean }> {
  return register(t, owner, {
    epsilonTotal,
    csv: SURVEY_CSV,
    publicColumns: ["field", "gender"],
    ...policy,
  });
}

/** A six-bin perturbed histogram of y given z (normal model, ε = 1): add m and the dataset. */
export const HISTOGRAM_OF_Y = {
  y: "y",
  x: ["z"],
  model: "normal",
  mechanism: "histogram",
  bins: 6,
  epsilon: 1,
};
