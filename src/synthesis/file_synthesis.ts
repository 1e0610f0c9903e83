/**
 * A whole file in one release (SPEC §13, issue 35): every column of a confidential file, declared
 * by its {@linkcode FileSchema}, synthesised jointly by the latent class model under one
 * record-level guarantee.
 *
 * 1. The file is encoded through the declared schema only (`encodeFile`: levels, N/A states and
 *    bins from the declaration, so the release's shape depends on no confidential value; an
 *    undeclared level or a value outside the declared bounds is an error naming column and row).
 * 2. A mechanism of the registry runs on the latent class model (`latent_class_release.ts`:
 *    the Gibbs fit, Δ of the complete-data term u_i), under the ε cap.
 * 3. Each of the m files is drawn from its posterior draw θ_s, s = `datasetDrawIndices(S, m)[j]`,
 *    held to the schema's rules (`file_records.ts`), in the input's column order. Records are
 *    i.i.d. draws of θ: their order depends on no confidential record.
 *
 * ε = 2Δm (aDP, add/remove neighbours; the proof is `src/models/latent_class.ts`'s) with Δ the
 * largest half range of u_i(θ_s) over the final fit's draws (`centredTerm`); a fit that fails its label-invariant checks
 * releases nothing (`FitFlaggedError`).
 *
 * @module
 */
import config from "../../deno.json" with { type: "json" };
import type { Dataset } from "../data/dataset.ts";
import { encodeFile } from "../data/file_encoding.ts";
import type { FileSchema } from "../data/file_schema.ts";
import { FitFlaggedError } from "../mcmc/fit.ts";
import type { LatentClassGibbsOptions } from "../mcmc/latent_class_gibbs.ts";
import type { MechanismName, MechanismOutcome } from "../mechanisms/mechanism.ts";
import { NEIGHBOURS } from "../mechanisms/privacy.ts";
import {
  DEFAULT_CLASSES,
  DEFAULT_LATENT_CLASS_PRIOR,
  LatentClassModel,
} from "../models/latent_class.ts";
import { Rng } from "../random/rng.ts";
import { FILE_STREAM } from "../random/streams.ts";
import { releaseSeed } from "../random/seed_policy.ts";
import { simulateFileRecords } from "./file_records.ts";
import { latentClassContext, runLatentClassMechanism } from "./latent_class_release.ts";
import { datasetDrawIndices } from "./release.ts";
import type { ReleaseManifest } from "./report.ts";

/** The model name a whole-file release states. */
export const LATENT_CLASS = "latent-class";

/** What a whole-file release runs: the mechanism, its privacy target and the sampler. */
export interface FileSynthesisSettings {
  /** A registry mechanism that takes a whole record (sw, lw, lw-final, weighted-e, unweighted). */
  readonly mechanism: MechanismName;
  /** Target total ε of the m files (a cap; required by every mechanism but `unweighted`). */
  readonly epsilon?: number;
  readonly m: number;
  /** Truncation K of the mixture (public; default {@linkcode DEFAULT_CLASSES}). */
  readonly classes?: number;
  /** Dirichlet concentration a of every φ_kj (public; default the model's, a = 1). */
  readonly dirichlet?: number;
  /** Seed (CLI, studies, tests); absent: a fresh secret seed from the OS CSPRNG. */
  readonly seed?: number;
  readonly chains: number;
  /** Gibbs sweeps discarded per chain. */
  readonly warmup: number;
  /** Draws kept per chain. */
  readonly draws: number;
  /** Sweeps per kept draw. */
  readonly thin?: number;
  /** Split–merge moves per sweep (default 0). */
  readonly splitMerge?: number;
  /** Why `auto` chose the mechanism (public facts only), when it did. */
  readonly autoReason?: string;
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
  readonly classes: number;
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

/**
 * Synthesises every column of a confidential file under its declared schema.
 *
 * @param data The confidential file (its columns all declared by `schema`).
 * @param schema The owner's declared schema.
 * @param settings The mechanism, ε, m and Gibbs settings.
 * @param onProgress Called with each stage's name, and with each fit's sweeps.
 * @returns The public manifest, the owner's diagnostics and the m files; throws a `DataError`
 * for a record outside the schema, a `RangeError` for a mechanism that needs a one-dimensional
 * outcome, a `CalibrationError` when ε cannot be met and a `FitFlaggedError` for a flagged fit.
 */
export async function synthesizeFile(
  data: Dataset,
  schema: FileSchema,
  settings: FileSynthesisSettings,
  onProgress: FileProgress = () => {},
): Promise<FileSynthesisResult> {
  onProgress("encode");
  const encoded = encodeFile(data, schema);
  const classes = settings.classes ?? DEFAULT_CLASSES;
  const model = new LatentClassModel(encoded, classes);
  const { seed, policy: seedPolicy } = releaseSeed(settings.seed);
  let stage = "fit";
  const gibbs: LatentClassGibbsOptions = {
    onSweep: (done, total) => onProgress(stage, done, total),
    seed,
    chains: settings.chains,
    warmup: settings.warmup,
    draws: settings.draws,
    thin: settings.thin,
    splitMerge: settings.splitMerge ?? 0,
    prior: { ...DEFAULT_LATENT_CLASS_PRIOR, dirichlet: settings.dirichlet ?? 1 },
  };
  const context = latentClassContext(model, gibbs);
  const fits = { count: 0 };
  const outcome = await runLatentClassMechanism(
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
  const files = drawIndices.map((s, j) =>
    simulateFileRecords(
      model,
      fit.draws.subarray(s * fit.dim, (s + 1) * fit.dim),
      data.n,
      schema,
      new Rng(seed).split(FILE_STREAM + j),
    )
  );
  const datasets = files.map(({ cells }) => new Map(order.map((name) => [name, cells.get(name)!])));
  const alphaSum = outcome.alpha === null ? data.n : outcome.alpha.reduce((sum, a) => sum + a, 0);
  return {
    report: {
      mechanism: settings.mechanism,
      model: LATENT_CLASS,
      n: data.n,
      m: settings.m,
      lipschitz: outcome.privacyLipschitz,
      lipschitzOverDraws: "max",
      epsilonPerDataset: outcome.privacy.epsilonPerDataset,
      epsilon: outcome.privacy.epsilon,
      guarantee: outcome.privacy.guarantee,
      neighbours: NEIGHBOURS,
      backend: "cpu",
      columns: [...order],
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
      classes,
      seed,
    },
    datasets,
  };
}
