/**
 * A whole file in one release (SPEC §13, issue 35): every column of a confidential file, declared
 * by its {@linkcode FileSchema}, synthesised jointly under one record-level guarantee, by the
 * Bayesian network (`src/models/bayes_net.ts`, exact draws) or the latent class model
 * (`src/models/latent_class.ts`, Gibbs).
 *
 * 1. The file is encoded through the declared schema only (`encodeFile`: levels, N/A states and
 *    bins from the declaration, so the release's shape depends on no confidential value; an
 *    undeclared level or a value outside the declared bounds is an error naming column and row).
 * 2. A mechanism of the registry runs on the model (`bayes_net_release.ts`,
 *    `latent_class_release.ts`: the fit, Δ of the term the pseudo posterior raises), under the ε
 *    cap.
 * 3. Each of the m files is drawn from its posterior draw θ_s, s = `datasetDrawIndices(S, m)[j]`,
 *    held to the schema's rules (`file_records.ts`), in the input's column order. Records are
 *    i.i.d. draws of θ: their order depends on no confidential record.
 *
 * ε = 2Δm (aDP, add/remove neighbours; the proofs are the models' module docs) with Δ the
 * largest half range of u_i(θ_s) over the final fit's draws (`centredTerm`); a fit that fails its
 * checks releases nothing (`FitFlaggedError`).
 *
 * @module
 */
import config from "../../deno.json" with { type: "json" };
import type { Dataset } from "../data/dataset.ts";
import type { StopFlag } from "../data/worker_stop.ts";
import { datasetColumns } from "../data/csv.ts";
import { type EncodedFile, encodeFile, formatStep } from "../data/file_encoding.ts";
import { columnUnit, type FileSchema } from "../data/file_schema.ts";
import type { TermBackendChoice } from "../gpu/select_term.ts";
import { FitFlaggedError } from "../mcmc/fit.ts";
import type { BayesNetSampleOptions } from "../mcmc/bayes_net_exact.ts";
import type { LatentClassGibbsOptions } from "../mcmc/latent_class_gibbs.ts";
import type { MechanismContext, MechanismName, MechanismOutcome } from "../mechanisms/mechanism.ts";
import {
  BayesNetModel,
  DEFAULT_BAYES_NET_PRIOR,
  type RecordSampling,
} from "../models/bayes_net.ts";
import { NEIGHBOURS } from "../mechanisms/privacy.ts";
import {
  DEFAULT_CLASSES,
  DEFAULT_LATENT_CLASS_PRIOR,
  LatentClassModel,
} from "../models/latent_class.ts";
import { Rng } from "../random/rng.ts";
import { FILE_STREAM, ORDER_STREAM } from "../random/streams.ts";
import { releaseSeed } from "../random/seed_policy.ts";
import { BAYES_NET, bayesNetContext } from "./bayes_net_release.ts";
import { type FileRecordModel, simulateFileRecords } from "./file_records.ts";
import { latentClassContext, runFileMechanism } from "./latent_class_release.ts";
import { inReleaseOrder } from "./release_order.ts";
import { datasetDrawIndices } from "./release.ts";
import type { ReleaseManifest } from "./report.ts";

/** The latent class model's name in a whole-file release. */
export const LATENT_CLASS = "latent-class";

/** The whole-file synthesizers. */
export const FILE_MODELS = [BAYES_NET, LATENT_CLASS] as const;

/** A whole-file synthesizer's name. */
export type FileModelName = typeof FILE_MODELS[number];

