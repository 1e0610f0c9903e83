import assert from "node:assert/strict";
// @ts-types="@types/pg"
import pg from "pg";
import { configFromEnv } from "../../src/jobs/config.ts";
import { openStore } from "../../src/jobs/open_store.ts";
import { MIGRATIONS } from "../../src/jobs/postgres_schema.ts";
import { PostgresJobStore } from "../../src/jobs/postgres_store.ts";
import type { DatasetPolicy } from "../../src/jobs/release_policy.ts";
import { freePort } from "../_poll.ts";
import { IGNORE_POSTGRES, type PostgresServer, sharedCluster } from "../_postgres.ts";
import { storeContract } from "./_store_contract.ts";

// One cluster for the file, a fresh database per test (issue 36: 16 clusters cost a minute).
const cluster = IGNORE_POSTGRES ? null : await sharedCluster();

// The store's contract on PostgreSQL, a fresh database per test.
storeContract({
  name: "PostgreSQL store",
  ignore: IGNORE_POSTGRES,
  async start() {
    const database = await cluster!.database();
    return { open: () => PostgresJobStore.open(database.url), stop: database.stop };
  },
});

/** Runs `body` with a fresh database and one client connected to it. */
async function withDatabase(body: (server: PostgresServer, sql: pg.Client) => Promise<void>) {
  const server = await cluster!.database();
  const sql = new pg.Client({ connectionString: server.url });
  try {
    await sql.connect();
    await body(server, sql);
  } finally {
    await sql.end();
    await server.stop();
  }
}

Deno.test({
  name: "PostgreSQL store: processes starting together migrate once; a newer schema is refused",
  ignore: IGNORE_POSTGRES,
  fn: () =>
    withDatabase(async (server, sql) => {
      // Four pools, four sessions racing for the migration lock.
      const stores = await Promise.all(
        Array.from({ length: 4 }, () => PostgresJobStore.open(server.url, { max: 2 })),
      );
      await Promise.all(stores.map((store) => store.ping()));
      await Promise.all(stores.map((store) => store.close()));
      const versions = await sql.query("SELECT version FROM schema_migrations ORDER BY version");
      assert.deepEqual(
        versions.rows.map((row) => row.version),
        MIGRATIONS.map((_, k) => k + 1),
        "each version applied once",
      );
      const again = await PostgresJobStore.open(server.url);
      await again.close();
      assert.equal(
        (await sql.query("SELECT count(*)::INT AS n FROM schema_migrations")).rows[0].n,
        MIGRATIONS.length,
        "a restart applies nothing",
      );
      await sql.query("INSERT INTO schema_migrations (version) VALUES ($1)", [
        MIGRATIONS.length + 1,
      ]);
      await assert.rejects(PostgresJobStore.open(server.url), /newer than this program/);
    }),
});

