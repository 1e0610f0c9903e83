/**
 * The synthesis pipeline (SPEC §7): data → model → mechanism → m synthetic datasets, with the
 * public release manifest and the owner's confidential diagnostics. The command line, the
 * HTTP functions and the studies all call this one function.
 *
 * @module
 */
import { type Fit, FitFlaggedError, type FitSetup } from "../mcmc/fit.ts";
import { predictLipschitz } from "../mechanisms/predict_lipschitz.ts";
import config from "../../deno.json" with { type: "json" };
import { datasetColumns, type OutputColumn } from "../data/csv.ts";
import { type Dataset, getColumn } from "../data/dataset.ts";
import { dropMissing } from "../data/missing.ts";
import type { MechanismOutcome, Refit } from "../mechanisms/mechanism.ts";
import { NEIGHBOURS } from "../mechanisms/privacy.ts";
import { acquireGpu, type GpuContext } from "../gpu/device.ts";
import { gpuHmcRefusal } from "../gpu/hmc_target.ts";
import { selectLipschitz } from "../gpu/select_lipschitz.ts";
import { secureLaplaceNoise } from "../mechanisms/secure_laplace.ts";
import { hasGpuHmc, type Model } from "../models/mod.ts";
import { isJointModel, type JointModel } from "../models/joint.ts";
import { sampleLaplace } from "../random/distributions.ts";
import { Rng } from "../random/rng.ts";
import { releaseSeed } from "../random/seed_policy.ts";
import { NOISE_STREAM, ORDER_STREAM, SYNTHESIS_STREAM } from "../random/streams.ts";
import { jointFitter } from "./joint_fit.ts";
import { type FitCache, fitter, runMechanismUnderCap, syntheticDatasets } from "./release.ts";
import type { ReleaseManifest } from "./report.ts";
import { type IdentificationRisk, identificationRisk } from "./risk.ts";
import { planOf, type SynthesisPlan } from "./plan.ts";
import type { SynthesisSpec } from "./spec.ts";
import { synthesisModel } from "./synthesis_model.ts";
import { inReleaseOrder } from "./release_order.ts";
import { type Utility, utilityOf } from "./utility.ts";
import { type UtilityReport, utilityReport } from "./utility_report.ts";
import { type RiskReport, riskReport } from "./risk_report.ts";
import type { ReportVariable } from "./_report_columns.ts";

/** The data owner's confidential evaluation (`diagnostics.json`). */
export interface SynthesisDiagnostics {
  /** Final α_i per record (null: all 1). */
  readonly alpha: number[] | null;
  /** Δ_{α,x_i} per record of the final fit. */
  readonly recordLipschitz: number[] | null;
  /** Where Δ_{α,x} was attained (0-based record and draw). */
  readonly argmax: { readonly record: number; readonly draw: number } | null;
  readonly unweightedLipschitz: number | null;
  /** For censoring: the largest unclamped |α_i·ℓ_i| over the draws (the clamp's work). */
  readonly uncensoredLipschitz: number | null;
  /** Every fit made, in order, the first (unweighted) one included (the key predates the name). */
  readonly refits: readonly Refit[];
  readonly finalFit: string | null;
  readonly g: number | null;
  readonly k: number | null;
  readonly fit: {
    readonly rhatMax: number;
    readonly essBulkMin: number;
    readonly divergences: number;
    readonly treeDepthHits: number;
    readonly flagged: boolean;
    /** Warmup iterations per chain of the final fit (short when warm-started). */
    readonly warmup: number;
    /** Its preconditioner and warm start (`src/mcmc/fit.ts`). */
    readonly setup: FitSetup;
    readonly gradientEvaluations: number;
    readonly summary: Record<string, unknown>;
  } | null;
  /** 0-based indices of the posterior draws behind the m datasets. */
  readonly drawIndices: number[];
  /** Per dataset, the utility of the outcome (several outcomes: empty, see `outcomes`). */
  readonly utility: Utility[];
  readonly risk: OutcomeRisk[];
  /** Several outcomes: each numeric outcome's utility and risk per dataset, in visit order. */
  readonly outcomes?: readonly {
    readonly y: string;
    readonly model: string;
    readonly utility: Utility[];
    readonly risk: OutcomeRisk[];
  }[];
  /** Several outcomes: the identification risk of the records over all of them. */
  readonly riskReport?: RiskReport;
  /** With `missing: drop`: how many records were removed for a missing value. */
  readonly missingDropped?: number;
  readonly seed: number;
}

/** The identification risk of one outcome in one dataset, with the ball it used. */
export type OutcomeRisk = IdentificationRisk & {
  readonly radius: number;
  readonly relative: boolean;
};

