/**
 * All-or-nothing output: every file is written beside its target under a temporary name and
 * renamed into place only when all have been written, so a failure leaves nothing half-written.
 *
 * @module
 */
import { join } from "node:path";

/**
 * Writes `files` (name → text) into `dir`, creating it if needed.
 *
 * @param dir The output folder.
 * @param files File names (no folders) and their contents.
 */
export async function writeFilesAtomically(
  dir: string,
  files: ReadonlyMap<string, string>,
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const suffix = `.tmp-${crypto.randomUUID()}`;
  const written: string[] = [];
  try {
    for (const [name, text] of files) {
      const temporary = join(dir, name + suffix);
      written.push(temporary);
      await Deno.writeTextFile(temporary, text);
    }
  } catch (error) {
    await Promise.all(written.map((path) => Deno.remove(path).catch(() => {})));
    throw error;
  }
  for (const [name] of files) await Deno.rename(join(dir, name + suffix), join(dir, name));
}
