/**
 * Memory layout shared by the many-chain HMC kernels and their host code: the uniform parameter
 * block and the offsets inside the per-chain and control buffers. Mirrors
 * `shaders/hmc_common.wgsl` and the tiling constants of `shaders/hmc_target.wgsl`; change both
 * together (`test/gpu/hmc_layout_test.ts` reads the WGSL and compares, without a GPU).
 *
 * @module
 */

/**
 * Largest number of regression coefficients the kernels handle, K per linear predictor summed
 * over a record's linear predictors (θ has twice as many entries, plus one extra parameter).
 */
export const MAX_K = 16;
/** Values reduced over records per chain: Σc_i, a gradient per coefficient, the extra gradient, a bad count. */
export const MAX_NV = MAX_K + 3;
/** Records per evaluation tile: 32 threads × 32 records (`WG_L`·`RECORDS_PER_THREAD`). */
export const TILE = 1024;
/** Most chains or tiles one dispatch dimension takes (WebGPU's default limit). */
export const MAX_DISPATCH = 65535;

/** `params.mode`: evaluate log π and ∇log π only. */
export const MODE_EVAL = 0;
/** `params.mode`: evaluate and take the next leapfrog action. */
export const MODE_RUN = 1;

/** `params.prior_kind`: the papers' prior, θ = (β block(s), log σ block(s), extra). */
export const PRIOR_PAPER = 0;
/**
 * `params.prior_kind`: the `student-t` prior, over the free coordinates (β block(s), extra) with
 * β_j ~ Student-t(ν, 0, s_j); the scale coordinates are drawn exactly on the host.
 */
export const PRIOR_STUDENT_T = 1;

/** log π(q), the first scalar of a chain's f32 block (after its six D-vectors q, p, g, q0, g0, qp). */
export const CS_LOGP = 0;
/** u32 words per chain: step, bad flag, warmup divergences, spare. */
export const CU_STRIDE = 4;
/** Sticky flag: some evaluation on the chain's current trajectory was not finite. */
export const CU_BAD = 1;
/** Warmup divergences of the chain. */
export const CU_DIV_WARMUP = 2;

/** Control block, f32 word: the step size ε. */
export const CF_EPS = 0;
/** Control block, f32 word: dual averaging's μ = log 10ε₀. */
export const CF_MU = 3;
/** Control block, f32 word: the trajectory length T. */
export const CF_T = 4;
/** f32 words before M⁻¹ (D words), the EMA mean (D) and the EMA variance (D). */
export const CF_HEAD = 8;
/** Control block, u32 word: post-warmup iterations whose L was capped at the maximum. */
export const CC_CAPPED = 3;
/** Control block, u32 word: leapfrog steps summed over the run's iterations. */
export const CC_STEP_SUM = 4;
/** Length of the u32 control block. */
export const CC_WORDS = 8;

/**
 * f32 words per chain: six D-vectors (q, p, g, q0, g0, qp) and eight scalars.
 *
 * @param d the dimension of θ.
 * @returns 6·d + 8.
 */
export function chainStride(d: number): number {
  return 6 * d + 8;
}

/**
 * f32 words of the control block: the head and three D-vectors.
 *
 * @param d the dimension of θ.
 * @returns 8 + 3·d.
 */
export function controlWords(d: number): number {
  return CF_HEAD + 3 * d;
}

/**
 * f32 words per stored draw: the D coordinates, the acceptance probability, a divergence flag.
 *
 * @param d the dimension of θ.
 * @returns d + 2.
 */
export function drawWords(d: number): number {
  return d + 2;
}

/** The uniform block `Params` of `shaders/hmc_common.wgsl`, field for field. */
export interface HmcParams {
  readonly n: number;
  readonly k: number;
  readonly d: number;
  readonly chains: number;
  readonly tiles: number;
  readonly recordStride: number;
  readonly mode: number;
  readonly maxSteps: number;
  readonly warmup: number;
  readonly adaptEnd: number;
  readonly drawBase: number;
  readonly batchDraws: number;
  readonly key0: number;
  readonly key1: number;
  readonly totalIters: number;
  /** The censoring bound C, or +∞ for none. */
  readonly censor: number;
  readonly hasExtra: boolean;
  readonly coefNu: number;
  readonly coefInvNuS2: number;
  readonly coefLogNorm: number;
  readonly extraNu: number;
  readonly extraInvNuS2: number;
  readonly extraLogNorm: number;
  readonly targetAccept: number;
  readonly daGamma: number;
  readonly daT0: number;
  readonly daKappa: number;
  readonly trajRate: number;
  readonly emaFactor: number;
  readonly divergence: number;
  /** Linear predictors per record (1, or L − 1 for the categorical model). */
  readonly predictors: number;
  /** The coefficient prior: `PRIOR_PAPER` or `PRIOR_STUDENT_T`. */
  readonly priorKind: number;
  /** The `student-t` prior's ν (0 under the paper's). */
  readonly tNu: number;
  /** ν·s² of an intercept's `student-t` prior (1 under the paper's). */
  readonly tInterceptSpread: number;
  /** ν·s² of a covariate's coefficient's `student-t` prior (1 under the paper's). */
  readonly tCoefSpread: number;
}

/** Bytes of the packed `Params` block (36 four-byte words). */
export const PARAMS_BYTES = 144;

/**
 * Packs `Params` in WGSL's uniform layout: 36 consecutive 4-byte words, u32 or f32 as declared.
 *
 * @param p the field values.
 * @returns the 144 bytes to upload.
 */
export function packParams(p: HmcParams): ArrayBuffer {
  const buffer = new ArrayBuffer(PARAMS_BYTES);
  const u = new Uint32Array(buffer);
  const f = new Float32Array(buffer);
  const finite = Number.isFinite(p.censor);
  u.set([
    p.n,
    p.k,
    p.d,
    p.chains,
    p.tiles,
    p.recordStride,
    p.mode,
    p.maxSteps,
    p.warmup,
    p.adaptEnd,
    p.drawBase,
    p.batchDraws,
    p.key0,
    p.key1,
    p.totalIters,
    finite ? 1 : 0,
  ]);
  f[16] = finite ? p.censor : 0;
  u[17] = p.hasExtra ? 1 : 0;
  f.set(
    [
      p.coefNu,
      p.coefInvNuS2,
      p.coefLogNorm,
      p.extraNu,
      p.extraInvNuS2,
      p.extraLogNorm,
      p.targetAccept,
      p.daGamma,
      p.daT0,
      p.daKappa,
      p.trajRate,
    ],
    18,
  );
  u[29] = p.emaFactor;
  f[30] = p.divergence;
  u[31] = p.predictors;
  u[32] = p.priorKind;
  f.set([p.tNu, p.tInterceptSpread, p.tCoefSpread], 33);
  return buffer;
}
