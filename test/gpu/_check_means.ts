/**
 * The GPU samplers' check against a reference posterior: posterior means within Monte Carlo
 * error of the reference's (a quadrature, rstan, or a recorded NUTS fit).
 *
 * @module
 */
import assert from "node:assert/strict";
import type { GpuContext } from "../../src/gpu/device.ts";
import { sampleGpuHmc } from "../../src/gpu/hmc.ts";
import { mcseMean } from "../../src/mcmc/diagnostics.ts";
import { type Fit, type FitOptions, summarizeFit } from "../../src/mcmc/fit.ts";
import { fingerprint, NUTS_CASES, NUTS_REFERENCE, type NutsCaseName } from "./_nuts_cases.ts";

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

/** The recorded NUTS fits (`test/reference/gpu_nuts_reference.ts`, which imports this module). */
async function recordedNuts(): Promise<{
  settings: FitOptions;
  cases: Record<
    string,
    { fingerprint: unknown; means: Record<string, { mean: number; mcse: number }> }
  >;
}> {
  const url = new URL("../reference/gpu_nuts_expected.json", import.meta.url);
  return JSON.parse(await Deno.readTextFile(url));
}

/**
 * Samples case `name` of `_nuts_cases.ts` by `sampleGpuHmc` (64 chains × 200 draws after 100
 * warmup, at most 1% divergent) and checks its means against the recorded NUTS fit's
 * (`checkMeans`): 4 chains × 2,000 draws (`NUTS_REFERENCE`), none divergent, recorded for this
 * very posterior (the case's fingerprint, its f64 log target and gradient at three points, equals
 * the recorded one; else the recording is stale: rerun `test/reference/gpu_nuts_reference.ts`).
 * The tolerance rests on the draws (4 MCSE, the same in MCSE terms whatever the warmup); the
 * warmup need only adapt. Deliberate breaks, α × 0.8 and α ignored on the GPU: 300
 * warmup caught α × 0.8 in the same cases as 150; 100 catches every break 150 catches (α ignored
 * in all five weighted cases, 18–59 MCSE; α × 0.8 in logistic, normal and categorical's α = 0.8,
 * 5.6–9.8 MCSE) and α × 0.8 in lognormal too (4.8; 3.2 at 150).
 *
 * @returns the largest |GPU − NUTS| / combined MCSE.
 */
export async function checkGpuHmcAgainstNuts(gpu: GpuContext, name: NutsCaseName): Promise<number> {
  const { model, weighting } = NUTS_CASES[name]();
  const { settings, cases } = await recordedNuts();
  const recorded = cases[name];
  assert.deepEqual(settings, NUTS_REFERENCE, "the recorded NUTS settings");
  assert.deepEqual(
    fingerprint({ model, weighting }),
    recorded.fingerprint,
    `${name}: the recorded NUTS fit is of another posterior (rerun gpu_nuts_reference.ts)`,
  );
  const result = await sampleGpuHmc(gpu, model, weighting, {
    seed: 4,
    chains: 64,
    warmup: 100,
    draws: 200,
    batchSize: 100,
  });
  const fit = summarizeFit(model, result);
  assert.ok(fit.divergences <= 0.01 * fit.S, `${name}: ${fit.divergences} divergences`);
  return checkMeans(fit, recorded.means, name);
}
