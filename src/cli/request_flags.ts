/**
 * A request's command-line flags, read by the request's own zod schema (the API's): each field of
 * the schema is a flag, `--field-name` (kebab case; a boolean field is a switch). A number is a
 * plain decimal, a list is comma-separated, a field that takes one name or a list (`y`, `model`) is
 * a list when it has a comma, and a field whose text has a form of its own is read by its reader.
 * The schema then validates, its issues named by flag.
 *
 * @module
 */
import type { z } from "zod";
import { parseDecimal } from "../data/decimal.ts";
import { parseFlags, UsageError } from "./run_command.ts";

/** How a command reads its request's flags. */
export interface RequestFlags<S extends z.ZodObject> {
  /** The request's schema (its shape names the flags). */
  readonly schema: S;
  /** The path flags the command needs, each with what it is (named when missing). */
  readonly paths: Readonly<Record<string, string>>;
  /** Fields that are not flags (set by the program, never by a request). */
  readonly omit?: readonly string[];
  /** A field's flag where it is not the field's kebab case. */
  readonly names?: Readonly<Record<string, string>>;
  /** A field's reader where its text has a form of its own: (flag, text) → value. */
  readonly readers?: Readonly<Record<string, (flag: string, text: string) => unknown>>;
}

/** A field's type under its optional and default wrappers ("number", "array", "union"…). */
function baseType(field: z.ZodType): string {
  let def = field.def as { type: string; innerType?: z.ZodType };
  while (def.innerType !== undefined) def = def.innerType.def as typeof def;
  return def.type;
}

/**
 * Parses a command line by a request's schema.
 *
 * @param args The arguments after the command.
 * @param flags The schema and the command's paths, names and readers.
 * @returns The paths given and the validated request; throws a `UsageError` naming the flag.
 */
export function parseRequestFlags<S extends z.ZodObject>(
  args: string[],
  flags: RequestFlags<S>,
): { paths: Record<string, string>; request: z.infer<S> } {
  const fields = Object.entries(flags.schema.shape as Record<string, z.ZodType>)
    .filter(([field]) => !flags.omit?.includes(field))
    .map(([field, type]) => ({
      field,
      flag: flags.names?.[field] ?? field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
      type: baseType(type),
    }));
  const values = parseFlags({
    args,
    options: Object.fromEntries([
      ...Object.keys(flags.paths).map((name) => [name, { type: "string" as const }]),
      ...fields.map(({ flag, type }) => [
        flag,
        { type: type === "boolean" ? "boolean" as const : "string" as const },
      ]),
    ]),
  }).values as Record<string, string | boolean | undefined>;
  for (const [name, what] of Object.entries(flags.paths)) {
    if (typeof values[name] !== "string" || values[name] === "") {
      throw new UsageError(`--${name}: required (${what})`);
    }
  }
  const raw: Record<string, unknown> = {};
  for (const { field, flag, type } of fields) {
    const value = values[flag];
    if (value === undefined) continue;
    const reader = flags.readers?.[field];
    if (typeof value === "boolean") {
      raw[field] = value;
    } else if (reader !== undefined) {
      raw[field] = reader(flag, value);
    } else if (type === "number") {
      const parsed = parseDecimal(value);
      if (!Number.isFinite(parsed)) throw new UsageError(`--${flag}: not a finite decimal number`);
      raw[field] = parsed;
    } else if (type === "array") {
      raw[field] = value.split(",").filter((name) => name !== "");
    } else if (type === "union" && value.includes(",")) {
      raw[field] = value.split(",").map((name) => name.trim());
    } else {
      raw[field] = value;
    }
  }
  const parsed = flags.schema.safeParse(raw);
  if (!parsed.success) {
    const flagOf = new Map(fields.map(({ field, flag }) => [field, flag]));
    throw new UsageError(
      parsed.error.issues.map((issue) => {
        const field = String(issue.path[0] ?? "options");
        return `--${flagOf.get(field) ?? field}: ${issue.message}`;
      }).join("; "),
    );
  }
  const paths = Object.fromEntries(
    Object.keys(flags.paths).map((name) => [name, values[name] as string]),
  );
  return { paths, request: parsed.data };
}
