/**
 * Seeded random numbers: the Philox4x32-10 generator and the samplers built on it.
 *
 * @module
 */
export * from "./rng.ts";
export * from "./distributions.ts";