Deno.test({
  name:
    "PostgreSQL store: the schema's constraints refuse a bad charge, budget, state or tenant; a NUL is a RangeError",
  ignore: IGNORE_POSTGRES,
  fn: () =>
    withDatabase(async (server, sql) => {
      const store = await PostgresJobStore.open(server.url);
      try {
        // PostgreSQL's text cannot hold U+0000: refused as bad input (400), not a driver error.
        await assert.rejects(
          store.createDataset({
            id: "nul",
            name: "d",
            csv: "y,g\n1,a\u0000b\n",
            n: 1,
            columns: ["y", "g"],
            epsilonTotal: 1,
            ownerKeyId: "k",
            tenant: "a",
            policy: {} as DatasetPolicy,
          }),
          RangeError,
        );
      } finally {
        await store.close();
      }
      const time = new Date().toISOString();
      const dataset = (id: string, tenant: string, total: number | string) =>
        sql.query(
          `INSERT INTO datasets (id, tenant, name, csv, n, columns, epsilon_total, owner_key_id,
           policy, created_at) VALUES ($1, $2, 'd', 'y\n1\n', 1, '["y"]', $3, 'k', '{}', $4)`,
          [id, tenant, total, time],
        );
      const job = (id: string, fields: Record<string, unknown> = {}) => {
        const row: Record<string, unknown> = {
          id,
          kind: "synthesis",
          status: "queued",
          tenant: "a",
          spec: "{}",
          submitted_by: "k",
          created_at: time,
          updated_at: time,
          ...fields,
        };
        const names = Object.keys(row);
        return sql.query(
          `INSERT INTO jobs (${names.join(", ")})
           VALUES (${names.map((_, k) => `$${k + 1}`).join(", ")})`,
          Object.values(row),
        );
      };
      const charge = (jobId: string, datasetId: string, epsilon: number | string) =>
        sql.query(
          "INSERT INTO ledger (job_id, dataset_id, epsilon, released_at) VALUES ($1, $2, $3, $4)",
          [jobId, datasetId, epsilon, time],
        );
      const refused = async (what: string, statement: Promise<unknown>, code: string) => {
        await assert.rejects(statement, (error: { code?: string }) => {
          assert.equal(error.code, code, what);
          return true;
        }, what);
      };
      for (const total of [0, -1, "Infinity", "NaN"]) {
        await refused(`epsilon_total ${total}`, dataset(`bad-${total}`, "a", total), "23514");
      }
      await dataset("d1", "a", 10);
      await dataset("d2", "a", 10);
      await job("j1", { dataset_id: "d1" });
      for (const epsilon of [-1, "Infinity", "-Infinity", "NaN"]) {
        await refused(`epsilon ${epsilon}`, charge("j1", "d1", epsilon), "23514");
      }
      await refused("a charge to another dataset than the job's", charge("j1", "d2", 1), "23503");
      await charge("j1", "d1", 1);
      await refused("a second charge of one job", charge("j1", "d1", 1), "23505");
      await refused(
        "another tenant's dataset",
        job("j2", { dataset_id: "d1", tenant: "b" }),
        "23503",
      );
      await refused("an unknown status", job("j3", { status: "paused" }), "23514");
      await refused("running without a lease", job("j4", { status: "running" }), "23514");
      await refused(
        "a lease on a finished job",
        job("j5", { status: "succeeded", lease_token: "t", lease_expires: 1 }),
        "23514",
      );
      await refused(
        "inline data kept after the job finished",
        job("j6", { status: "failed", inline_csv: "y\n1\n" }),
        "23514",
      );
      await refused(
        "an unknown scope",
        sql.query(
          `INSERT INTO api_keys (id, hash, name, tenant, scopes, created_at)
           VALUES ('k', 'h', 'n', 'a', ARRAY['root'], now())`,
        ),
        "23514",
      );
    }),
});

Deno.test({
  name: "PostgreSQL store: errors never repeat the store URL, which may hold a password",
  ignore: IGNORE_POSTGRES,
  async fn() {
    const secret = "s3cr3t-pa55word";
    await assert.rejects(
      openStore({ storeUrl: `mysql://u:${secret}@127.0.0.1/db`, dataDir: "unused" }),
      (error: Error) => !error.message.includes(secret) && error instanceof RangeError,
    );
    assert.throws(
      () =>
        configFromEnv((name) =>
          name === "PPSYNTH_STORE_URL" ? `redis://u:${secret}@h:1/0` : undefined
        ),
      (error: Error) =>
        error.message.includes("PPSYNTH_STORE_URL") && !error.message.includes(secret),
    );
    // Nothing listens on the port: the connection error names no password.
    const port = freePort();
    await assert.rejects(
      PostgresJobStore.open(`postgres://u:${secret}@127.0.0.1:${port}/db`),
      (error: Error) => !error.message.includes(secret),
    );
    // The wrong password for a running server.
    const server = await cluster!.database();
    try {
      const wrong = server.url.replace(server.password, secret);
      await assert.rejects(
        PostgresJobStore.open(wrong),
        (error: Error) => !error.message.includes(secret) && /password/.test(error.message),
      );
    } finally {
      await server.stop();
    }
  },
});

Deno.test({
  name: "PostgreSQL store: the file's cluster stops",
  ignore: IGNORE_POSTGRES,
  // The server's process and its output streams were opened at the file's top level.
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => cluster!.close(),
});
