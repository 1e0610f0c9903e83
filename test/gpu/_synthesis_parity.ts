/**
 * Shared pieces of the GPU pipeline parity tests: a synthesis run once on each backend, and the
 * check that the GPU run's report and released data are the CPU run's.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Dataset } from "../../src/data/dataset.ts";
import { CalibrationError } from "../../src/mechanisms/calibrate.ts";
import { FitCache } from "../../src/synthesis/release.ts";
import { SynthesisSpec } from "../../src/synthesis/spec.ts";
import { type SynthesisResult, synthesize } from "../../src/synthesis/synthesize.ts";
import { gpuTest } from "./_helpers.ts";

/** A synthesis's result, or the error it threw. */
export type RunOutcome = SynthesisResult | Error;

/**
 * Synthesises `spec(backend)` on the CPU, then on the GPU; a run that throws gives its error.
 * The runs share their fits (`SynthesizeOptions.fits`): only the Lipschitz passes differ between
 * backends, so the GPU run takes each fit the CPU run made under the same weights (the same fit,
 * bit for bit) and fits only under weights the CPU run never had (a backend that disagreed).
 */
export async function synthesizeOnBoth(
  data: Dataset,
  spec: (backend: "cpu" | "gpu") => SynthesisSpec,
): Promise<[RunOutcome, RunOutcome]> {
  const fits = new FitCache();
  const run = (backend: "cpu" | "gpu") =>
    synthesize(data, spec(backend), { fits }).catch((error: Error) => error);
  return [await run("cpu"), await run("gpu")];
}

/**
 * The quick sampler settings of the pipeline parity tests: 2 chains × (150 warmup + 200 draws).
 * The parity is exact whatever the fit, and the kernels' tiling has its own tests (lowered limits).
 */
export const QUICK = { draws: 200, chains: 2, warmup: 150, m: 2 };

/** Which checks {@linkcode assertSameSynthesis} makes beyond the backend, report and data. */
export interface SynthesisChecks {
  /** Logs `<refused>: both runs refused: …` when the runs refused. */
  readonly refused?: string;
  /** Compares ε on its own, with its own message (default true). */
  readonly epsilon?: boolean;
  /** Compares the weights α (default true). */
  readonly alpha?: boolean;
  /** Compares the per-record Lipschitz bounds Δ_i (default true). */
  readonly recordLipschitz?: boolean;
}

/**
 * Asserts the GPU run gave the CPU run's report (but for its backend) and datasets, and the
 * chosen diagnostics; or, where a run refused, that both refused with the same CalibrationError.
 */
export function assertSameSynthesis(
  label: string,
  cpu: RunOutcome,
  onGpu: RunOutcome,
  checks: SynthesisChecks,
): void {
  if (cpu instanceof Error || onGpu instanceof Error) {
    if (checks.refused !== undefined) console.log(`${checks.refused}: both runs refused: ${cpu}`);
    assert.ok(cpu instanceof CalibrationError, `${label}: ${cpu}`);
    assert.deepEqual(onGpu, cpu, label);
    return;
  }
  assert.equal(onGpu.report.backend, "gpu", label);
  if (checks.epsilon !== false) {
    assert.equal(onGpu.report.epsilon, cpu.report.epsilon, `${label}: ε`);
  }
  assert.deepEqual({ ...onGpu.report, backend: "cpu" }, cpu.report, label);
  if (checks.alpha !== false) {
    assert.deepEqual(onGpu.diagnostics.alpha, cpu.diagnostics.alpha, label);
  }
  if (checks.recordLipschitz !== false) {
    assert.deepEqual(onGpu.diagnostics.recordLipschitz, cpu.diagnostics.recordLipschitz, label);
  }
  assert.deepEqual(onGpu.datasets, cpu.datasets, label);
}

/**
 * Synthesises `spec` with {@linkcode QUICK} and `allowFlagged` (the backends' parity, not the
 * fit's diagnostics, is what is tested) on each backend; asserts {@linkcode assertSameSynthesis}.
 */
export async function assertSynthesisParity(
  data: Dataset,
  spec: Record<string, unknown>,
  label: string,
  checks: SynthesisChecks = {},
): Promise<void> {
  const [cpu, onGpu] = await synthesizeOnBoth(
    data,
    (backend) => SynthesisSpec.parse({ ...spec, backend, allowFlagged: true, ...QUICK }),
  );
  assertSameSynthesis(label, cpu, onGpu, checks);
}

/**
 * Registers one GPU test per `[mechanism, its settings]`: {@linkcode assertSynthesisParity} for
 * the `spec.model` synthesis of y given `spec.x` (seed `spec.seed`) on `pipeline`'s data, a
 * refusal logged as `<model>/<mechanism>`.
 */
export function synthesisParityTests(
  pipeline: { seed: number; data: Dataset },
  spec: { model: string; x: string[]; seed: number },
  mechanisms: [string, Record<string, number>][],
  checks: Omit<SynthesisChecks, "refused"> = {},
): void {
  for (const [mechanism, extra] of mechanisms) {
    const name = `${spec.model}/${mechanism}`;
    gpuTest(`--backend gpu gives the CPU's report, ε and data for ${name}`, async () => {
      await assertSynthesisParity(
        pipeline.data,
        { y: "y", ...spec, mechanism, ...extra },
        `seed ${pipeline.seed}`,
        { refused: name, ...checks },
      );
    });
  }
}