/** A finished synthesis. */
export interface SynthesisResult {
  readonly report: ReleaseManifest;
  readonly diagnostics: SynthesisDiagnostics;
  /**
   * The utility report (the owner's: aggregates of the confidential data), with several outcomes,
   * utility models or `report: true`; absent otherwise.
   */
  readonly utility?: UtilityReport;
  /** The m synthetic datasets, as CSV columns, in release order unless `order: "aligned"`. */
  readonly datasets: Map<string, OutputColumn>[];
}

/**
 * Progress: a stage label, the iterations of its fit done of the total, and with several outcomes
 * the outcome whose conditional the fit is (the conditionals are fitted at once).
 */
export type SynthesisProgress = (
  stage: string,
  done: number,
  total: number,
  conditional?: string,
) => void;

/** Options of {@linkcode synthesize}. */
export interface SynthesizeOptions {
  readonly onProgress?: SynthesisProgress;
  /** Notes for the person running it (a GPU fall-back); library code never writes to stderr. */
  readonly onNote?: (line: string) => void;
  /**
   * Aborting it stops the synthesis (a job past its time limit): the fit running then and every
   * later one reject with the signal's reason (`FitterOptions.signal`), and so do the CPU
   * Lipschitz and prediction passes in workers (`parallel_lipschitz.ts`, `predict_lipschitz.ts`).
   */
  readonly signal?: AbortSignal;
  /**
   * The datasets' row order: `"release"` (default) a uniformly random order per dataset from the
   * release's randomness, so that row numbers say nothing of the confidential file's order
   * (`release_order.ts`); `"aligned"` keeps record i's public values in row i, for callers that
   * pair synthetic with confidential records and release no file (survey tables, studies).
   */
  readonly order?: "release" | "aligned";
  /**
   * Fits shared with other syntheses of the same data and plan (`release.ts`'s
   * {@linkcode FitCache}, which the caller owns): a fit whose model, data (the same `confidential`
   * object), settings, seed, warm start and exact weights were fitted before is taken from it,
   * any other is made and kept. The plan's Lipschitz backend is not part of the key: for tests
   * and studies that run one synthesis under several backends, whose fits are the same (a
   * backend that gave other weights would miss). Releases never pass one.
   */
  readonly fits?: FitCache;
}

/**
 * The GPU for the many-chain HMC sampler, or null (with a line on stderr) when there is no
 * adapter, the model has no GPU kernel or is too large for it: NUTS on the CPU samples instead.
 */
async function gpuSamplerFor(
  model: Model,
  note: (line: string) => void,
): Promise<GpuContext | null> {
  const gpu = await acquireGpu().catch(() => null);
  const reason = gpu === null
    ? "no WebGPU adapter"
    : !hasGpuHmc(model.name)
    ? `no GPU kernel for the ${model.name} model`
    : gpuHmcRefusal(model);
  if (reason === null) return gpu;
  note(`ppsynth: ${reason}: sampling with NUTS on the CPU instead of GPU HMC`);
  return null;
}

/**
 * The public population size N = Σ_h N_h over the strata present in the data, which FBS and FBP
 * scale their synthetic weights to (Σ w* = N); a stratum of the data without a size is an error
 * naming it. Undefined without public stratum sizes.
 */
function publicWeightTotal(data: Dataset, spec: SynthesisSpec): number | undefined {
  if (spec.strata === undefined || spec.stratumSizes === undefined) return undefined;
  const column = getColumn(data, spec.strata);
  const labels = column.kind === "numeric"
    ? Array.from(column.values, String)
    : Array.from(column.codes, (code) => column.levels[code]);
  let total = 0;
  for (const level of new Set(labels)) {
    const size = spec.stratumSizes[level];
    if (size === undefined) {
      throw new RangeError(`Invalid stratumSizes: no public size for stratum "${level}"`);
    }
    total += size;
  }
  return total;
}

/** A synthetic outcome as a file column: level names for a binary or categorical outcome. */
function outcomeColumn(model: Model, values: Float64Array): OutputColumn {
  const levels = model.design.outcomeLevels;
  return levels === undefined ? values : Array.from(values, (code) => levels[code]);
}

