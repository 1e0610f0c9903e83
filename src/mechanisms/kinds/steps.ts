/**
 * The steps the mechanisms share: a fit and its Lipschitz bound (a stage, recorded as a refit),
 * the first, unweighted fit, the LW/CW weights and their calibration to ε. Each mechanism in this
 * folder is a `run` over a {@linkcode MechanismRun}; `runMechanism` makes the run, calls the
 * mechanism and applies its privacy map.
 *
 * @module
 */
import type { Fit } from "../../mcmc/fit.ts";
import type { Model, Weighting } from "../../models/model.ts";
import { calibrateShift, shiftForWeightSum, type ShiftPrediction } from "../calibrate.ts";
import type { NoisyHistogram } from "../histogram.ts";
import type { LipschitzResult } from "../lipschitz.ts";
import type { MechanismContext, MechanismSettings, Refit } from "../mechanism.ts";
import { cwWeights, lwWeights } from "../weights.ts";

/** A fit with the Lipschitz bounds of its draws and the weights it used. */
export interface Stage {
  readonly label: string;
  readonly alpha: Float64Array | null;
  readonly fit: Fit;
  readonly bound: LipschitzResult;
}

/** A stage of the LW/CW weights at shift g. */
export type ShiftedStage = Stage & { readonly g: number };

/** What a mechanism's `run` returns; `runMechanism` adds its name, privacy loss and refits. */
export interface MechanismResult {
  /** The number the mechanism's privacy map takes: Δ of the final fit, C, or ε (`kind.ts`). */
  readonly privacyInput: number;
  /**
   * The outcome's `lipschitz`: Δ of the final fit's draws (of their clamped contributions under
   * censoring), NaN without a fit.
   */
  readonly lipschitz: number;
  /**
   * The Lipschitz bound the guarantee rests on, when it is not `lipschitz`: the censoring level C
   * (the outcome's `privacyLipschitz`; a release reports it, never the confidential Δ below C).
   */
  readonly privacyLipschitz?: number;
  /** The fit whose draws generate the data (null for the histogram). */
  readonly final: Stage | null;
  /** Δ_x of the unweighted fit, when one was made. */
  readonly unweightedLipschitz: number | null;
  /** The outcome's remaining fields, in the order they appear in it. */
  readonly extra?: {
    readonly censor?: number;
    readonly g?: number;
    readonly k?: number | null;
    readonly histogram?: NoisyHistogram;
  };
}

function alphaSum(alpha: Float64Array | null, n: number): number {
  return alpha === null ? n : alpha.reduce((s, a) => s + a, 0);
}

/** One run of a mechanism: its settings, the pipeline's context and the fits made so far. */
export class MechanismRun<N extends string = string> {
  /** Every fit made, in order. */
  readonly refits: Refit[] = [];
  #unweighted: Promise<Stage> | undefined;

  /**
   * @param settings The mechanism and its parameters.
   * @param context The model, the sampler, the Lipschitz backend and the noise source.
   */
  constructor(readonly settings: MechanismSettings<N>, readonly context: MechanismContext) {}

  /** The model whose pseudo posterior is fitted. */
  get model(): Model {
    return this.context.model;
  }

  /** The number of records n. */
  get n(): number {
    return this.context.model.design.n;
  }

  /** The number of synthetic datasets m. */
  get m(): number {
    return this.settings.m;
  }

  /** The target ε, when given. */
  get epsilon(): number | undefined {
    return this.settings.epsilon;
  }

  /** The scale c of the LW/CW weights (default 1). */
  get c(): number {
    return this.settings.c ?? 1;
  }

  /**
   * The target ε, or a RangeError naming what needs it.
   *
   * @param what The step that needs ε, e.g. "censoring".
   */
  needEpsilon(what: string): number {
    const { epsilon } = this.settings;
    if (epsilon === undefined) throw new RangeError(`Invalid epsilon: ${what} needs --epsilon`);
    return epsilon;
  }

