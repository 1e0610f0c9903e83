/**
 * A private PostgreSQL cluster for the tests of the PostgreSQL store (and the API throughput
 * benchmark): `initdb` in a temporary directory, then `postgres` on 127.0.0.1 and a free port,
 * its unix socket in that directory, durability off (fsync, full-page writes: a crashed test
 * cluster is thrown away), a password on TCP (scram-sha-256) so that URLs with a password are
 * exercised. Each test starts its own and stops it, or (a file of many short tests) takes a fresh
 * database on one cluster that its file shares ({@linkcode sharedCluster}).
 *
 * PostgreSQL refuses to run as root: when the tests run as root (CI containers), the cluster
 * runs as the `postgres` user (Debian's package creates it), or `nobody`, through `setpriv`
 * (util-linux), which execs the server in place, so signals reach it directly; the temporary
 * directory is given to that user. The binaries are looked up on PATH, then in Debian's
 * /usr/lib/postgresql/VERSION/bin. Without them the tests are skipped, except in CI (CI=true),
 * where they fail: `.ci/run` installs Debian's `postgresql`.
 *
 * @module
 */
// @ts-types="@types/pg"
import pg from "pg";
import { freePort } from "./_poll.ts";

async function succeeds(command: string, args: string[]): Promise<boolean> {
  try {
    return (await new Deno.Command(command, { args, stdout: "null", stderr: "null" }).output())
      .success;
  } catch {
    return false;
  }
}

/** The directory of the PostgreSQL server binaries ("" when they are on PATH), or null. */
async function findBinaries(): Promise<string | null> {
  if (await succeeds("initdb", ["--version"]) && await succeeds("postgres", ["--version"])) {
    return "";
  }
  const root = "/usr/lib/postgresql";
  const versions: number[] = [];
  try {
    for await (const entry of Deno.readDir(root)) {
      if (/^\d+$/.test(entry.name)) versions.push(Number(entry.name));
    }
  } catch {
    return null;
  }
  for (const version of versions.sort((a, b) => b - a)) {
    const bin = `${root}/${version}/bin/`;
    if (await succeeds(`${bin}initdb`, ["--version"])) return bin;
  }
  return null;
}

const BIN = await findBinaries();

/** Whether PostgreSQL's server binaries are installed. */
export const HAS_POSTGRES = BIN !== null;

/** Skip the PostgreSQL tests when the binaries are missing outside CI (in CI they fail). */
export const IGNORE_POSTGRES = !HAS_POSTGRES && Deno.env.get("CI") !== "true";

/** A running cluster. */
export interface PostgresServer {
  /** `postgres://ppsynth:PASSWORD@127.0.0.1:PORT/postgres`. */
  readonly url: string;
  /** The password in the URL (the tests check that no log line holds it). */
  readonly password: string;
  /** Stops the server (fast shutdown) and removes its directory. */
  stop(): Promise<void>;
  /** Kills the server at once, its directory left (the process is exiting). */
  kill(): void;
}

/** The numeric id of a user, or null. */
async function idOf(flag: "-u" | "-g", user: string): Promise<number | null> {
  try {
    const { success, stdout } = await new Deno.Command("id", { args: [flag, user] }).output();
    return success ? Number(new TextDecoder().decode(stdout).trim()) : null;
  } catch {
    return null;
  }
}

/** How to run the server's binaries: as ourselves, or (as root) as an unprivileged user. */
async function runAs(): Promise<{ prefix: string[]; uid: number; gid: number } | null> {
  if (Deno.uid() !== 0) return null;
  for (const user of ["postgres", "nobody"]) {
    const uid = await idOf("-u", user);
    const gid = await idOf("-g", user);
    if (uid !== null && gid !== null && uid !== 0) {
      return {
        prefix: ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--"],
        uid,
        gid,
      };
    }
  }
  throw new Error("running as root, and neither the postgres user nor nobody exists");
}

/** The last lines a process wrote (kept while it runs, for the error of a failed start). */
function tail(stream: ReadableStream<Uint8Array>, lines: string[]): Promise<void> {
  return (async () => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      lines.push(...chunk.split("\n").filter((line) => line !== ""));
      if (lines.length > 100) lines.splice(0, lines.length - 100);
    }
  })();
}

/**
 * Creates a cluster in a temporary directory and starts it.
 *
 * @returns The running server; throws when PostgreSQL is not installed or does not start.
 */