/** The public manifest (report.json) of a release: what was run, its privacy, its columns. */
function releaseManifest(
  plan: SynthesisPlan,
  outcome: MechanismOutcome,
  model: Model,
  written: { readonly columns: string[]; readonly backend: string; readonly seedPolicy: string },
): ReleaseManifest {
  const { spec } = plan;
  const flagged = outcome.fit?.flagged ?? false;
  return {
    mechanism: spec.mechanism,
    model: plan.manifest.model,
    ...(plan.manifest.outcomes === undefined
      ? {}
      : { outcomes: plan.manifest.outcomes.map(({ y, model }) => ({ y, model })) }),
    n: model.design.n,
    m: spec.m,
    lipschitz: Number.isNaN(outcome.privacyLipschitz) ? null : outcome.privacyLipschitz,
    lipschitzOverDraws: "max",
    epsilonPerDataset: outcome.privacy.epsilonPerDataset,
    epsilon: outcome.privacy.epsilon,
    guarantee: outcome.privacy.guarantee,
    neighbours: NEIGHBOURS,
    backend: written.backend,
    columns: written.columns,
    software: { name: "ppsynth", version: config.version },
    seedPolicy: written.seedPolicy,
    ...(plan.survey !== null ? {} : { coefficientPrior: spec.prior }),
    ...(flagged ? { fitFlagged: true as const } : {}),
    ...(spec.autoReason === undefined
      ? {}
      : { mechanismChoice: { requested: "auto" as const, reason: spec.autoReason } }),
  };
}

/** The final fit's health, cost and summary, for the owner's diagnostics. */
function fitDiagnostics(fit: Fit): NonNullable<SynthesisDiagnostics["fit"]> {
  return {
    rhatMax: fit.rhatMax,
    essBulkMin: fit.essBulkMin,
    divergences: fit.divergences,
    treeDepthHits: fit.treeDepthHits,
    flagged: fit.flagged,
    warmup: fit.warmup,
    setup: fit.setup,
    gradientEvaluations: fit.gradientEvaluations,
    summary: fit.summary,
  };
}

/** The plan as the fits' cache scope: all of it but the Lipschitz backend, which no fit reads. */
function fitScope(plan: SynthesisPlan): unknown {
  return {
    ...plan,
    requested: { ...plan.requested, backend: null },
    spec: { ...plan.spec, backend: null },
    sampler: { ...plan.sampler, backend: null },
  };
}

/**
 * Runs a synthesis on the confidential `data`.
 *
 * @param confidential The confidential dataset.
 * @param request The plan (`plan.ts`), or a validated request on one's own data ("auto" is then
 *   resolved with both guarantees allowed).
 * @returns The public report, the confidential diagnostics and the synthetic datasets; throws
 * a `DataError` for bad data, a `RangeError` for settings that do not fit the mechanism, a
 * `CalibrationError` when the target ε cannot be met, and a `FitFlaggedError` when the final fit
 * fails its diagnostics (unless `spec.allowFlagged`).
 */
