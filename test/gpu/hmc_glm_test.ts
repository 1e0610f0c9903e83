/**
 * Issue 27: `--sampler gpu-hmc` for the GLMs (logistic, normal, lognormal regression with two
 * covariates and weights α): the GPU's many-chain HMC agrees with the CPU's NUTS (a recorded fit,
 * `_nuts_cases.ts`) on every parameter's posterior mean within 4 combined MCSE. (Categorical
 * regression's check is `hmc_categorical_test.ts`.)
 */
import { checkGpuHmcAgainstNuts } from "./_check_means.ts";
import { announceGpu, gpu, GPU_TEST } from "./_helpers.ts";

announceGpu("the GPU HMC sampler's GLM tests", true);

const GLMS = ["logistic", "normal", "lognormal"] as const;

for (const name of GLMS) {
  Deno.test({
    name: `\`sampleGpuHmc()\` agrees with NUTS on a weighted ${name} regression within 4 MCSE`,
    ...GPU_TEST,
    fn: async () => {
      await checkGpuHmcAgainstNuts(gpu!, name);
    },
  });
}
