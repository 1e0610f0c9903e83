import assert from "node:assert/strict";
import { REPORT_FIELDS } from "../cli/_helpers.ts";
import * as h from "./_helpers.ts";

Deno.test("every endpoint through app.request(): datasets, budget, syntheses, results, docs", async () => {
  const t = await h.testApp();
  const { app, keys } = t;
  const get = (path: string, key = keys.read) => app.request(path, { headers: h.auth(key) });
  try {
    // healthz needs no key; everything else does.
    const health = await app.request("/healthz");
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.equal(health.headers.get("x-content-type-options"), "nosniff");
    assert.equal(health.headers.get("cache-control"), "no-store");
    assert.equal((await app.request("/openapi.json")).status, 401);
    const doc = await (await get("/openapi.json")).json();
    for (
      const path of [
        "/healthz",
        "/v1/datasets",
        "/v1/datasets/{id}",
        "/v1/datasets/{id}/budget",
        "/v1/syntheses",
        "/v1/syntheses/{id}",
        "/v1/syntheses/{id}/datasets/{k}",
        "/v1/syntheses/{id}/diagnostics",
        "/v1/lipschitz",
      ]
    ) assert.ok(doc.paths[path], `openapi.json lacks ${path}`);
    const docs = await app.request("/docs");
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /swagger-ui/);

    // Register: CSV body (admin only), with the covariate z declared public.
    const csv = h.confidentialCsv(60);
    const upload = (key: string) =>
      app.request(
        "/v1/datasets?epsilonTotal=1000000&name=survey&publicColumns=z&allowUnweighted=true",
        {
          method: "POST",
          headers: h.auth(key, "text/csv"),
          body: csv,
        },
      );
    assert.equal((await upload(keys.submit)).status, 403);
    const registered = await upload(keys.admin);
    assert.equal(registered.status, 201);
    const dataset = await registered.json();
    assert.equal(dataset.n, 60);
    assert.deepEqual(dataset.columns, ["y", "z"]);
    assert.equal(registered.headers.get("location"), `/v1/datasets/${dataset.id}`);
    assert.deepEqual(dataset.policy.publicColumns, ["z"]);
    assert.deepEqual(dataset.policy.levels.z, [
      "0",
      "0.1",
      "0.2",
      "0.3",
      "0.4",
      "0.5",
      "0.6",
      "0.7",
      "0.8",
      "0.9",
    ]);
    assert.equal(dataset.policy.neighbours, "add-remove");
    assert.deepEqual(await (await get(`/v1/datasets/${dataset.id}`)).json(), dataset);
    assert.equal((await get("/v1/datasets/nope")).status, 404);

    // Register: JSON records.
    const records = h.confidentialValues(30).map((y, i) => ({ y: Number(y), z: i % 3 }));
    const fromRecords = await app.request("/v1/datasets", {
      method: "POST",
      headers: h.auth(keys.admin),
      body: JSON.stringify({ epsilonTotal: 5, records, allowUnweighted: true }),
    });
    assert.equal(fromRecords.status, 201);
    const fromRecordsInfo = await fromRecords.json();
    assert.equal(fromRecordsInfo.n, 30);
    assert.deepEqual(fromRecordsInfo.policy.publicColumns, [], "every column confidential");

    const budget0 = await (await get(`/v1/datasets/${dataset.id}/budget`)).json();
    assert.deepEqual(budget0, {
      datasetId: dataset.id,
      epsilonTotal: 1000000,
      spent: 0,
      remaining: 1000000,
      releases: [],
    });
    assert.equal((await get("/v1/datasets/nope/budget")).status, 404);

    // Submit against the registered dataset, with an idempotency key; its cap is charged now.
    const request = { ...h.QUICK, datasetId: dataset.id, m: 2, epsilon: 500000 };
    const submit = (body: unknown, key = keys.submit, idempotencyKey = "retry-1") =>
      app.request("/v1/syntheses", {
        method: "POST",
        headers: { ...h.auth(key), "Idempotency-Key": idempotencyKey },
        body: JSON.stringify(body),
      });
    assert.equal((await submit(request, keys.read)).status, 403);
    const accepted = await submit(request);
    assert.equal(accepted.status, 202);
    const { id, location } = await accepted.json();
    assert.equal(location, `/v1/syntheses/${id}`);
    const retried = await submit(request);
    assert.equal(retried.status, 202);
    assert.equal((await retried.json()).id, id, "a retry returns the same job");
    const charged = await (await get(`/v1/datasets/${dataset.id}/budget`)).json();
    assert.equal(charged.spent, 500000, "the cap is charged at acceptance, once");
    const reused = await submit({ ...request, m: 1 });
    assert.equal(reused.status, 422);
    assert.equal((await reused.json()).error.code, "idempotency_conflict");

    const job = await h.waitForJob(get, id);
    assert.equal(job.status, "succeeded", JSON.stringify(job.error));
    const report = job.report as Record<string, unknown>;
    assert.deepEqual(Object.keys(report).sort(), REPORT_FIELDS);
    assert.deepEqual(report.columns, ["y", "z"]);
    assert.deepEqual(job.datasets, [
      `/v1/syntheses/${id}/datasets/1`,
      `/v1/syntheses/${id}/datasets/2`,
    ]);
    // A registered dataset's run details are the owner's: a read key sees no progress.
    assert.equal(job.progress, null);
    const owned = await h.waitForJob((path) => get(path, keys.all), id);
    assert.equal((owned.progress as { fraction: number }).fraction, 1);

    const synthetic = await get(`/v1/syntheses/${id}/datasets/2`);
    assert.equal(synthetic.status, 200);
    assert.match(synthetic.headers.get("content-type")!, /^text\/csv/);
    const lines = (await synthetic.text()).trim().split("\n");
    assert.equal(lines[0], "y,z");
    assert.equal(lines.length, 61);
    assert.equal((await get(`/v1/syntheses/${id}/datasets/3`)).status, 404);
    assert.equal((await get(`/v1/syntheses/${id}/datasets/0`)).status, 400);
    assert.equal((await get(`/v1/syntheses/nope`)).status, 404);

    assert.equal((await get(`/v1/syntheses/${id}/diagnostics`)).status, 403);
    const diagnostics = await (await get(`/v1/syntheses/${id}/diagnostics`, keys.diagnostics))
      .json();
    assert.ok(Number.isSafeInteger(diagnostics.seed), "a fresh seed, for the owner's eyes only");
    assert.deepEqual(diagnostics.clamped, {});
    assert.equal(diagnostics.recordLipschitz.length, 60);

    // The ledger charged the cap once, despite the retry; the release's ε is within it.
    const budget1 = await (await get(`/v1/datasets/${dataset.id}/budget`)).json();
    assert.equal(budget1.spent, 500000);
    assert.deepEqual(budget1.releases.map((r: { jobId: string }) => r.jobId), [id]);
    assert.equal(budget1.releases[0].epsilon, 500000);
    assert.ok((report.epsilon as number) <= 500000);

    // Inline data (CSV and records) need no registration and charge no ledger.
    for (const inline of [{ csv }, { records }]) {
      const response = await submit(
        { ...h.QUICK, ...inline, seed: 3 },
        keys.all,
        crypto.randomUUID(),
      );
      assert.equal(response.status, 202);
      const done = await h.waitForJob(get, (await response.json()).id);
      assert.equal(done.status, "succeeded");
      assert.equal(done.datasetId, null);
    }
    h.assertNoLeak(t.logs, [...h.confidentialValues(60), ...Object.values(keys)]);
  } finally {
    await t.close();
  }
});