export async function synthesize(
  confidential: Dataset,
  request: SynthesisPlan | SynthesisSpec,
  options: SynthesizeOptions = {},
): Promise<SynthesisResult> {
  const plan = planOf(request);
  const { spec, outcomes, sampler } = plan;
  const { data, dropped } = spec.missing === "drop"
    ? dropMissing(confidential, plan.reads)
    : { data: confidential, dropped: 0 };
  const model = synthesisModel(data, plan);
  const note = options.onNote ?? (() => {});
  const lipschitz = await selectLipschitz(sampler.backend, note, options.signal);
  const seeded = spec.seed !== undefined;
  const { seed, policy: seedPolicy } = releaseSeed(spec.seed);
  const noiseRng = new Rng(seed).split(NOISE_STREAM);
  const gpu = sampler.sampler === "gpu-hmc" ? await gpuSamplerFor(model, note) : null;

  const outcome: MechanismOutcome = await runMechanismUnderCap(plan.mechanism, {
    model,
    lipschitz,
    laplace: seeded
      ? (scale) => sampleLaplace(noiseRng, 0, scale)
      : (scale) => secureLaplaceNoise(scale),
    fit: (isJointModel(model) ? jointFitter : fitter)(model as JointModel, {
      seed,
      chains: sampler.chains,
      warmup: sampler.warmup,
      drawsPerChain: sampler.drawsPerChain,
      gpu,
      shortFirstWarmup: true,
      continueUnmixed: true,
      // A release that refuses a flagged fit first refits a divergent one; one that reports it
      // (allowFlagged: the studies, a research comparison) keeps the procedure as it is.
      refitDivergent: spec.allowFlagged !== true,
      onProgress: options.onProgress,
      signal: options.signal,
      ...(options.fits === undefined ? {} : {
        cache: { fits: options.fits, scope: options.fits.scope(confidential, fitScope(plan)) },
      }),
    }),
    predict: (draws, base, candidates) =>
      predictLipschitz(model, draws, base, candidates, options.signal),
  });

  // ε rests on Δ, a maximum over the final fit's draws: no release from a fit that failed its
  // diagnostics, unless research asked for one (the report then says so).
  const flagged = outcome.fit?.flagged ?? false;
  if (flagged && !spec.allowFlagged) throw new FitFlaggedError(outcome.fit!);
  const original = datasetColumns(data);
  const weightTotal = publicWeightTotal(data, spec);
  if (plan.unscaledWeightsNote !== null) note(plan.unscaledWeightsNote);
  const ball = { radius: spec.radius, relative: spec.radiusMode === "relative" };
  const datasets: Map<string, OutputColumn>[] = [];
  const byOutcome = outcomes.map(({ y, model }) => ({
    y,
    model,
    utility: [] as Utility[],
    risk: [] as OutcomeRisk[],
  }));
  const conditionals = isJointModel(model) ? model.components.map((c) => c.model) : [model];
  const released = new Set([...plan.covariates, ...[spec.strata].filter((n) => n !== undefined)]);
  const { drawIndices, datasets: draws } = syntheticDatasets(
    model,
    outcome,
    spec.m,
    (j) => new Rng(seed).split(SYNTHESIS_STREAM + j),
    weightTotal,
  );
  for (const draw of draws) {
    const synthetic = new Map(
      outcomes.map(({ y }, k) => [y, draw.outcomes?.[k] ?? draw.y] as const),
    );
    const columns = new Map<string, OutputColumn>();
    for (const name of data.names) {
      const k = outcomes.findIndex(({ y }) => y === name);
      if (k >= 0) columns.set(name, outcomeColumn(conditionals[k], synthetic.get(name)!));
      else if (name === plan.survey?.weight) columns.set(name, draw.w);
      else if (released.has(name)) columns.set(name, original.get(name)!);
    }
    datasets.push(columns);
    // Each outcome's utility and risk per dataset: a lone outcome whatever its kind, of a joint
    // record the numeric ones (the level outcomes are in the utility report's tables).
    conditionals.forEach((conditional, k) => {
      if (plan.joint && conditional.design.outcomeLevels !== undefined) return;
      const ystar = synthetic.get(outcomes[k].y)!;
      byOutcome[k].utility.push(utilityOf(conditional.design.y, ystar));
      byOutcome[k].risk.push({ ...identificationRisk(conditional.design.y, ystar, ball), ...ball });
    });
  }

  const synthesized: ReportVariable[] = outcomes.map(({ y }, k) => {
    const levels = conditionals[k].design.outcomeLevels;
    return levels === undefined
      ? { name: y, kind: "numeric" }
      : { name: y, kind: "categorical", levels };
  });
  const reportInput = {
    confidential: original,
    synthetic: datasets,
    synthesized,
    public: spec.x,
  };
  const utilityReported = plan.utilityReport
    ? utilityReport(reportInput, { models: spec.utilityModels })
    : undefined;
  return {
    report: releaseManifest(plan, outcome, model, {
      columns: [...datasets[0].keys()],
      backend: lipschitz.name,
      seedPolicy,
    }),
    diagnostics: {
      alpha: outcome.alpha === null ? null : [...outcome.alpha],
      recordLipschitz: outcome.bound === null ? null : [...outcome.bound.perRecord],
      argmax: outcome.bound?.argmax ?? null,
      unweightedLipschitz: outcome.unweightedLipschitz,
      uncensoredLipschitz: outcome.censor !== undefined ? outcome.bound!.overall : null,
      refits: outcome.refits,
      finalFit: outcome.finalFit,
      g: outcome.g ?? null,
      k: outcome.k ?? null,
      fit: outcome.fit === null ? null : fitDiagnostics(outcome.fit),
      drawIndices,
      // A joint record lists each outcome's utility and risk under it, with the risk report.
      ...(plan.joint
        ? {
          utility: [],
          risk: [],
          outcomes: byOutcome,
          riskReport: riskReport(reportInput, {
            tolerance: spec.radiusMode === "relative" ? spec.radius : undefined,
          }),
        }
        : { utility: byOutcome[0].utility, risk: byOutcome[0].risk }),
      ...(spec.missing === "drop" ? { missingDropped: dropped } : {}),
      seed,
    },
    datasets: options.order === "aligned"
      ? datasets
      : datasets.map((columns, j) =>
        inReleaseOrder(columns, new Rng(seed).split(ORDER_STREAM + j))
      ),
    ...(utilityReported === undefined ? {} : { utility: utilityReported }),
  };
}
