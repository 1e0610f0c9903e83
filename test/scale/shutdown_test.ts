import assert from "node:assert/strict";
import { IGNORE_REDIS, startRedis, startWorker, until } from "./_redis.ts";

Deno.test({
  name: "SIGTERM stops a worker within the lease time even when Redis is unreachable",
  ignore: IGNORE_REDIS,
  async fn() {
    const redis = await startRedis();
    const dir = await Deno.makeTempDir({ prefix: "ppsynth_shutdown_" });
    const leaseMs = 2000;
    const worker = startWorker(redis.url, {
      PPSYNTH_DATA_DIR: dir,
      PPSYNTH_LEASE_MS: String(leaseMs),
    });
    try {
      await until(
        "the worker to start",
        () => worker.lines.some((line) => line.event === "worker_started") || undefined,
        60_000,
      );
      await redis.stop();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const asked = Date.now();
      worker.child.kill("SIGTERM");
      const deadline = new Promise<"timeout">((resolve) =>
        setTimeout(() => resolve("timeout"), leaseMs + 3000)
      );
      const outcome = await Promise.race([worker.child.status.then(() => "exited"), deadline]);
      assert.equal(outcome, "exited", "the worker is still running after the lease time");
      assert.ok(Date.now() - asked <= leaseMs + 3000);
    } finally {
      try {
        worker.child.kill("SIGKILL");
      } catch {
        // already exited
      }
      await worker.done;
      await Deno.remove(dir, { recursive: true });
    }
  },
});
