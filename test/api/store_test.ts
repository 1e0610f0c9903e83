import { SqliteJobStore } from "../../src/jobs/sqlite_store.ts";
import { storeContract } from "./_store_contract.ts";

// The store's contract on the embedded SQLite store, in a temporary data directory.
storeContract({
  name: "SQLite store",
  async start() {
    const dir = await Deno.makeTempDir({ prefix: "ppsynth_store_" });
    return {
      open: () => SqliteJobStore.open(dir),
      stop: () => Deno.remove(dir, { recursive: true }),
    };
  },
});