Deno.test("the budget refuses a cap up front (409); a job over its cap fails, charged, nothing served", async () => {
  const t = await h.testApp();
  const { app, keys } = t;
  const get = (path: string) => app.request(path, { headers: h.auth(keys.all) });
  try {
    const registered = await app.request("/v1/datasets", {
      method: "POST",
      headers: h.auth(keys.admin),
      body: JSON.stringify({
        epsilonTotal: 0.5,
        csv: h.confidentialCsv(40),
        publicColumns: ["z"],
        allowUnweighted: true,
      }),
    });
    const { id: datasetId } = await registered.json();
    const upFront = await app.request("/v1/syntheses", {
      method: "POST",
      headers: h.auth(keys.submit),
      body: JSON.stringify({ ...h.QUICK, datasetId, epsilon: 0.75 }),
    });
    assert.equal(upFront.status, 409);
    assert.deepEqual((await upFront.json()).error.code, "budget_exceeded");

    // The unweighted synthesis's ε is far above its cap 0.5: it fails, and the cap is spent.
    const accepted = await app.request("/v1/syntheses", {
      method: "POST",
      headers: h.auth(keys.submit),
      body: JSON.stringify({ ...h.QUICK, datasetId, epsilon: 0.5 }),
    });
    assert.equal(accepted.status, 202);
    const { id } = await accepted.json();
    const job = await h.waitForJob(get, id);
    assert.equal(job.status, "failed");
    assert.equal((job.error as { code: string }).code, "data_rejected");
    assert.equal(job.report, undefined);
    const refused = await get(`/v1/syntheses/${id}/datasets/1`);
    assert.equal(refused.status, 409);
    assert.equal((await refused.json()).error.code, "data_rejected");
    const owner = await (await get(`/v1/syntheses/${id}/diagnostics`)).json();
    assert.equal(owner.failure.code, "epsilon_unreachable", "the reason is the owner's");
    const budget = await (await get(`/v1/datasets/${datasetId}/budget`)).json();
    assert.equal(budget.spent, 0.5);
    assert.deepEqual(budget.releases.map((r: { jobId: string }) => r.jobId), [id]);
  } finally {
    await t.close();
  }
});

