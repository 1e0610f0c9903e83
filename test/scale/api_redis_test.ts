import assert from "node:assert/strict";
import { ApiConfig } from "../../src/jobs/config.ts";
import { openRedisContext, queueUrlFromEnv } from "../../src/scale/redis_context.ts";
import { type DeliverySetup, duplicateDelivery } from "./_duplicate_delivery.ts";
import { IGNORE_REDIS, startRedis, startWorker, stopWorker } from "./_redis.ts";

Deno.test("`queueUrlFromEnv()` selects Redis by PPSYNTH_QUEUE and refuses other URLs", () => {
  assert.equal(queueUrlFromEnv(() => undefined), null);
  assert.equal(queueUrlFromEnv(() => ""), null);
  assert.equal(queueUrlFromEnv(() => "redis://10.0.0.5:6379/2"), "redis://10.0.0.5:6379/2");
  assert.throws(() => queueUrlFromEnv(() => "http://x:6379"), /PPSYNTH_QUEUE/);
});

/** The embedded store in one data directory, shared by the API and both workers. */
async function sqliteSetup(): Promise<DeliverySetup> {
  const redis = await startRedis();
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_scale_" });
  const logs: string[] = [];
  const context = await openRedisContext(
    ApiConfig.parse({ dataDir: dir, releaseDelayMs: 0 }),
    redis.url,
    (event, fields = {}) => logs.push(JSON.stringify({ event, ...fields })),
  );
  const env = { PPSYNTH_DATA_DIR: dir };
  const workers = [startWorker(redis.url, env), startWorker(redis.url, env)];
  return {
    context,
    url: redis.url,
    workers,
    logs,
    async check() {},
    async stop() {
      await Promise.all(workers.map(stopWorker));
      await context.close();
      await redis.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

// The PostgreSQL store's run of this test is in api_postgres_test.ts, on that file's stack.
Deno.test({
  name:
    "API submissions on the Redis backend complete on workers; a duplicated delivery is charged once (SQLite store)",
  ignore: IGNORE_REDIS,
  async fn() {
    await duplicateDelivery(await sqliteSetup());
  },
});
