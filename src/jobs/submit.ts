/**
 * The request services below HTTP: what accepting a synthesis or a table takes — the checks of
 * the request against the data's columns and, on a registered dataset, its release policy, the
 * work limits, the charge (in the transaction that persists the job or stores the table) and the
 * queue. The functions (`functions/syntheses.ts`, `functions/tables.ts`) only validate the body,
 * check the key's scope and answer; everything else is here, in one order for every caller.
 *
 * - {@linkcode submitSynthesis}: a synthesis, planned once (`synthesisPlan`, "auto" resolved under
 *   the policy's guarantees). Inline data are read and their designs built to find bad data
 *   before the job is accepted (400); the model itself is built once, in the job.
 * - {@linkcode submitFileSynthesis}: a whole file (`y: "all"`) under its declared schema.
 * - {@linkcode submitTable}: a survey table; `sample` and small `laplace` tables are answered at
 *   once, `fbs`, `fbp` and large `laplace` tables become jobs.
 *
 * Every refusal is a domain error (`PolicyError`, `DataError`, `BudgetExceededError`…) that the one
 * error table (`domain_errors.ts`) maps to a status and code.
 *
 * @module
 */
import { DataError } from "../data/data_error.ts";
import { type Dataset, getColumn } from "../data/dataset.ts";
import { type FileSchema, parseFileSchema } from "../data/file_schema.ts";
import { parseCsvAsync } from "../data/parse_csv_async.ts";
import { countsNeedStratumSizes, SYNTHETIC_TABLE_METHODS } from "../survey/table_methods.ts";
import { tableInput } from "../survey/tables.ts";
import { synthesisPlan } from "../synthesis/plan.ts";
import type { SynthesisSpec } from "../synthesis/spec.ts";
import { synthesisDesigns } from "../synthesis/synthesis_model.ts";
import type { ApiContext } from "./context.ts";
import { PolicyError } from "./domain_errors.ts";
import { fileRequest } from "./file_job.ts";
import { BudgetExceededError, fits } from "./ledger.ts";
import {
  checkFileSynthesis,
  checkSynthesis,
  checkTable,
  type DatasetPolicy,
  policyData,
  policyGuarantees,
  requireColumns,
  requireSchemaColumns,
} from "./release_policy.ts";
import type { DatasetInfo, JobView, Submission } from "./store.ts";
import { answerTableNow, policyTableBounds, tabulate } from "./table_job.ts";
import type { TableResult, TableSpec } from "./table_request.ts";
import { checkFileWork, checkWork } from "./work_limits.ts";

/** Who submits a request, and how its acceptance is committed. */
export interface Submitter {
  /** The submitting key's id (it scopes idempotency keys). */
  readonly keyId: string;
  /** The key's tenant, which owns the job and must own the dataset. */
  readonly tenant: string;
  readonly idempotencyKey: string | null;
  /** SHA-256 of the validated request, to tell a retry from a different request. */
  readonly requestHash: string;
  /**
   * Called right before the first lasting write (a job, a charge, a stored table); throws when
   * the request may no longer write (the HTTP request was answered 503 at its deadline).
   */
  readonly commit: () => void;
}

/** Inline data as read from a request: the dataset and its canonical CSV text. */
export interface InlineData {
  readonly data: Dataset;
  readonly csv: string;
}

/** Where a request's data are: a registered dataset of the tenant, or inline data to read. */
export type DataSource =
  | { readonly datasetId: string }
  | { readonly datasetId?: undefined; readonly read: () => Promise<InlineData> };

/** The tenant's registered dataset, or 404. */
async function registered(
  context: ApiContext,
  datasetId: string,
  tenant: string,
): Promise<DatasetInfo> {
  const info = await context.store.dataset(datasetId, tenant);
  if (info === null) throw new PolicyError(404, "not_found", "no such dataset", "datasetId");
  return info;
}

/**
 * Accepts a synthesis: its work is capped whatever the data (422 `too_much_work`); on a
 * registered dataset the request names only its columns and keeps to its release policy
 * (`checkSynthesis`: 422 naming the field) and its ε is charged when the job is persisted (409
 * over budget); inline data are read and their designs built (400 `invalid_data` for bad data).
 *
 * @param context The store, the limits and the worker pool.
 * @param submitter Who submits, and the request's commit.
 * @param request The validated request.
 * @param source Its data.
 * @returns The accepted (or, for a retry, the existing) job.
 */