Deno.test("`POST /v1/lipschitz` matches the normal log-likelihood in closed form", async () => {
  const t = await h.testApp({ lipschitzMaxCells: 1000 }, false);
  const { app, keys } = t;
  try {
    const y = h.confidentialValues(20).map(Number);
    const records = y.map((value) => ({ y: value }));
    const draws = {
      intercept: [2.9, 3.1, 3.4],
      sigma_beta_intercept: [1, 2, 3],
      sigma: [0.4, 0.9, 1.7],
    };
    const alpha = y.map((_, i) => (i % 4) / 4 + 0.1);
    const call = (body: unknown, key = keys.diagnostics) =>
      app.request("/v1/lipschitz", {
        method: "POST",
        headers: h.auth(key),
        body: JSON.stringify(body),
      });
    assert.equal((await call({ model: "normal", y: "y", records, draws }, keys.read)).status, 403);
    const response = await call({ model: "normal", y: "y", records, draws, alpha });
    assert.equal(response.status, 200);
    const result = await response.json();
    // ℓ_i(μ, σ) = −½log(2π) − log σ − (y_i − μ)²/(2σ²); Δ_i = max_s |α_i·ℓ_i|.
    const expected = y.map((yi, i) =>
      Math.max(...draws.intercept.map((mu, s) => {
        const sigma = draws.sigma[s];
        const l = -0.5 * Math.log(2 * Math.PI) - Math.log(sigma) -
          (yi - mu) ** 2 / (2 * sigma ** 2);
        return Math.abs(alpha[i] * l);
      }))
    );
    assert.equal(result.n, 20);
    assert.equal(result.draws, 3);
    assert.deepEqual(result.parameters, ["intercept", "sigma_beta_intercept", "sigma"]);
    result.perRecord.forEach((value: number, i: number) =>
      assert.ok(Math.abs(value - expected[i]) <= 1e-12 * expected[i], `record ${i}`)
    );
    assert.ok(Math.abs(result.overall - Math.max(...expected)) <= 1e-12 * result.overall);
    assert.ok(["cpu", "gpu"].includes(result.backend), result.backend);

    const bad = async (body: unknown, status: number, field?: string) => {
      const answer = await call(body);
      assert.equal(answer.status, status);
      const { error } = await answer.json();
      if (field !== undefined) assert.equal(error.field, field);
    };
    await bad(
      { model: "normal", y: "y", records, draws: { ...draws, extra: [1, 2, 3] } },
      400,
      "draws.extra",
    );
    await bad(
      { model: "normal", y: "y", records, draws: { intercept: [1], sigma: [1] } },
      400,
      "draws.sigma_beta_intercept",
    );
    await bad(
      { model: "normal", y: "y", records, draws: { ...draws, sigma: [1, 1] } },
      400,
      "draws.sigma",
    );
    await bad({ model: "normal", y: "y", records, draws, alpha: [1] }, 400, "alpha");
    await bad({ model: "normal", y: "y", records, draws: { ...draws, sigma: [0.4, -1, 1] } }, 400);
    await bad({ model: "poisson", y: "y", records, draws }, 400);
    const many = Array.from({ length: 60 }, () => 1);
    await bad(
      {
        model: "normal",
        y: "y",
        records,
        draws: { intercept: many, sigma_beta_intercept: many, sigma: many },
      },
      400,
      "draws",
    );
    h.assertNoLeak(t.logs, h.confidentialValues(20));
  } finally {
    await t.close();
  }
});

Deno.test("a request that outlives the timeout is answered 503 `timeout` in the error shape", async () => {
  const t = await h.testApp({ requestTimeoutMs: 200 }, false);
  try {
    // A client that starts a body and never finishes it.
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("y\n"));
      },
    });
    const response = await t.app.request("/v1/datasets?epsilonTotal=1", {
      method: "POST",
      headers: h.auth(t.keys.admin, "text/csv"),
      body: stalled,
      // @ts-ignore: duplex is required for a streamed request body
      duplex: "half",
    });
    assert.equal(response.status, 503);
    assert.equal((await response.json()).error.code, "timeout");
    assert.equal((await t.app.request("/healthz")).status, 200);
  } finally {
    await t.close();
  }
});