/** What a whole-file release runs: the model, the mechanism, its privacy target and the sampler. */
export interface FileSynthesisSettings {
  /** The whole-file synthesizer (default "latent-class"). */
  readonly model?: FileModelName;
  /**
   * Given columns (`--x`, the network only): released as they are, public by the owner's
   * declaration; the others are synthesised given them.
   */
  readonly given?: readonly string[];
  /** A registry mechanism that takes a whole record (sw, lw, lw-final, weighted-e, unweighted). */
  readonly mechanism: MechanismName;
  /** Target total ε of the m files (a cap; required by every mechanism but `unweighted`). */
  readonly epsilon?: number;
  readonly m: number;
  /** Truncation K of the mixture (public; default {@linkcode DEFAULT_CLASSES}). */
  readonly classes?: number;
  /** Dirichlet concentration a of every table cell (public; default the model's prior's). */
  readonly dirichlet?: number;
  /** The network's most parents per column (public; default `DEFAULT_BAYES_NET_PRIOR`'s). */
  readonly parents?: number;
  /** The network's most cells per table (public; default `DEFAULT_BAYES_NET_PRIOR`'s). */
  readonly maxCells?: number;
  /**
   * How the network draws records from the released draw (public; default "balanced",
   * `BayesNetModel.simulate`). The latent class model draws i.i.d.
   */
  readonly sampling?: RecordSampling;
  /** Seed (CLI, studies, tests); absent: a fresh secret seed from the OS CSPRNG. */
  readonly seed?: number;
  /** Chains (the network: independent streams of exact draws). */
  readonly chains: number;
  /** Gibbs sweeps discarded per chain (the network has none). */
  readonly warmup: number;
  /** Draws kept per chain. */
  readonly draws: number;
  /** Sweeps per kept draw. */
  readonly thin?: number;
  /** Split–merge moves per sweep (default 0). */
  readonly splitMerge?: number;
  /** Why `auto` chose the mechanism (public facts only), when it did. */
  readonly autoReason?: string;
  /**
   * Where the Lipschitz extremes are computed (default "auto": every core from a size, a hardware
   * GPU from a larger one; every backend gives the same bits, `src/gpu/select_term.ts`).
   */
  readonly backend?: TermBackendChoice;
  /** Release even from a flagged fit (research; the manifest then says so). */
  readonly allowFlagged?: boolean;
}

/** The owner's confidential diagnostics of a whole-file release. */
export interface FileSynthesisDiagnostics {
  readonly lipschitz: number;
  readonly epsilon: number;
  readonly unweightedLipschitz: number | null;
  readonly refits: MechanismOutcome["refits"];
  readonly finalFit: string | null;
  /** Σ α_i / n of the final weights (1 when unweighted). */
  readonly meanAlpha: number;
  readonly fit: {
    readonly rhatMax: number;
    readonly essBulkMin: number;
    readonly flagged: boolean;
    readonly sweeps: number;
    readonly summary: Record<string, unknown>;
  };
  readonly drawIndices: number[];
  /** Per file: records drawn (n plus the rules' redraws) and records still breaking a rule. */
  readonly files: readonly { readonly drawn: number; readonly unrepaired: number }[];
  readonly model: FileModelName;
  /** The latent class model's K (null for the network). */
  readonly classes: number | null;
  readonly seed: number;
}

/** A finished whole-file release. */
export interface FileSynthesisResult {
  readonly report: ReleaseManifest;
  readonly diagnostics: FileSynthesisDiagnostics;
  /** The m synthetic files: column → cells, in the input's column order. */
  readonly datasets: Map<string, string[]>[];
}

/**
 * Progress of a whole-file release: its stage ("encode", "fit k: label", "simulate"), and within
 * a fit the Gibbs sweeps done of its total.
 */
export type FileProgress = (stage: string, done?: number, total?: number) => void;

/** Options of {@linkcode synthesizeFile}: where progress goes, and a stop request. */
export interface FileRunOptions {
  /** Called with each stage's name, and with each fit's sweeps. */
  readonly onProgress?: FileProgress;
  /**
   * Read by the fits once a sweep (the network's: once a draw): when set, the release throws
   * (a whole-file job's worker, stopped at its time limit: `worker_stop.ts`).
   */
  readonly stop?: StopFlag;
}

/**
 * Synthesises every column of a confidential file under its declared schema.
 *
 * @param data The confidential file (its columns all declared by `schema`).
 * @param schema The owner's declared schema.
 * @param settings The mechanism, ε, m and Gibbs settings.
 * @param options Where progress goes, and the stop flag the fits read.
 * @returns The public manifest, the owner's diagnostics and the m files; throws a `DataError`
 * for a record outside the schema, a `RangeError` for a mechanism that needs a one-dimensional
 * outcome, a `CalibrationError` when ε cannot be met and a `FitFlaggedError` for a flagged fit.
 */