export async function submitSynthesis(
  context: ApiContext,
  submitter: Submitter,
  request: SynthesisSpec,
  source: DataSource,
): Promise<JobView> {
  checkWork(request, context.config);
  if (source.datasetId !== undefined) {
    const info = await registered(context, source.datasetId, submitter.tenant);
    const plan = synthesisPlan(request, policyGuarantees(info.policy));
    requireColumns(info.columns, [
      ...plan.outcomes.map(({ field, y }) => [field, y] as const),
      ...plan.covariates.map((x, k) => [`x.${k}`, x] as const),
      ["weight", request.weight],
      ["strata", request.strata],
    ]);
    const spec = checkSynthesis(info.policy, plan);
    return await accept(context, submitter, source.datasetId, null, spec);
  }
  const read = await source.read();
  synthesisDesigns(read.data, synthesisPlan(request));
  if (request.strata !== undefined) getColumn(read.data, request.strata);
  return await accept(context, submitter, null, read.csv, request);
}

/**
 * Accepts a whole-file synthesis (`y: "all"`, issue 35), decided before any data are read where
 * it can be: what a whole file cannot take (422 `invalid_file_request`), its Gibbs work (422
 * `too_much_work`), and on a registered dataset the release policy (`checkFileSynthesis`: the
 * declared file schema, which the request cannot set, no seed, ε, the guarantee); inline data
 * need the request's own `fileSchema`, which must declare exactly the data's columns.
 *
 * @param context The store, the limits and the worker pool.
 * @param submitter Who submits, and the request's commit.
 * @param fields The request's fields, data source and `fileSchema` removed.
 * @param fileSchema The request's own file schema, if it gave one.
 * @param source Its data.
 * @returns The accepted (or existing) job.
 */
export async function submitFileSynthesis(
  context: ApiContext,
  submitter: Submitter,
  fields: Readonly<Record<string, unknown>>,
  fileSchema: unknown,
  source: DataSource,
): Promise<JobView> {
  const request = fileRequest(fields);
  checkFileWork(request, context.config);
  if (source.datasetId !== undefined) {
    const info = await registered(context, source.datasetId, submitter.tenant);
    const spec = checkFileSynthesis(info.policy, request, fileSchema);
    return await accept(context, submitter, source.datasetId, null, spec);
  }
  if (fileSchema === undefined) {
    throw new PolicyError(
      422,
      "file_schema_required",
      'a whole-file release (y: "all") of inline data needs its file schema (fileSchema)',
      "fileSchema",
    );
  }
  let schema: FileSchema;
  try {
    schema = parseFileSchema(fileSchema, "fileSchema");
  } catch (error) {
    if (error instanceof DataError) {
      throw new PolicyError(400, "invalid_data", error.message, "fileSchema");
    }
    throw error;
  }
  const read = await source.read();
  requireSchemaColumns(schema, read.data.names, "invalid_data", "fileSchema");
  return await accept(context, submitter, null, read.csv, { ...request, fileSchema: schema });
}

/** Persists an accepted request (charging its ε on a registered dataset) and enqueues it. */
async function accept(
  context: ApiContext,
  submitter: Submitter,
  datasetId: string | null,
  csv: string | null,
  spec: Submission["spec"],
  kind?: Submission["kind"],
): Promise<JobView> {
  submitter.commit();
  const { job } = await context.store.submit(submission(submitter, datasetId, csv, spec, kind));
  await context.store.enqueue(job.id);
  context.pool?.wake();
  return job;
}

function submission(
  submitter: Submitter,
  datasetId: string | null,
  csv: string | null,
  spec: Submission["spec"],
  kind?: Submission["kind"],
): Submission {
  return {
    id: crypto.randomUUID(),
    ...(kind === undefined ? {} : { kind }),
    keyId: submitter.keyId,
    tenant: submitter.tenant,
    idempotencyKey: submitter.idempotencyKey,
    requestHash: submitter.requestHash,
    datasetId,
    csv,
    spec,
  };
}

/** What a table request became: a job to poll, or a table answered now (and stored, unless sample). */
export type TableSubmitted =
  | { readonly job: JobView; readonly table?: undefined }
  | { readonly table: TableResult; readonly job?: JobView };

/**
 * Accepts a table request (`POST /v1/tables`; the caller checked the key's scope for its method):
 * the columns and, on a registered dataset, the policy (`checkTable`), the sampler work of fbs and
 * fbp, the cell count (422 `too_much_work`), fbs's stratum sizes for counts (422
 * `stratum_sizes_required`); then fbs, fbp and a laplace table of many cells become a job, a
 * `sample` table is answered and kept nowhere, and a small laplace table is computed now and
 * stored with its charge (409 over budget, refused before the data are read when it can be).
 *
 * @param context The store, the limits and the worker pool.
 * @param submitter Who submits, and the request's commit.
 * @param request The validated request.
 * @param source Its data.
 * @param signal Stops reading a registered dataset's data (the request's deadline).
 * @returns The job, or the table (with its stored job when it was charged).
 */
