import assert from "node:assert/strict";
import { freePort, until } from "../_poll.ts";
import {
  apiClient,
  assertNoLeak,
  confidentialValues,
  createKeyCommand,
  serveCommand,
  serveEnv,
  startSlowJob,
  untilJobEnds,
} from "./_helpers.ts";

/** A server subprocess whose standard output and error are collected. */
interface Server {
  readonly child: Deno.ChildProcess;
  /** Resolves to everything it wrote, once it exited. */
  readonly output: Promise<string>;
}

function collect(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

function startServer(env: Record<string, string>): Server {
  const child = serveCommand(env, "piped").spawn();
  const output = Promise.all([collect(child.stdout), collect(child.stderr)]).then((parts) =>
    parts.join("\n")
  );
  return { child, output };
}

Deno.test("a server SIGKILLed during a job restarts and completes it, charging the budget once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_crash_" });
  const port = freePort();
  const env = { ...serveEnv(dir, port), PPSYNTH_PROGRESS_INTERVAL_MS: "50" };
  const logs: string[] = [];
  let server: Server | null = null;
  try {
    // `deno task keys create` prints the key once; the store keeps only its hash.
    const key = await createKeyCommand(env, "submit,read,diagnostics,admin", "crash");
    assert.match(key, /^ppsk_[A-Za-z0-9_-]{43}$/);
    const base = `http://127.0.0.1:${port}`;
    const api = apiClient(base, key);

    server = startServer(env);
    await until("the server", async () => (await fetch(`${base}/healthz`)).ok || undefined);
    const { dataset, id } = await startSlowJob(api);
    server.child.kill("SIGKILL");
    assert.equal((await server.child.status).signal, "SIGKILL");
    logs.push(await server.output);

    server = startServer(env);
    const job = await untilJobEnds(api, id);
    assert.equal(job.status, "succeeded", JSON.stringify(job.error));
    assert.equal(job.attempts, 2, "the interrupted job ran again");
    const budget = await api(`/v1/datasets/${dataset.id}/budget`);
    assert.deepEqual(budget.releases.map((r: { jobId: string }) => r.jobId), [id]);
    assert.equal(budget.spent, 1e6, "the cap, charged once at acceptance, not again on the retry");
    assert.ok(job.report.epsilon <= 1e6);
    const diagnostics = await api(`/v1/syntheses/${id}/diagnostics`);
    assert.equal(diagnostics.alpha.length, 200);

    server.child.kill("SIGTERM");
    assert.equal((await server.child.status).code, 0, "SIGTERM stops the server cleanly");
    logs.push(await server.output);
    server = null;

    // Nothing confidential in the logs of either run: data, α, per-record Δ, seed, key.
    assert.ok(logs.join("\n").includes('"event":"jobs_recovered"'));
    // (α and Δ with at least 8 characters: a short one like "0.2" is in every timestamp.)
    const distinctive = (values: number[]) => values.map(String).filter((v) => v.length >= 8);
    const confidential = [
      ...confidentialValues(200),
      ...distinctive(diagnostics.alpha),
      ...distinctive(diagnostics.recordLipschitz),
      String(diagnostics.seed),
      key,
      key.slice(5, 25),
    ];
    assert.ok(confidential.length > 300);
    assertNoLeak(logs, confidential);
    // Hashed at rest: the key is nowhere in the store's files.
    for await (const entry of Deno.readDir(dir)) {
      const bytes = await Deno.readFile(`${dir}/${entry.name}`);
      assert.ok(!new TextDecoder().decode(bytes).includes(key), `${entry.name} holds the key`);
    }
  } finally {
    if (server !== null) {
      server.child.kill("SIGKILL");
      await server.child.status;
      await server.output;
    }
    await Deno.remove(dir, { recursive: true });
  }
});
