import { assertNoLeak, confidentialValues, testApp } from "./_helpers.ts";
import { loadScenario } from "./_load.ts";

const LIMIT = 256 * 1024;

Deno.test("load on loopback: 20 concurrent submissions (each sent twice) all complete, each charged once, no 5xx", async () => {
  const t = await testApp({ workers: 2, maxBodyBytes: LIMIT });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    t.app.fetch,
  );
  try {
    await loadScenario(`http://127.0.0.1:${server.addr.port}`, t.keys.all, { bodyLimit: LIMIT });
    assertNoLeak(t.logs, [...confidentialValues(50), ...Object.values(t.keys)]);
  } finally {
    await server.shutdown();
    await t.close();
  }
});