export async function submitTable(
  context: ApiContext,
  submitter: Submitter,
  request: TableSpec,
  source: DataSource,
  signal?: AbortSignal,
): Promise<TableSubmitted> {
  const { store, config } = context;
  let spec = request;
  let policy: DatasetPolicy | null = null;
  let inline: InlineData | null = null;
  let levelCounts: [number, number];
  if (source.datasetId === undefined) {
    inline = await source.read();
    const { by } = tableInput(inline.data, spec);
    levelCounts = [by[0].levels.length, by[1].levels.length];
  } else {
    const info = await registered(context, source.datasetId, submitter.tenant);
    requireColumns(info.columns, [
      ["y", spec.y],
      ["weight", spec.weight],
      ["strata", spec.strata],
      ["by.0", spec.by[0]],
      ["by.1", spec.by[1]],
    ]);
    spec = checkTable(info.policy, spec);
    policy = info.policy;
    levelCounts = [policy.levels[spec.by[0]].length, policy.levels[spec.by[1]].length];
  }
  if (spec.method === "fbs" || spec.method === "fbp") checkWork(spec, config);
  // The cells as the table builds them: every level pair, both margins and the total.
  const cells = (levelCounts[0] + 1) * (levelCounts[1] + 1);
  if (cells > config.maxTableCells) {
    throw new PolicyError(
      422,
      "too_much_work",
      `the table would have ${cells} cells (margins included), more than ` +
        `${config.maxTableCells} (PPSYNTH_MAX_TABLE_CELLS)`,
      "by",
    );
  }
  if (countsNeedStratumSizes(spec)) {
    // FBS's synthetic weights have no declared scale without them: its totals would run
    // about 10% low (the lognormal's median), never silently.
    throw new PolicyError(
      422,
      "stratum_sizes_required",
      "fbs counts and totals need the public population size of every stratum " +
        (policy === null
          ? "(stratumSizes)"
          : "(the policy's stratumSizes of the strata column, declared at registration)") +
        ": without them the synthetic weights have no declared scale and their totals run " +
        'about 10% low; ask for estimates "means" for the means alone',
      policy === null ? "stratumSizes" : "strata",
    );
  }
  const datasetId = source.datasetId ?? null;
  // fbs and fbp synthesise; a laplace table of many cells is a job too (never the request's).
  const asJob = SYNTHETIC_TABLE_METHODS.includes(request.method) ||
    (request.method === "laplace" && cells > config.syncTableCells);
  if (asJob) {
    return { job: await accept(context, submitter, datasetId, inline?.csv ?? null, spec, "table") };
  }
  if (datasetId !== null && spec.method === "laplace") {
    await refuseOverBudget(context, datasetId, submitter, spec.epsilon!);
  }
  const confidential = inline?.data ?? await registeredData(context, datasetId!, signal);
  const levels = policy?.levels;
  if (spec.method === "sample") {
    const { result } = await tabulate(confidential, spec, { levels });
    return { table: result };
  }
  const read = policy === null
    ? { data: confidential, clamped: undefined }
    : policyData(confidential, policy);
  const bounds = policy === null ? undefined : policyTableBounds(policy.bounds, spec);
  if (policy !== null && bounds === undefined) {
    throw new TypeError("a laplace table on a registered dataset needs declared bounds");
  }
  const job = await answerTableNow(
    store,
    submission(submitter, datasetId, null, spec, "table"),
    () => tabulate(read.data, spec, { levels, bounds }),
    read.clamped === undefined ? undefined : { clamped: read.clamped },
    submitter.commit,
  );
  return { table: job.result!, job };
}

/**
 * A registered dataset's confidential data (its tenant was checked), parsed off the event loop;
 * `signal` (the request's deadline) stops the parse.
 */
async function registeredData(
  context: ApiContext,
  datasetId: string,
  signal?: AbortSignal,
): Promise<Dataset> {
  const text = await context.store.datasetCsv(datasetId);
  if (text === null) throw new PolicyError(404, "not_found", "no such dataset", "datasetId");
  return await parseCsvAsync(text, `dataset ${datasetId}`, signal);
}

/**
 * 409 before the stored CSV is read when `epsilon` does not fit the dataset's budget (the
 * ledger's own rule, `fits`): a request over budget costs no parse. The charge itself is still
 * made, and checked again, in the transaction that stores the table. A request with an
 * Idempotency-Key goes on (its retry returns the stored table whatever the budget).
 */
async function refuseOverBudget(
  context: ApiContext,
  datasetId: string,
  submitter: Submitter,
  epsilon: number,
): Promise<void> {
  if (submitter.idempotencyKey !== null) return;
  const budget = await context.store.budget(datasetId, submitter.tenant);
  if (budget === null) throw new PolicyError(404, "not_found", "no such dataset", "datasetId");
  const charges = budget.releases.map((release) => release.epsilon);
  if (!fits(budget.epsilonTotal, charges, epsilon)) {
    throw new BudgetExceededError(epsilon, budget.remaining);
  }
}
