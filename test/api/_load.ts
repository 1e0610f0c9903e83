/**
 * The load scenario, run on the embedded store with the in-process pool (`load_test.ts`) and on
 * PostgreSQL with two worker processes (`test/scale/api_postgres_test.ts`): 20 concurrent
 * submissions on one registered dataset, each sent twice at once as a client retrying on a
 * timeout would (40 requests in flight), all of them completed, each charged once, no 5xx.
 *
 * What is checked is the plumbing (idempotency under concurrent retries, one charge per job,
 * every job claimed and released once, no 5xx), not a job's content: 20 jobs on two workers
 * still race every retry against its original and the workers against each other for the
 * queue, and each job is `QUICK`'s fit (2,000 draws since issue 36, 4,000 before).
 *
 * @module
 */
import assert from "node:assert/strict";
import { confidentialCsv, QUICK } from "./_helpers.ts";

/** Jobs submitted (each twice). */
export const JOBS = 20;

/** What the scenario saw. */
export interface LoadOutcome {
  /** Every response's status. */
  readonly statuses: number[];
  /** The jobs, in submission order. */
  readonly jobs: string[];
  /** The dataset they were charged to. */
  readonly datasetId: string;
}

/**
 * Runs the scenario against a server.
 *
 * @param base The server's URL.
 * @param key A key with every scope.
 * @param options `deadlineMs`: how long the jobs may take (default 170 s); `bodyLimit`: the
 * server's body limit, to check that a chunked body past it is refused (skipped when absent).
 */
export async function loadScenario(
  base: string,
  key: string,
  options: { readonly deadlineMs?: number; readonly bodyLimit?: number } = {},
): Promise<LoadOutcome> {
  const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
  const statuses: number[] = [];
  const call = async (path: string, init?: RequestInit) => {
    const response = await fetch(base + path, { headers, ...init });
    statuses.push(response.status);
    return response;
  };
  const csv = confidentialCsv(50);
  const registered = await call("/v1/datasets", {
    method: "POST",
    body: JSON.stringify({
      epsilonTotal: JOBS * 1000,
      csv,
      publicColumns: ["z"],
      allowUnweighted: true,
    }),
  });
  assert.equal(registered.status, 201);
  const datasetId = (await registered.json()).id;
  // Every request twice at once, as a client retrying on a timeout would.
  const sent = await Promise.all(
    Array.from({ length: 2 * JOBS }, async (_, k) => {
      const i = k % JOBS;
      const response = await call("/v1/syntheses", {
        method: "POST",
        headers: { ...headers, "Idempotency-Key": `load-${i}` },
        body: JSON.stringify({ ...QUICK, datasetId, epsilon: 1000 }),
      });
      assert.equal(response.status, 202);
      return (await response.json()).id as string;
    }),
  );
  const submitted = sent.slice(0, JOBS);
  assert.deepEqual(sent.slice(JOBS), submitted, "a retry returns the same job");
  assert.equal(new Set(submitted).size, JOBS, "every submission is its own job");
  const budget = await (await call(`/v1/datasets/${datasetId}/budget`)).json();
  assert.equal(budget.spent, JOBS * 1000, "each job's cap is charged once, at acceptance");
  assert.deepEqual(
    budget.releases.map((r: { jobId: string }) => r.jobId).toSorted(),
    submitted.toSorted(),
  );

  const pending = new Set(submitted);
  const deadline = Date.now() + (options.deadlineMs ?? 170_000);
  while (pending.size > 0) {
    assert.ok(Date.now() < deadline, `${pending.size} jobs never finished`);
    await Promise.all([...pending].map(async (id) => {
      const job = await (await call(`/v1/syntheses/${id}`)).json();
      if (job.status === "failed") assert.fail(`job failed: ${JSON.stringify(job.error)}`);
      if (job.status === "succeeded") pending.delete(id);
    }));
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const after = await (await call(`/v1/datasets/${datasetId}/budget`)).json();
  assert.equal(after.spent, JOBS * 1000, "nothing more is charged when the jobs release");
  // Every result is there, once: the m = 1 dataset of each job.
  for (const id of submitted) {
    const response = await call(`/v1/syntheses/${id}/datasets/1`);
    assert.equal(response.status, 200);
    assert.equal((await response.text()).trim().split("\n").length, 51);
  }
  if (options.bodyLimit !== undefined) {
    // Over real HTTP, a chunked body (no Content-Length) past the limit is refused too.
    let streamed = 0;
    const oversize = await call("/v1/datasets?epsilonTotal=1", {
      method: "POST",
      headers: { ...headers, "Content-Type": "text/csv" },
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          if (streamed > 2 * options.bodyLimit!) return controller.close();
          streamed += 8192;
          controller.enqueue(new Uint8Array(8192).fill(0x31));
        },
      }),
    });
    assert.equal(oversize.status, 413);
    await oversize.body?.cancel();
  }
  assert.ok(statuses.every((status) => status < 500), "no 5xx");
  return { statuses, jobs: submitted, datasetId };
}
