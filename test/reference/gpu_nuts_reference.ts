/**
 * Records the NUTS side of the GPU HMC sampler checks (`test/gpu/_check_means.ts`): for each case
 * of `test/gpu/_nuts_cases.ts`, the posterior means and their MCSE of a NUTS fit with
 * `NUTS_REFERENCE`, and the case's fingerprint, in `gpu_nuts_expected.json`. Refuses a fit with a
 * divergent transition.
 *
 * Run from the repository root:
 * `npx -y deno@2.9.6 run --allow-read --allow-write test/reference/gpu_nuts_reference.ts`
 *
 * @module
 */
import { fitModel } from "../../src/mcmc/fit.ts";
import { meansOf } from "../gpu/_check_means.ts";
import { fingerprint, NUTS_CASES, NUTS_REFERENCE } from "../gpu/_nuts_cases.ts";

const cases: Record<string, unknown> = {};
for (const [name, make] of Object.entries(NUTS_CASES)) {
  const problem = make();
  const fit = fitModel(problem.model, problem.weighting, NUTS_REFERENCE);
  if (fit.divergences !== 0) throw new Error(`${name}: ${fit.divergences} divergent transitions`);
  cases[name] = { fingerprint: fingerprint(problem), means: meansOf(fit) };
  console.log(`${name}: done`);
}
await Deno.writeTextFile(
  new URL("gpu_nuts_expected.json", import.meta.url),
  JSON.stringify({ settings: NUTS_REFERENCE, cases }, null, 2) + "\n",
);
