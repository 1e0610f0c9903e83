import assert from "node:assert/strict";
import { assertNoLeak, confidentialCsv, confidentialValues, QUICK, testApp } from "./_helpers.ts";

const JOBS = 50;
const LIMIT = 256 * 1024;

Deno.test("load on loopback: 50 concurrent submissions (each sent twice) all complete, each charged once, no 5xx", async () => {
  const t = await testApp({ workers: 2, maxBodyBytes: LIMIT });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    t.app.fetch,
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  const headers = { Authorization: `Bearer ${t.keys.all}`, "Content-Type": "application/json" };
  const statuses: number[] = [];
  const call = async (path: string, init?: RequestInit) => {
    const response = await fetch(base + path, { headers, ...init });
    statuses.push(response.status);
    return response;
  };
  try {
    const csv = confidentialCsv(50);
    const registered = await call("/v1/datasets", {
      method: "POST",
      body: JSON.stringify({ epsilonTotal: JOBS * 1000, csv, publicColumns: ["z"] }),
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
    const deadline = Date.now() + 170_000;
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
    // Over real HTTP, a chunked body (no Content-Length) past the limit is refused too.
    let streamed = 0;
    const oversize = await call("/v1/datasets?epsilonTotal=1", {
      method: "POST",
      headers: { ...headers, "Content-Type": "text/csv" },
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          if (streamed > 2 * LIMIT) return controller.close();
          streamed += 8192;
          controller.enqueue(new Uint8Array(8192).fill(0x31));
        },
      }),
    });
    assert.equal(oversize.status, 413);
    await oversize.body?.cancel();
    assert.ok(statuses.every((status) => status < 500), "no 5xx");
    assertNoLeak(t.logs, [...confidentialValues(50), ...Object.values(t.keys)]);
  } finally {
    await server.shutdown();
    await t.close();
  }
});