  /**
   * Fits the model under `weighting`, bounds the draws' record log-likelihoods and records the
   * fit as a refit.
   *
   * @param label What the fit is for (the refit's label).
   * @param weighting The record weights (and censoring level) of the fit.
   * @param predicted The Δ predicted for these weights, when a prediction chose them.
   */
  async stage(
    label: string,
    weighting: Weighting,
    predicted?: { lipschitz: number; paretoK: number },
  ): Promise<Stage> {
    const { context, model, n } = this;
    const fit = await context.fit(weighting, label);
    const bound = await context.lipschitz.compute(model, fit.draws, { alpha: weighting.alpha });
    this.refits.push({
      label,
      lipschitz: bound.overall,
      alphaSum: alphaSum(weighting.alpha, n),
      warmup: fit.warmup,
      warmStart: fit.setup.warmStart === true,
      ...(fit.setup.warmStartRejected === undefined
        ? {}
        : { warmStartRejected: fit.setup.warmStartRejected }),
      ...(fit.setup.continuedAfter === undefined
        ? {}
        : { continuedAfter: fit.setup.continuedAfter }),
      gradientEvaluations: fit.gradientEvaluations,
      ...(predicted === undefined
        ? {}
        : { predicted: { lipschitz: predicted.lipschitz, paretoK: predicted.paretoK } }),
    });
    return { label, alpha: weighting.alpha, fit, bound };
  }

  /** The unweighted fit ("unweighted"), made on the first call; every fitting mechanism's first. */
  unweighted(): Promise<Stage> {
    this.#unweighted ??= this.stage("unweighted", { alpha: null });
    return this.#unweighted;
  }
}

/**
 * The result of releasing `final`'s draws under the pseudo posterior map: Δ of the fit in, as
 * `lipschitz` and as the privacy map's input.
 *
 * @param final The fit whose draws generate the data.
 * @param unweighted The unweighted fit (its Δ is reported beside).
 * @param extra The outcome's g and k, when the mechanism has them.
 */
export function released(
  final: Stage,
  unweighted: Stage,
  extra?: MechanismResult["extra"],
): MechanismResult {
  return {
    privacyInput: final.bound.overall,
    lipschitz: final.bound.overall,
    final,
    unweightedLipschitz: unweighted.bound.overall,
    ...(extra === undefined ? {} : { extra }),
  };
}

/** Which vector weights: LW (likelihood, from the unweighted fit) or CW (isolation risk). */
export type VectorKind = "lw" | "cw";

/**
 * LW weights (f = the unweighted fit's record bounds) or CW weights (isolation risk) at shift g.
 *
 * @param run The run (its c, radius and data).
 * @param unweighted The unweighted fit.
 * @param kind LW or CW.
 * @param g The shift.
 */
export function vectorWeights(
  run: MechanismRun,
  unweighted: Stage,
  kind: VectorKind,
  g: number,
): Float64Array {
  const { c, settings } = run;
  return kind === "lw" ? lwWeights(unweighted.bound.perRecord, { c, g }) : cwWeights(
    run.model.design.y,
    { c, g, radius: settings.radius, relative: settings.relativeRadius },
  );
}

/**
 * LW/CW with the given g, or g calibrated to ε (`calibrate.ts`), or g = 0 without either.
 *
 * @param run The run.
 * @param unweighted The unweighted fit (LW's f, and the fit at all-1 weights).
 * @param kind LW or CW.
 * @returns The fit at the chosen g; throws a `CalibrationError` when no g reaches ε.
 */
export async function vectorWeighted(
  run: MechanismRun,
  unweighted: Stage,
  kind: VectorKind,
): Promise<ShiftedStage> {
  const { epsilon, m, c, n } = run;
  const weightsFor = (g: number) => vectorWeights(run, unweighted, kind, g);
  if (run.settings.g !== undefined || epsilon === undefined) {
    const g = run.settings.g ?? 0;
    return { ...await run.stage(`${kind} g=${g}`, { alpha: weightsFor(g) }), g };
  }
  const evaluate = async (g: number, predicted?: ShiftPrediction) => {
    const alpha = weightsFor(g);
    const result = alpha.every((a) => a === 1)
      ? unweighted
      : await run.stage(`${kind} calibration g=${g.toFixed(4)}`, { alpha }, predicted);
    return { ...result, g, lipschitz: result.bound.overall };
  };
  const options = {
    epsilon,
    m,
    shiftForShare: (share: number) => share === 1 ? 1 : shiftForWeightSum(weightsFor, c, share * n),
  };
  const predict = run.context.predict;
  return await calibrateShift(
    evaluate,
    options,
    predict === undefined
      ? undefined
      : (base, shifts) => predict(base.fit.draws, base.alpha, shifts.map(weightsFor)),
  );
}