export async function synthesizeFile(
  data: Dataset,
  schema: FileSchema,
  settings: FileSynthesisSettings,
  options: FileRunOptions = {},
): Promise<FileSynthesisResult> {
  const { onProgress = () => {}, stop } = options;
  onProgress("encode");
  const encoded = encodeFile(data, schema);
  const modelName = settings.model ?? LATENT_CLASS;
  const given = givenColumns(schema, settings.given ?? [], modelName);
  const { seed, policy: seedPolicy } = releaseSeed(settings.seed);
  let stage = "fit";
  const onDraws = (done: number, total: number) => onProgress(stage, done, total);
  const { model, context, classes } = modelName === BAYES_NET
    ? bayesNetRun(encoded, settings, seed, { onDraw: onDraws, stop }, given)
    : latentClassRun(encoded, settings, seed, { onSweep: onDraws, stop });
  const fits = { count: 0 };
  const outcome = await runFileMechanism(
    {
      mechanism: settings.mechanism,
      m: settings.m,
      epsilon: settings.epsilon,
      radius: 0,
      relativeRadius: false,
    },
    {
      ...context,
      fit: (weighting, label) => {
        stage = `fit ${++fits.count}: ${label}`;
        onProgress(stage);
        return context.fit(weighting, label);
      },
    },
  );
  const fit = outcome.fit!;
  if (fit.flagged && settings.allowFlagged !== true) throw new FitFlaggedError(fit);
  onProgress("simulate");
  const drawIndices = datasetDrawIndices(fit.S, settings.m);
  const order = data.names;
  const givenCells = confidentialCells(data, schema, given);
  const files = drawIndices.map((s, j) =>
    simulateFileRecords(
      model,
      fit.draws.subarray(s * fit.dim, (s + 1) * fit.dim),
      data.n,
      schema,
      new Rng(seed).split(FILE_STREAM + j),
      givenCells,
    )
  );
  // Record r keeps confidential record r's given cells: a random order hides which (ranks on a
  // sorted file, `release_order.ts`); without given columns no record's place depends on a
  // confidential record (i.i.d. draws, or balanced ones assigned in a random order).
  const datasets = files.map(({ cells }, j) => {
    const columns = new Map(order.map((name) => [name, cells.get(name)!]));
    return given.length === 0
      ? columns
      : inReleaseOrder(columns, new Rng(seed).split(ORDER_STREAM + j)) as Map<string, string[]>;
  });
  const alphaSum = outcome.alpha === null ? data.n : outcome.alpha.reduce((sum, a) => sum + a, 0);
  return {
    report: {
      mechanism: settings.mechanism,
      model: modelName,
      n: data.n,
      m: settings.m,
      lipschitz: outcome.privacyLipschitz,
      lipschitzOverDraws: "max",
      epsilonPerDataset: outcome.privacy.epsilonPerDataset,
      epsilon: outcome.privacy.epsilon,
      guarantee: outcome.privacy.guarantee,
      neighbours: NEIGHBOURS,
      backend: context.lipschitz.name,
      columns: [...order],
      ...(given.length === 0 ? {} : { given: given.map((j) => schema.columns[j].name) }),
      ...(modelName === BAYES_NET ? { sampling: settings.sampling ?? "balanced" } : {}),
      software: { name: "ppsynth", version: config.version },
      seedPolicy,
      ...(fit.flagged ? { fitFlagged: true as const } : {}),
      ...(settings.autoReason === undefined
        ? {}
        : { mechanismChoice: { requested: "auto" as const, reason: settings.autoReason } }),
    },
    diagnostics: {
      lipschitz: outcome.lipschitz,
      epsilon: outcome.privacy.epsilon,
      unweightedLipschitz: outcome.unweightedLipschitz,
      refits: outcome.refits,
      finalFit: outcome.finalFit,
      meanAlpha: alphaSum / data.n,
      fit: {
        rhatMax: fit.rhatMax,
        essBulkMin: fit.essBulkMin,
        flagged: fit.flagged,
        sweeps: fit.gradientEvaluations,
        summary: fit.summary,
      },
      drawIndices,
      files: files.map(({ drawn, unrepaired }) => ({ drawn, unrepaired })),
      model: modelName,
      classes,
      seed,
    },
    datasets,
  };
}

