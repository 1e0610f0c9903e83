/**
 * The registry of named random-number streams: every `Rng.split(stream)` id that is not a small
 * index (a chain c, a replicate r, a dataset d, a data stream 0, 1, …) is declared here, once.
 *
 * A stream id names a child of one particular parent generator, so the same number under two
 * parents gives unrelated children (`Rng.split` mixes the parent's key and stream in). The ids
 * below are therefore grouped by their parent, and ids only have to be distinct within a group:
 *
 * - **The synthesis seed** `new Rng(seed)` of a release (`src/synthesis`, `src/gpu`): the MCMC
 *   chains take streams 0..K−1, so the named streams start far above them at 2³⁹.
 * - **A study replicate's generator** `new Rng(seed).split(r)` (`study_runner.ts`,
 *   `replicateRng`): its data take streams 0, 1, 2, …, and its fit seed takes 2⁴⁰, so the
 *   synthetic datasets and the noise start one power of two higher than in a release
 *   ({@linkcode REPLICATE_SYNTHESIS_STREAM} = 2⁴¹, not {@linkcode SYNTHESIS_STREAM} = 2⁴⁰). The two
 *   groups never share a parent, so the difference is historical, not a collision avoided.
 * - **A study seed's root generator** `new Rng(seed)` (whose streams 0..R−1 are the replicates).
 *
 * Every value is frozen: the committed golden outputs (`test/golden/hashes.json`) and the
 * studies' committed JSON depend on them, so a new stream takes a new id and no id changes.
 * `test/architecture/streams_test.ts` fails on a `…_STREAM = ` constant declared outside this
 * module, save the two local copies it lists (`file_synthesis.ts`, `gpu/hmc.ts`, still to be
 * switched to this module), which must equal the values here.
 *
 * @module
 */

// ── Streams of the synthesis seed `new Rng(seed)` (chains use 0..K−1) ──────────────────────────

/**
 * Several outcomes: conditional j's fitting seed is drawn from stream `COMPONENT_STREAM + j`
 * (`componentSeed`, `src/synthesis/joint_fit.ts`).
 */
export const COMPONENT_STREAM = 2 ** 39;
/**
 * Synthetic dataset j's draws come from stream `SYNTHESIS_STREAM + j`
 * (`src/synthesis/synthesize.ts`).
 */
export const SYNTHESIS_STREAM = 2 ** 40;
/** The seeded Laplace noise of a release (`src/synthesis/synthesize.ts`). */
export const NOISE_STREAM = 2 ** 41;
/**
 * Dataset j's release order is drawn on stream `ORDER_STREAM + j`
 * (`src/synthesis/synthesize.ts`, `release_order.ts`).
 */
export const ORDER_STREAM = 2 ** 42;
/**
 * A whole-file release: synthetic file j is drawn on stream `FILE_STREAM + j`
 * (`src/synthesis/file_synthesis.ts`).
 */
export const FILE_STREAM = 2 ** 43;
/**
 * The Philox key of the GPU sampler (`src/gpu/hmc.ts`): the largest safe integer, so `split`
 * never gives it to a chain's starting point.
 */
export const KEY_STREAM = Number.MAX_SAFE_INTEGER;

// ── Streams of a study replicate's generator `new Rng(seed).split(r)` (data use 0, 1, …) ───────

/** The replicate's fit seed (`fitSeedOf`, `src/studies/study_runner.ts`). */
export const REPLICATE_FIT_STREAM = 2 ** 40;
/**
 * First stream of a replicate's synthetic datasets (one per mechanism, or per the study's own
 * layout above it: `five.ts`, `survey.ts`, `reweight.ts`, `contraction.ts`).
 */
export const REPLICATE_SYNTHESIS_STREAM = 2 ** 41;
/**
 * First stream of a replicate's seeded Laplace noise (histogram; one per ε or per table:
 * `five.ts`, `survey.ts`).
 */
export const REPLICATE_NOISE_STREAM = 2 ** 42;
/**
 * First stream of a replicate's bootstrap resamples (`reweight.ts`: the data's on this one, the
 * j-th synthesizer's release on `BOOTSTRAP_STREAM + 1 + j`).
 */
export const BOOTSTRAP_STREAM = 2 ** 43;
/**
 * Replicate 0's synthesised weights of Figures 8–9 of the survey study, one stream per
 * synthesizer (`survey.ts`; the tables' draws are unchanged).
 */
export const FIGURE_STREAM = 2 ** 44;

// ── Streams of a study seed's root generator `new Rng(seed)` (replicates use 0..R−1) ───────────

/** The survey study's finite population, the same for every replicate (`survey.ts`). */
export const POPULATION_STREAM = 2 ** 43;
