/**
 * `deno task fit`: fits a model of SPEC §5 to a CSV file with NUTS and writes its draws.
 *
 *     deno task fit --data FILE.csv --y COL [--x COL,COL] --model poisson|negbin|beta|normal|lognormal
 *       [--prior student-t|paper] [--alpha COL] [--chains K] [--warmup W] [--draws S] [--seed N]
 *       [--threads T] --out DIR
 *
 * The coefficient prior is synth's (`src/models/glm_prior.ts`, default `student-t`). Chains run in T worker threads (default: one per core); the draws do not depend on T.
 *
 * Writes DIR/draws.csv (one column per parameter, chains stacked) and DIR/fit.json (the
 * posterior summary and sampler diagnostics). Both are derived from the confidential data and
 * are for the data owner only. On bad input it exits 2 and writes nothing.
 *
 * @module
 */
import { z } from "zod";
import { COEFFICIENT_PRIORS } from "../data/design.ts";
import { buildDesign, formatCsv, numericColumn, readCsv } from "../data/mod.ts";
import { parseDecimal } from "../data/decimal.ts";
import { writeFilesAtomically } from "../data/write_files.ts";
import { fitter } from "../synthesis/release.ts";
import { createModel, MODEL_NAMES, outcomeKind } from "../models/mod.ts";
import { drawColumns } from "./draw_columns.ts";
import { progress } from "./progress.ts";
import { runCommand, stringFlags, UsageError } from "./run_command.ts";

/** A flag's text as a number, a plain decimal only (`0x10`, `0b1` or a blank are refused). */
const decimal = z.string().transform((text, context) => {
  const value = parseDecimal(text);
  if (Number.isNaN(value)) {
    context.addIssue({ code: "custom", message: `not a decimal number: ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return value;
});

/** A positive integer flag of at most `max`. */
const positiveInt = (max: number) => decimal.pipe(z.number().int().positive().max(max));

/** The options of `deno task fit`, validated. */
export const FitOptions = z.object({
  data: z.string().min(1),
  y: z.string().min(1),
  x: z.string().optional().transform((v) => v === undefined || v === "" ? [] : v.split(",")),
  model: z.enum(MODEL_NAMES),
  /** The regressions' coefficient prior, as `synth --prior` (default `student-t`). */
  prior: z.enum(COEFFICIENT_PRIORS).default("student-t"),
  alpha: z.string().optional(),
  chains: positiveInt(64).default(4),
  warmup: positiveInt(100_000).default(1000),
  draws: positiveInt(100_000).default(1000),
  seed: decimal.pipe(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)).default(1),
  threads: positiveInt(256).optional(),
  out: z.string().min(1),
}).strict();

/** The command on `args` (exported for the tests to run it in-process, `commandFailure`). */
export async function main(args: string[] = Deno.args): Promise<void> {
  const options = FitOptions.parse(stringFlags(args, [
    "data",
    "y",
    "x",
    "model",
    "prior",
    "alpha",
    "chains",
    "warmup",
    "draws",
    "seed",
    "threads",
    "out",
  ]));
  const data = await readCsv(options.data);
  const design = {
    ...buildDesign(data, { y: options.y, x: options.x }, outcomeKind(options.model)),
    coefficientPrior: options.prior,
  };
  const alpha = options.alpha === undefined ? null : numericColumn(data, options.alpha);
  alpha?.forEach((a, i) => {
    if (!(a >= 0 && a <= 1)) {
      throw new UsageError(`${options.data}, row ${i + 1}, column "${options.alpha}": α ∉ [0, 1]`);
    }
  });
  const model = createModel(options.model, design);
  const started = performance.now();
  const shown = progress("fit");
  const fit = await fitter(model, {
    chains: options.chains,
    warmup: options.warmup,
    drawsPerChain: options.draws,
    seed: options.seed,
    threads: options.threads,
    onProgress: shown.update,
  })({ alpha }, "nuts").finally(() => shown.end());
  const samplingSeconds = (performance.now() - started) / 1000;
  const { draws: _draws, ...summary } = fit;
  await writeFilesAtomically(
    options.out,
    new Map([
      ["draws.csv", formatCsv(drawColumns(model.paramNames, fit.draws))],
      [
        "fit.json",
        JSON.stringify(
          { model: options.model, prior: options.prior, n: design.n, samplingSeconds, ...summary },
          null,
          2,
        ),
      ],
    ]),
  );
  console.log(`fit: wrote ${options.out}/draws.csv and ${options.out}/fit.json`);
}

if (import.meta.main) await runCommand("fit", main);
