/**
 * The GPU samplers' check against a reference posterior: posterior means within Monte Carlo
 * error of the reference's (a quadrature, rstan, or a NUTS fit).
 *
 * @module
 */
import assert from "node:assert/strict";
import { mcseMean } from "../../src/mcmc/diagnostics.ts";
import type { Fit } from "../../src/mcmc/fit.ts";

/** Draws of parameter j (constrained), one array per chain. */
export function chainsOf(fit: Fit, j: number): Float64Array[] {
  return Array.from({ length: fit.chains }, (_, c) =>
    Float64Array.from(
      { length: fit.drawsPerChain },
      (_, s) => fit.draws[(c * fit.drawsPerChain + s) * fit.dim + j],
    ));
}

/** Each parameter's posterior mean and its MCSE in a fit. */
export function meansOf(fit: Fit): Record<string, { mean: number; mcse: number }> {
  return Object.fromEntries(
    fit.paramNames.map((name, j) => [name, {
      mean: fit.summary[name].mean,
      mcse: mcseMean(chainsOf(fit, j)),
    }]),
  );
}

/**
 * Asserts |mean − reference| ≤ 4·√(MCSE² + referenceMcse²) for every named parameter.
 *
 * @returns the largest |mean − reference| / √(MCSE² + referenceMcse²).
 */
export function checkMeans(
  fit: Fit,
  reference: Record<string, { mean: number; mcse: number }>,
  label: string,
): number {
  let largest = 0;
  fit.paramNames.forEach((name, j) => {
    const ref = reference[name];
    if (ref === undefined) return;
    const combined = Math.hypot(mcseMean(chainsOf(fit, j)), ref.mcse);
    const difference = fit.summary[name].mean - ref.mean;
    largest = Math.max(largest, Math.abs(difference) / combined);
    assert.ok(
      Math.abs(difference) <= 4 * combined,
      `${label} ${name}: GPU ${fit.summary[name].mean}, reference ${ref.mean}, 4·MCSE ${
        4 * combined
      }`,
    );
  });
  return largest;
}
