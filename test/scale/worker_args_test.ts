import assert from "node:assert/strict";
import { parseWorkerArgs } from "../../src/cli/worker.ts";
import { UsageError } from "../../src/cli/run_command.ts";

Deno.test("`parseWorkerArgs()` reads the queue, concurrency, backend and data directory", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.deepEqual(parseWorkerArgs(["--queue", "redis://h:1", "--concurrency", "3"], env({})), {
    queue: "redis://h:1",
    concurrency: 3,
    backend: "cpu",
    dataDir: "./data",
  });
  assert.deepEqual(
    parseWorkerArgs(
      ["--backend", "gpu"],
      env({ PPSYNTH_QUEUE: "redis://q", PPSYNTH_DATA_DIR: "/srv/d" }),
    ),
    { queue: "redis://q", concurrency: 1, backend: "gpu", dataDir: "/srv/d" },
  );
  assert.throws(() => parseWorkerArgs([], env({})), UsageError);
  assert.throws(() => parseWorkerArgs(["--queue", "http://h"], env({})), /--queue/);
  assert.throws(
    () => parseWorkerArgs(["--queue", "redis://h", "--concurrency", "0"], env({})),
    /--concurrency/,
  );
  assert.throws(
    () => parseWorkerArgs(["--queue", "redis://h", "--backend", "tpu"], env({})),
    /--backend/,
  );
});