/** A whole-file model ready for the mechanisms: what simulates records, and its context. */
interface FileModelRun {
  readonly model: FileRecordModel;
  readonly context: MechanismContext;
  readonly classes: number | null;
}

/** The latent class model of the file under the request's Gibbs settings. */
function latentClassRun(
  encoded: EncodedFile,
  settings: FileSynthesisSettings,
  seed: number,
  run: Pick<LatentClassGibbsOptions, "onSweep" | "stop">,
): FileModelRun {
  const classes = settings.classes ?? DEFAULT_CLASSES;
  const model = new LatentClassModel(encoded, classes);
  const gibbs: LatentClassGibbsOptions = {
    ...run,
    seed,
    chains: settings.chains,
    warmup: settings.warmup,
    draws: settings.draws,
    thin: settings.thin,
    splitMerge: settings.splitMerge ?? 0,
    prior: { ...DEFAULT_LATENT_CLASS_PRIOR, dirichlet: settings.dirichlet ?? 1 },
  };
  return { model, context: latentClassContext(model, gibbs, settings.backend ?? "auto"), classes };
}

/** The Bayesian network of the file: its public prior and caps, exact draws on `chains` streams. */
function bayesNetRun(
  encoded: EncodedFile,
  settings: FileSynthesisSettings,
  seed: number,
  run: Pick<BayesNetSampleOptions, "onDraw" | "stop">,
  given: readonly number[],
): FileModelRun {
  const model = new BayesNetModel(encoded, {
    dirichlet: settings.dirichlet ?? DEFAULT_BAYES_NET_PRIOR.dirichlet,
    maxParents: settings.parents ?? DEFAULT_BAYES_NET_PRIOR.maxParents,
    maxCells: settings.maxCells ?? DEFAULT_BAYES_NET_PRIOR.maxCells,
  }, given);
  const options = { ...run, seed, chains: settings.chains, draws: settings.draws };
  const sampling = settings.sampling ?? "balanced";
  return {
    model: {
      simulate: (theta, n, rng, rows) => model.simulate(theta, n, rng, rows, sampling),
    },
    context: bayesNetContext(model, options, settings.backend ?? "auto"),
    classes: null,
  };
}

/**
 * The given columns' schema indices, refused (`RangeError` naming the column) when a name is not
 * a schema column, is named twice, is determined by another column (give its parent), or the
 * model is not the network.
 */
function givenColumns(
  schema: FileSchema,
  names: readonly string[],
  model: FileModelName,
): number[] {
  if (names.length > 0 && model !== BAYES_NET) {
    throw new RangeError(
      `Invalid x: given columns need the Bayesian network (model "${BAYES_NET}"), not "${model}"`,
    );
  }
  return names.map((name, k) => {
    const j = schema.columns.findIndex((column) => column.name === name);
    if (j < 0) throw new RangeError(`Invalid x: the schema has no column "${name}"`);
    if (names.indexOf(name) !== k) throw new RangeError(`Invalid x: "${name}" is named twice`);
    const parent = schema.columns[j].determinedBy?.column;
    if (parent !== undefined) {
      throw new RangeError(`Invalid x: "${name}" is determined by "${parent}": give "${parent}"`);
    }
    return j;
  });
}

/** The given columns' confidential cells as the release writes them (numbers on their grid). */
function confidentialCells(
  data: Dataset,
  schema: FileSchema,
  given: readonly number[],
): Map<string, string[]> {
  const columns = datasetColumns(data);
  return new Map(given.map((j) => {
    const column = schema.columns[j];
    const values = columns.get(column.name)!;
    const unit = columnUnit(column);
    return [
      column.name,
      Array.from(
        values as ArrayLike<number | string>,
        (value) => typeof value === "number" ? formatStep(Math.round(value / unit), column) : value,
      ),
    ];
  }));
}
