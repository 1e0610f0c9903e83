/**
 * The queue behind a password (README, "Running at scale": `requirepass`, and
 * `PPSYNTH_QUEUE=redis://:PASSWORD@host:6379`): the connection takes the password from the URL,
 * percent-decoded, and a queue handle works through it; without the password Redis refuses.
 * Skipped without redis-server (outside CI).
 */
import assert from "node:assert/strict";
import { connectRedis, openBullQueue, type RedisClient } from "../../src/scale/redis.ts";
import { freePort, untilListening } from "../_poll.ts";
import { IGNORE_REDIS } from "./_redis.ts";

/** A password with the characters a URL must percent-encode. */
const PASSWORD = "s3cret/with:odd@chars";

/** Starts redis-server on 127.0.0.1 with `requirepass`, from a config file (not argv). */
async function startProtectedRedis(): Promise<{ port: number; stop: () => Promise<void> }> {
  const port = freePort();
  const dir = await Deno.makeTempDir({ prefix: "ppsynth_redis_auth_" });
  const config = `${dir}/redis.conf`;
  await Deno.writeTextFile(
    config,
    [
      `port ${port}`,
      "bind 127.0.0.1",
      "protected-mode yes",
      `requirepass "${PASSWORD}"`,
      'save ""',
      "appendonly no",
      `dir ${dir}`,
    ].join("\n") + "\n",
  );
  const child = new Deno.Command("redis-server", {
    args: [config],
    stdout: "null",
    stderr: "null",
  }).spawn();
  await untilListening("redis-server", port, 20_000);
  return {
    port,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The ioredis options a client was made with. */
function optionsOf(client: RedisClient): { password?: string; host?: string; port?: number } {
  return (client as unknown as { options: { password?: string; host?: string; port?: number } })
    .options;
}

Deno.test({
  name: "a password-protected queue: the password comes from PPSYNTH_QUEUE's URL",
  ignore: IGNORE_REDIS,
  async fn() {
    const redis = await startProtectedRedis();
    const url = `redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${redis.port}`;
    try {
      const client = connectRedis(url);
      try {
        const { password, host, port } = optionsOf(client);
        assert.deepEqual({ password, host, port }, {
          password: PASSWORD,
          host: "127.0.0.1",
          port: redis.port,
        });
        assert.equal(await client.ping(), "PONG");

        // A queue handle on the same URL adds a job through the password.
        const queue = openBullQueue(url, "auth-test");
        await queue.add("job", { n: 1 }, {
          jobId: "one",
          removeOnComplete: true,
          removeOnFail: { age: 60 },
        });
        await queue.close();
        const [, keys] = await client.scan("0", "MATCH", "bull:auth-test:*", "COUNT", 1000);
        assert.ok(keys.length > 0, "the job is in Redis");
      } finally {
        await client.quit();
      }

      // Without the password, Redis refuses (protected: the URL's password is what opens it).
      const anonymous = connectRedis(`redis://127.0.0.1:${redis.port}`);
      const events = anonymous as unknown as {
        on(event: "error", listener: (error: Error) => void): void;
        disconnect(): void;
      };
      events.on("error", () => {});
      try {
        await assert.rejects(anonymous.ping(), /NOAUTH/);
      } finally {
        events.disconnect();
      }
    } finally {
      await redis.stop();
    }
  },
});
