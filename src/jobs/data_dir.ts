/**
 * The data directory's hygiene: the directory is 0700 and the store's files 0600 (created, then
 * chmod-ed, whatever the umask), and a marker file records that a store exists, so that a store
 * whose database was deleted is refused rather than silently recreated empty (its ledger lost).
 *
 * @module
 */

/** The database file's name in the data directory. */
export const DATABASE_FILE = "ppsynth.sqlite";

/** The marker file's name: written once a store's database exists. */
export const MARKER_FILE = "STORE";

const MARKER_TEXT = `A ppsynth store lives here (${DATABASE_FILE}, with its privacy ledger).
While this file exists the server refuses to start without ${DATABASE_FILE}.
`;

const POSIX = Deno.build.os !== "windows";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Creates the data directory (0700; an existing one is chmod-ed to 0700) and refuses a store
 * whose marker exists but whose database is missing. A directory with neither is a fresh store:
 * create the database, then call {@linkcode markStore}.
 *
 * @param dir The data directory.
 * @returns Throws when the database of a marked store is missing.
 */
export async function prepareDataDir(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  if (POSIX) await Deno.chmod(dir, 0o700);
  if (await exists(`${dir}/${MARKER_FILE}`) && !await exists(`${dir}/${DATABASE_FILE}`)) {
    throw new Error(
      `the store's database ${dir}/${DATABASE_FILE} is missing (${dir}/${MARKER_FILE} says a ` +
        "store was created here): the server refuses to start rather than begin an empty store " +
        "and lose its ledger; restore the database from a backup, or remove the marker to start " +
        "a new store",
    );
  }
}

/**
 * Writes the marker (0600) if it is not there yet: call it once the database exists.
 *
 * @param dir The data directory.
 */
export async function markStore(dir: string): Promise<void> {
  const path = `${dir}/${MARKER_FILE}`;
  try {
    await Deno.writeTextFile(path, MARKER_TEXT, { createNew: true, mode: 0o600 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  if (POSIX) await Deno.chmod(path, 0o600);
}

/**
 * Chmods the database and its WAL and shared-memory files (those present) to 0600.
 *
 * @param dir The data directory.
 */
export async function secureStoreFiles(dir: string): Promise<void> {
  if (!POSIX) return;
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      await Deno.chmod(`${dir}/${DATABASE_FILE}${suffix}`, 0o600);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
}
