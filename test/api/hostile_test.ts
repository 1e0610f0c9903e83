import assert from "node:assert/strict";
import * as h from "./_helpers.ts";

const LIMIT = 64 * 1024;

/** One hostile request and, where it is known, the status class it must get. */
interface Probe {
  readonly label: string;
  readonly path: string;
  readonly init: RequestInit;
  /** Expected status (exact), or undefined: any non-5xx. */
  readonly status?: number;
}

/** A body of `bytes` bytes streamed in 8 KiB chunks with no Content-Length (chunked). */
function chunked(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      const chunk = new Uint8Array(Math.min(8192, bytes - sent)).fill(0x20);
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

const WRONG_VALUES: unknown[] = [
  null,
  true,
  "text",
  "",
  "NaN",
  "Infinity",
  1e308,
  -1e308,
  -1,
  0,
  0.5,
  2 ** 64,
  -(2 ** 53),
  [],
  [1, "a", null],
  {},
  { nested: { deeper: [1] } },
  "x".repeat(5000),
];

Deno.test("500+ malformed and hostile requests get 4xx (never 5xx) and the server stays healthy", async () => {
  const t = await h.testApp({ maxBodyBytes: LIMIT, lipschitzMaxCells: 10_000 }, false);
  const { app, keys } = t;
  try {
    const csv = h.confidentialCsv(40);
    const registered = await app.request("/v1/datasets", {
      method: "POST",
      headers: h.auth(keys.admin),
      body: JSON.stringify({ epsilonTotal: 1, csv, publicColumns: ["z"], allowUnweighted: true }),
    });
    assert.equal(registered.status, 201);
    const { id: datasetId } = await registered.json();
    // A revoked key.
    const revokedKey = keys.all;
    const revoked = (await t.context.store.listKeys()).find((k) => k.name === "all")!;
    await t.context.store.revokeKey(revoked.id);

    const base = { ...h.QUICK, datasetId, epsilon: 0.5 };
    const synthesis = { ...base };
    const lipschitz = {
      model: "normal",
      y: "y",
      csv,
      draws: { intercept: [3], sigma_beta_intercept: [1], sigma: [1] },
    };
    const endpoints: { method: string; path: string; scope: string; body?: unknown }[] = [
      { method: "POST", path: "/v1/datasets", scope: "admin", body: { epsilonTotal: 1, csv } },
      { method: "GET", path: `/v1/datasets/${datasetId}/budget`, scope: "read" },
      { method: "POST", path: "/v1/syntheses", scope: "submit", body: synthesis },
      { method: "GET", path: "/v1/syntheses/x", scope: "read" },
      { method: "GET", path: "/v1/syntheses/x/datasets/1", scope: "read" },
      { method: "GET", path: "/v1/syntheses/x/diagnostics", scope: "diagnostics" },
      { method: "POST", path: "/v1/lipschitz", scope: "diagnostics", body: lipschitz },
      { method: "GET", path: "/openapi.json", scope: "any" },
    ];
    const probes: Probe[] = [];
    const json = (path: string, body: unknown, key = keys.submit, status?: number): Probe => ({
      label: `${path} ${
        typeof body === "string" ? body.slice(0, 40) : JSON.stringify(body).slice(0, 80)
      }`,
      path,
      init: {
        method: "POST",
        headers: h.auth(key),
        body: typeof body === "string" ? body : JSON.stringify(body),
      },
      status,
    });

    // Missing, malformed, unknown and revoked keys; wrong scopes.
    const badAuth: (string | undefined)[] = [
      undefined,
      "Bearer",
      "Bearer ",
      "Basic dXNlcjpwYXNz",
      "Token " + keys.read,
      `Bearer ppsk_${"A".repeat(43)}`,
      `Bearer ${keys.read}x`,
      `Bearer ${keys.read} extra`,
      `Bearer ${"z".repeat(10_000)}`,
      `Bearer ${revokedKey}`,
      keys.read,
    ];
    for (const endpoint of endpoints) {
      const body = endpoint.body === undefined ? undefined : JSON.stringify(endpoint.body);
      for (const header of badAuth) {
        const headers: Record<string, string> = { "Content-Type": "application/json" };
        if (header !== undefined) headers.Authorization = header;
        probes.push({
          label: `${endpoint.path} auth ${header?.slice(0, 20)}`,
          path: endpoint.path,
          init: { method: endpoint.method, headers, body },
          status: 401,
        });
      }
      if (endpoint.scope === "any") continue;
      for (const scope of ["submit", "read", "diagnostics", "admin"] as const) {
        if (scope === endpoint.scope) continue;
        probes.push({
          label: `${endpoint.path} scope ${scope}`,
          path: endpoint.path,
          init: { method: endpoint.method, headers: h.auth(keys[scope]), body },
          status: 403,
        });
      }
    }

    // Every field of a synthesis request set to every wrong type or extreme value.
    for (
      const field of [
        ...Object.keys(base),
        "m",
        "c",
        "g",
        "radius",
        "radiusMode",
        "matchLipschitz",
        "lower",
        "upper",
        "bins",
        "seed",
        "backend",
        "csv",
        "records",
      ]
    ) {
      for (const value of WRONG_VALUES) {
        probes.push(json("/v1/syntheses", { ...base, [field]: value }));
      }
    }
    // Every field of a dataset upload and a Lipschitz request likewise.
    for (const field of ["epsilonTotal", "name", "csv", "records"]) {
      for (const value of WRONG_VALUES) {
        probes.push(json("/v1/datasets", { epsilonTotal: 1, csv, [field]: value }, keys.admin));
      }
    }
    for (const field of ["model", "y", "x", "csv", "records", "alpha", "draws"]) {
      for (const value of WRONG_VALUES) {
        probes.push(json("/v1/lipschitz", { ...lipschitz, [field]: value }, keys.diagnostics));
      }
    }

    // Unknown fields, prototype keys, NaN and out-of-range numbers in the JSON text.
    const text = JSON.stringify(base).slice(0, -1);
    for (
      const raw of [
        `${text},"unknown":1}`,
        `${text},"__proto__":{"admin":true}}`,
        `${text},"constructor":{"prototype":{}}}`,
        `${text},"epsilon":NaN}`,
        `${text},"epsilon":1e400}`,
        `${text},"epsilon":-1e400}`,
        `${text},"m":1e400}`,
        `${text},"seed":18446744073709551616}`,
        `${text},"draws":1e12}`,
        `${text},"chains":1000000000}`,
        `${text},"warmup":-0.5}`,
        `${text},"epsilon":Infinity}`,
        `${text},}`,
        `${text}`,
        "",
        "null",
        "[]",
        "123",
        '"string"',
        "{'y': 'y'}",
        "{".repeat(50_000),
        "[".repeat(20_000) + "]".repeat(20_000),
        "\u0000\u0001\u0002",
        "\uFEFF{}",
      ]
    ) probes.push(json("/v1/syntheses", raw, keys.submit, 400));
    for (
      const raw of [
        '{"epsilonTotal":NaN,"csv":"y\\n1\\n"}',
        '{"epsilonTotal":1e400,"csv":"y\\n1\\n"}',
        '{"epsilonTotal":0,"csv":"y\\n1\\n"}',
        '{"epsilonTotal":-1,"csv":"y\\n1\\n"}',
        '{"epsilonTotal":"1","csv":"y\\n1\\n"}',
        '{"epsilonTotal":1}',
        '{"epsilonTotal":1,"csv":"y\\n1\\n","records":[{"y":1}]}',
        '{"epsilonTotal":1,"csv":""}',
        '{"epsilonTotal":1,"csv":"y\\n"}',
        '{"epsilonTotal":1,"csv":"y,y\\n1,2\\n"}',
        '{"epsilonTotal":1,"csv":"y,z\\n1\\n"}',
        '{"epsilonTotal":1,"csv":"\\"y\\n1\\n"}',
        '{"epsilonTotal":1,"records":[]}',
        '{"epsilonTotal":1,"records":[{}]}',
        '{"epsilonTotal":1,"records":[{"y":1},{"z":2}]}',
        '{"epsilonTotal":1,"records":[{"y":1},{"y":1,"z":2}]}',
        '{"epsilonTotal":1,"records":[{"":1}]}',
        '{"epsilonTotal":1,"records":[{"y":""}]}',
        '{"epsilonTotal":1,"records":[null]}',
        '{"epsilonTotal":1,"records":[{"y":[1]}]}',
      ]
    ) probes.push(json("/v1/datasets", raw, keys.admin, 400));
    // Inline data that the model cannot take, and columns that do not exist.
    for (
      const bad of [
        { ...h.QUICK, csv: "y,z\nabc,1\n" },
        { ...h.QUICK, csv: "y,z\nNaN,1\n" },
        { ...h.QUICK, csv: "y,z\nInf,1\n" },
        { ...h.QUICK, csv: "y,z\n,1\n" },
        { ...h.QUICK, model: "poisson", csv: "y,z\n-1,1\n" },
        { ...h.QUICK, model: "poisson", csv: "y,z\n1.5,1\n" },
        { ...h.QUICK, model: "beta", csv: "y,z\n1.5,1\n" },
        { ...h.QUICK, model: "lognormal", csv: "y,z\n0,1\n" },
        { ...h.QUICK, y: "missing", csv },
        { ...h.QUICK, x: ["missing"], csv },
        { ...h.QUICK, x: ["y"], csv },
        { ...h.QUICK, y: "missing", datasetId },
        { ...h.QUICK, x: ["missing"], datasetId },
        { ...h.QUICK, datasetId: "no-such-dataset" },
        { ...h.QUICK, datasetId, csv },
        { ...h.QUICK },
        { ...h.QUICK, datasetId, epsilon: 2 },
        { ...h.QUICK, datasetId, m: 50 },
      ]
    ) probes.push(json("/v1/syntheses", bad));
    // Query strings of a CSV upload.
    for (
      const query of [
        "",
        "?epsilonTotal=",
        "?epsilonTotal=abc",
        "?epsilonTotal=NaN",
        "?epsilonTotal=Infinity",
        "?epsilonTotal=1e309",
        "?epsilonTotal=-1",
        "?epsilonTotal=0",
        "?epsilonTotal=1&epsilonTotal=2",
        `?epsilonTotal=1&name=${"n".repeat(300)}`,
      ]
    ) {
      probes.push({
        label: `csv upload ${query}`,
        path: `/v1/datasets${query}`,
        init: { method: "POST", headers: h.auth(keys.admin, "text/csv"), body: csv },
        status: 400,
      });
    }
    // Wrong media types.
    const owners = [
      ["/v1/datasets", keys.admin],
      ["/v1/syntheses", keys.submit],
      ["/v1/lipschitz", keys.diagnostics],
    ] as const;
    for (
      const type of [
        "text/plain",
        "application/xml",
        "multipart/form-data; boundary=x",
        "application/x-www-form-urlencoded",
        "image/png",
      ]
    ) {
      for (const [path, key] of owners) {
        probes.push({
          label: `${path} as ${type}`,
          path,
          init: { method: "POST", headers: h.auth(key, type), body: "y\n1\n" },
          status: 415,
        });
      }
    }
    // Oversize bodies: with a Content-Length, and chunked with none.
    for (const path of ["/v1/datasets?epsilonTotal=1", "/v1/syntheses", "/v1/lipschitz"]) {
      for (const key of [keys.admin, keys.submit, keys.diagnostics]) {
        probes.push({
          label: `${path} oversize`,
          path,
          init: {
            method: "POST",
            headers: h.auth(key, path.startsWith("/v1/datasets") ? "text/csv" : "application/json"),
            body: " ".repeat(LIMIT + 1),
          },
        });
        for (const size of [LIMIT + 1, 4 * LIMIT]) {
          probes.push({
            label: `${path} chunked ${size}`,
            path,
            init: {
              method: "POST",
              headers: h.auth(
                key,
                path.startsWith("/v1/datasets") ? "text/csv" : "application/json",
              ),
              body: chunked(size),
              // @ts-ignore: duplex is required for a streamed request body
              duplex: "half",
            },
          });
        }
      }
    }
    // Odd paths, parameters and methods.
    for (
      const path of [
        `/v1/syntheses/${"a".repeat(5000)}`,
        "/v1/syntheses/%00",
        "/v1/syntheses/%ZZ",
        "/v1/syntheses/..%2F..%2Fetc%2Fpasswd",
        "/v1/syntheses/x/datasets/-1",
        "/v1/syntheses/x/datasets/0",
        "/v1/syntheses/x/datasets/1.5",
        "/v1/syntheses/x/datasets/1e309",
        "/v1/syntheses/x/datasets/abc",
        "/v1/syntheses/x/datasets/99999999999",
        "/v1/datasets/%ZZ/budget",
        `/v1/datasets/${"b".repeat(200)}/budget`,
        "/v1/nothing",
        "/",
        "/v2/syntheses",
        "/healthz/../openapi.json",
      ]
    ) probes.push({ label: path, path, init: { headers: h.auth(keys.read) } });
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      for (const path of ["/v1/datasets", "/v1/syntheses", "/v1/lipschitz", "/healthz"]) {
        probes.push({
          label: `${method} ${path}`,
          path,
          init: { method, headers: h.auth(keys.admin) },
        });
      }
    }
    // Idempotency keys of the wrong shape.
    for (const key of ["", " ", "k".repeat(256), "with space", "tab\tkey"]) {
      probes.push({
        label: `idempotency ${key.slice(0, 10)}`,
        path: "/v1/syntheses",
        init: {
          method: "POST",
          headers: { ...h.auth(keys.submit), "Idempotency-Key": key },
          body: JSON.stringify(base),
        },
      });
    }
    // The Lipschitz bound: sizes over the limit, parameters outside their support.
    const many = Array.from({ length: 400 }, () => 1);
    for (
      const draws of [
        { intercept: many, sigma_beta_intercept: many, sigma: many },
        { intercept: [1], sigma_beta_intercept: [1], sigma: [0] },
        { intercept: [1], sigma_beta_intercept: [-1], sigma: [1] },
        { intercept: [1e308], sigma_beta_intercept: [1], sigma: [1e-308] },
        { intercept: [], sigma_beta_intercept: [], sigma: [] },
        { intercept: [1], sigma_beta_intercept: [1], sigma: [1], extra: [1] },
      ]
    ) probes.push(json("/v1/lipschitz", { ...lipschitz, draws }, keys.diagnostics));

    assert.ok(probes.length >= 500, `only ${probes.length} probes`);
    const statuses = new Map<number, number>();
    for (const probe of probes) {
      const response = await app.request(probe.path, probe.init);
      const body = await response.text();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      assert.ok(response.status < 500, `${probe.label}: ${response.status} ${body.slice(0, 200)}`);
      if (probe.status !== undefined) {
        assert.equal(response.status, probe.status, `${probe.label}: ${body.slice(0, 200)}`);
      }
      if (response.status >= 400) {
        const parsed = JSON.parse(body);
        assert.equal(typeof parsed.error.code, "string", probe.label);
        assert.equal(typeof parsed.error.message, "string", probe.label);
        assert.ok(!/\n\s+at /.test(body), `${probe.label}: a stack trace`);
      }
    }
    assert.ok((statuses.get(413) ?? 0) >= 27, "every oversize body is refused with 413");
    console.log(`${probes.length} probes:`, Object.fromEntries([...statuses].sort()));

    // Healthy after: the health check, a registration, a budget read and a submission.
    assert.equal((await app.request("/healthz")).status, 200);
    const again = await app.request("/v1/datasets", {
      method: "POST",
      headers: h.auth(keys.admin),
      body: JSON.stringify({ epsilonTotal: 3, csv, publicColumns: ["z"], allowUnweighted: true }),
    });
    assert.equal(again.status, 201);
    const fresh = (await again.json()).id;
    assert.equal(
      (await app.request(`/v1/datasets/${fresh}/budget`, { headers: h.auth(keys.read) })).status,
      200,
    );
    const submitted = await app.request("/v1/syntheses", {
      method: "POST",
      headers: h.auth(keys.submit),
      body: JSON.stringify({ ...h.QUICK, datasetId: fresh, epsilon: 1 }),
    });
    assert.equal(submitted.status, 202);
    h.assertNoLeak(t.logs, [...h.confidentialValues(40), ...Object.values(keys), "ppsk_"]);
  } finally {
    await t.close();
  }
});
