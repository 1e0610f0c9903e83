/**
 * Whole-file syntheses through the API (issue 35): a `POST /v1/syntheses` with `y: "all"` is a
 * {@linkcode FileSynthesisSpec} (the `synth --schema` command's options), run by
 * `synthesizeFile` under the owner's declared file schema: on a registered dataset the release
 * policy's (`checkFileSynthesis`), on inline data the request's own `fileSchema` (the caller owns
 * those data).
 *
 * - {@linkcode fileRequest}: refuses, before any data are read and uncharged (422
 *   `invalid_file_request`, naming the field), what a whole file cannot take (`x`: every column
 *   is synthesised; a model other than `auto`/`latent-class`; `cw`, `cw-final`, `histogram`,
 *   which need a one-dimensional outcome), then validates the rest.
 * - {@linkcode runFileSynthesisJob}: the job: the m CSVs (the input's header and N/A markers,
 *   formula cells escaped), the public manifest and the owner's diagnostics, with each file's
 *   `fileUtility` report.
 *
 * @module
 */
import { datasetColumns, formatCsv } from "../data/csv.ts";
import type { Dataset } from "../data/dataset.ts";
import type { FileSchema } from "../data/file_schema.ts";
import { MECHANISM_NAMES } from "../mechanisms/mechanism.ts";
import { FILE_MECHANISMS, fileSettings, FileSynthesisSpec } from "../synthesis/file_spec.ts";
import { synthesizeFile } from "../synthesis/file_synthesis.ts";
import { fileUtility } from "../synthesis/file_utility.ts";
import { PolicyError } from "./domain_errors.ts";
import type { FileJobSpec, JobOutput, JobProgress } from "./store.ts";
import { publicStage } from "./synthesis_job.ts";

/**
 * Whether a request (or a stored job's spec) is a whole-file synthesis.
 *
 * @param spec A request or spec.
 * @returns Whether its `y` is "all".
 */
export function isFileSpec(spec: { readonly y?: unknown }): spec is FileJobSpec {
  return spec.y === "all";
}

function refuse(message: string, field: string): PolicyError {
  return new PolicyError(422, "invalid_file_request", message, field);
}

/**
 * A whole-file request from a body's fields (no data source): the refusals of the module
 * documentation (422, data-independent), then {@linkcode FileSynthesisSpec} (a `ZodError`, 400,
 * for anything else it does not take).
 *
 * @param body The request's fields, `datasetId`, `csv`, `records` and `fileSchema` removed.
 * @returns The validated request.
 */
export function fileRequest(body: Readonly<Record<string, unknown>>): FileSynthesisSpec {
  if (body.x !== undefined) {
    throw refuse(
      'a whole-file release (y: "all") synthesises every column: it takes no covariates (x)',
      "x",
    );
  }
  if (body.model !== undefined && body.model !== "auto" && body.model !== "latent-class") {
    throw refuse(
      'a whole-file release (y: "all") takes the latent class model: model "auto" or ' +
        '"latent-class"',
      "model",
    );
  }
  const mechanism = body.mechanism;
  if (
    typeof mechanism === "string" &&
    (MECHANISM_NAMES as readonly string[]).includes(mechanism) &&
    !(FILE_MECHANISMS as readonly string[]).includes(mechanism)
  ) {
    throw refuse(
      `the ${mechanism} mechanism needs a one-dimensional outcome; a whole file takes ` +
        `${FILE_MECHANISMS.join(", ")} or auto`,
      "mechanism",
    );
  }
  return FileSynthesisSpec.parse(body);
}

/**
 * Runs a whole-file synthesis and returns its release.
 *
 * @param data The confidential file.
 * @param spec The request (on a registered dataset: no seed, no allowFlagged).
 * @param schema The declared schema (the policy's, or the inline request's).
 * @param onProgress Where the stages go (public stage names only).
 * @returns The public manifest, the owner's diagnostics (with each file's utility) and the m CSVs.
 */
export async function runFileSynthesisJob(
  data: Dataset,
  spec: FileSynthesisSpec,
  schema: FileSchema,
  onProgress: (progress: JobProgress) => void,
): Promise<JobOutput> {
  const result = await synthesizeFile(
    data,
    schema,
    fileSettings(spec),
    (stage) => onProgress({ stage: publicStage(stage), fraction: 0 }),
  );
  const confidential = new Map(
    [...datasetColumns(data)].map(([name, column]) => [name, Array.from(column, String)]),
  );
  return {
    report: result.report,
    // The utility reports summarise the confidential file: the owner's only.
    diagnostics: {
      ...result.diagnostics,
      utility: result.datasets.map((columns) => fileUtility(confidential, columns, schema)),
    },
    // Released to analysts: cells a spreadsheet would run as formulas are escaped.
    datasets: result.datasets.map((columns) => formatCsv(columns, { escapeFormulas: true })),
  };
}
