/**
 * `deno task schema`: drafts a file schema for the data owner to review.
 *
 *     deno task schema --data FILE.csv [--codebook CODEBOOK.json] [--out SCHEMA.json]
 *
 * Kinds are guessed; levels, bounds and N/A markers come from the codebook where it gives them
 * (NIST's CRC format: per column `values` with codes, `min`/`max` and an `N/A …` code), else from
 * the data. Every column whose levels or bounds were read from the data says `"source": "data"`
 * and gets a warning on stderr: the confidential file decided them, so they must be reviewed and
 * replaced by public facts before a release. The codebook's consistency rules are the owner's
 * to declare under `"rules"`. Writes SCHEMA.json atomically (or prints the draft); bad input
 * exits 2 and writes nothing.
 *
 * @module
 */
import { basename, dirname } from "node:path";
import { readCsv } from "../data/csv.ts";
import { DataError, readInputText } from "../data/data_error.ts";
import { draftFileSchema } from "../data/draft_schema.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import { runCommand, stringFlags, UsageError } from "./run_command.ts";

/** Reads and parses a JSON file, naming it in errors. */
async function readJson(path: string): Promise<unknown> {
  const text = await readInputText(path);
  try {
    return JSON.parse(text);
  } catch {
    throw new DataError({ file: path }, "not valid JSON");
  }
}

/** The command on `args` (exported for the tests to run it in-process, `commandFailure`). */
export async function main(args: string[] = Deno.args): Promise<void> {
  const flags = stringFlags(args, ["data", "codebook", "out"]);
  if (!flags.data) throw new UsageError("--data: required (the confidential CSV file)");
  const data = await readCsv(flags.data);
  const codebook = flags.codebook === undefined
    ? undefined
    : { json: await readJson(flags.codebook), source: flags.codebook };
  const { schema, warnings } = draftFileSchema(data, codebook);
  const text = JSON.stringify(schema, null, 2) + "\n";
  for (const warning of warnings) console.error(`schema: warning: ${warning}`);
  if (flags.out === undefined) {
    console.log(text.trimEnd());
    return;
  }
  await writeFilesAtomically(dirname(flags.out), new Map([[basename(flags.out), text]]));
  console.error(
    `schema: drafted ${schema.columns.length} columns (${warnings.length} from the data) into ` +
      `${flags.out}; review it before a release`,
  );
}

if (import.meta.main) await runCommand("schema", main);
