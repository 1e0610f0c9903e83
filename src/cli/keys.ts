/**
 * `deno task keys`: API keys of the HTTP service, in its store: PostgreSQL at PPSYNTH_STORE_URL,
 * else the embedded store under PPSYNTH_DATA_DIR.
 *
 *     deno task keys create --scopes submit,read,diagnostics[,admin] [--name NAME] [--tenant T]
 *     deno task keys list
 *     deno task keys revoke ID
 *
 * `create` prints the new key once on standard output (only its SHA-256 hash is stored) and
 * its id on standard error; the key belongs to tenant T (default "default") and sees only that
 * tenant's datasets and jobs. `list` prints id, name, tenant, scopes, creation and revocation
 * times.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { createApiKey, parseScopes } from "../api/auth.ts";
import { configFromEnv } from "../jobs/config.ts";
import { openStore } from "../jobs/open_store.ts";
import { runCommand, UsageError } from "./run_command.ts";

const USAGE =
  "usage: keys create --scopes submit,read,diagnostics[,admin] [--name NAME] [--tenant T] | " +
  "keys list | keys revoke ID";

/** The command on `args` (exported for the tests to run it in-process, `commandFailure`). */
export async function main(args: string[] = Deno.args): Promise<void> {
  const { positionals, values } = (() => {
    try {
      return parseArgs({
        args,
        allowPositionals: true,
        options: {
          scopes: { type: "string" },
          name: { type: "string" },
          tenant: { type: "string" },
        },
      });
    } catch (error) {
      throw new UsageError(`${(error as Error).message}; ${USAGE}`);
    }
  })();
  const [command, ...rest] = positionals;
  const store = await openStore(configFromEnv((name) => Deno.env.get(name)), { max: 1 });
  try {
    if (command === "create" && rest.length === 0) {
      if (values.scopes === undefined) throw new UsageError(`--scopes: required; ${USAGE}`);
      let scopes;
      try {
        scopes = parseScopes(values.scopes);
      } catch (error) {
        throw new UsageError(`--scopes: ${(error as Error).message}`);
      }
      let created;
      try {
        created = await createApiKey(store, scopes, values.name ?? "", values.tenant);
      } catch (error) {
        throw new UsageError(`--tenant: ${(error as Error).message}`);
      }
      const { key, secret } = created;
      console.error(
        `keys: created ${key.id} (${key.scopes.join(",")}, tenant ${key.tenant}); ` +
          "the key is shown once:",
      );
      console.log(secret);
    } else if (command === "list" && rest.length === 0) {
      for (const key of await store.listKeys()) {
        console.log(
          [
            key.id,
            key.name || "-",
            key.tenant,
            key.scopes.join(","),
            key.createdAt,
            key.revokedAt ?? "-",
          ]
            .join("\t"),
        );
      }
    } else if (command === "revoke" && rest.length === 1) {
      if (!await store.revokeKey(rest[0])) throw new UsageError(`no active key with id ${rest[0]}`);
      console.error(`keys: revoked ${rest[0]}`);
    } else {
      throw new UsageError(USAGE);
    }
  } finally {
    await store.close();
  }
}

if (import.meta.main) await runCommand("keys", main);