export async function startPostgres(): Promise<PostgresServer> {
  if (BIN === null) {
    throw new Error(
      "PostgreSQL's server binaries (initdb, postgres) are not installed: apt-get install " +
        "postgresql (.ci/run does)",
    );
  }
  const as = await runAs();
  // Another user must reach the directory: under /tmp (1777), whatever TMPDIR says.
  const dir = await Deno.makeTempDir({
    prefix: "ppsynth_pg_",
    dir: as === null ? undefined : "/tmp",
  });
  const password = crypto.randomUUID().replaceAll("-", "");
  const pwfile = `${dir}/pwfile`;
  await Deno.writeTextFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (as !== null) {
    await Deno.chown(dir, as.uid, as.gid);
    await Deno.chown(pwfile, as.uid, as.gid);
  }
  const prefix = as?.prefix ?? [];
  const command = (name: string, args: string[], output: "piped" | "null") => {
    const argv = [...prefix, `${BIN}${name}`, ...args];
    return new Deno.Command(argv[0], {
      args: argv.slice(1),
      cwd: dir,
      env: { LC_ALL: "C" },
      stdout: output,
      stderr: output,
    });
  };
  try {
    const init = await command("initdb", [
      "-D",
      `${dir}/data`,
      "-U",
      "ppsynth",
      `--pwfile=${pwfile}`,
      "--auth-local=trust",
      "--auth-host=scram-sha-256",
      "--no-locale",
      "-E",
      "UTF8",
      "--no-sync",
    ], "piped").output();
    if (!init.success) {
      throw new Error(`initdb failed: ${new TextDecoder().decode(init.stderr).trim()}`);
    }
  } catch (error) {
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
  const port = freePort();
  const child = command("postgres", [
    "-D",
    `${dir}/data`,
    "-p",
    String(port),
    "-h",
    "127.0.0.1",
    "-k",
    dir,
    "-c",
    "fsync=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "synchronous_commit=off",
  ], "piped").spawn();
  const lines: string[] = [];
  const output = Promise.all([tail(child.stdout, lines), tail(child.stderr, lines)]);
  const url = `postgres://ppsynth:${password}@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    try {
      child.kill("SIGINT"); // fast shutdown: ends the sessions still open
    } catch {
      // already exited
    }
    await child.status;
    await output;
    await Deno.remove(dir, { recursive: true });
  };
  let exited = false;
  child.status.then(() => exited = true);
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (exited) throw new Error("the server exited");
      const client = new pg.Client({ connectionString: url });
      client.on("error", () => {});
      try {
        await client.connect();
        await client.query("SELECT 1");
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        await client.end().catch(() => {});
      }
    }
  } catch (error) {
    await stop();
    throw new Error(`postgres did not start (${(error as Error).message}): ${lines.join("\n")}`);
  }
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // already exited
    }
  };
  return { url, password, stop, kill };
}

/** One cluster shared by a test file's tests: a fresh database each, and the cluster's end. */
export interface SharedCluster {
  /**
   * Creates a fresh, empty database on the cluster (starting it on first use) for one test: its
   * URL (the cluster's password), and `stop()`, which drops it with its sessions ended.
   */
  database(): Promise<PostgresServer>;
  /** Stops the cluster (the file's last test); a no-op when it never started. */
  close(): Promise<void>;
}

/**
 * Issue 36: one cluster for a file instead of one per test — a cluster's initdb and start cost
 * about 1.3 CPU seconds and 4 s of wall time, a fresh database on a running one a few
 * milliseconds. A database is as empty and as private to its test as a cluster of its own: the
 * store's tables, migrations, advisory locks and sessions all live in one database. Start it from
 * the file's top level (`await`) so that no test's resource sanitizer sees the server's process,
 * and `close()` it in the file's last test; it is killed if the process exits first (a filtered
 * run).
 */
export async function sharedCluster(): Promise<SharedCluster> {
  const server = await startPostgres();
  const base = new URL(server.url);
  let count = 0;
  let closed = false;
  const kill = () => {
    if (!closed) server.kill();
  };
  globalThis.addEventListener("unload", kill);
  const admin = async <T>(body: (sql: pg.Client) => Promise<T>): Promise<T> => {
    const sql = new pg.Client({ connectionString: server.url });
    sql.on("error", () => {});
    await sql.connect();
    try {
      return await body(sql);
    } finally {
      await sql.end();
    }
  };
  return {
    async database() {
      const name = `test_${++count}`;
      await admin((sql) => sql.query(`CREATE DATABASE ${name}`));
      const url = new URL(base);
      url.pathname = `/${name}`;
      return {
        url: url.href,
        password: server.password,
        kill() {},
        stop: () => admin((sql) => sql.query(`DROP DATABASE ${name} WITH (FORCE)`)).then(() => {}),
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      globalThis.removeEventListener("unload", kill);
      await server.stop();
    },
  };
}
