/**
 * Issue 15's acceptance run, timed: `synth` on the real file examples/apistrat.csv (n = 200) with
 * three outcomes of mixed type, LW_final at ε ≤ 20, m = 2,
 *
 *     deno run -A bench/several_outcomes.ts [--runs 3]
 *
 * run once per seed 1..runs from the command line (a fresh process each, as a user runs it), with
 * the counts that explain each time (fits, those run cold, gradients over all fits and the final
 * fit's, its R̂/ESS/divergences), and
 * the cost of one log density + gradient of each conditional (ns per gradient and per record, at
 * points that move every parameter, as NUTS does); and, on the NHANES example of
 * `deno task real-file` (n = 7846 after `--missing drop`, categorical covariates only), the
 * logistic and categorical conditionals with records grouped by their row (the default) and per
 * record. Prints markdown tables for docs/performance.md.
 *
 * @module
 */
import { APISTRAT_ARGS, APISTRAT_DATA, benchArgs, nsPerGradient, timed } from "./_common.ts";
import { readCsv } from "../src/data/csv.ts";
import { buildDesign } from "../src/data/design.ts";
import { dropMissing } from "../src/data/missing.ts";
import { CategoricalModel } from "../src/models/categorical.ts";
import { LogisticModel } from "../src/models/logistic.ts";
import type { Model } from "../src/models/model.ts";
import { synthesisModel } from "../src/synthesis/synthesis_model.ts";
import { SynthesisSpec } from "../src/synthesis/spec.ts";
import type { JointModel } from "../src/models/joint.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** ns per log density + gradient of each conditional of the acceptance run. */
async function gradientCosts(): Promise<string[]> {
  const data = await readCsv(`${ROOT}${APISTRAT_DATA}`);
  const spec = SynthesisSpec.parse({
    mechanism: "lw-final",
    y: ["api00", "enroll", "awards"],
    model: ["normal", "negbin", "logistic"],
    x: ["stype"],
    epsilon: 20,
    m: 2,
  });
  const joint = synthesisModel(data, spec) as JointModel;
  return joint.components.map(({ outcome, model }) => {
    const ns = nsPerGradient(model);
    return `| ${outcome} | ${model.name} | ${model.dim} | ${ns.toFixed(0)} | ${
      (ns / model.design.n).toFixed(1)
    } |`;
  });
}

/** µs per log density + gradient of the NHANES conditionals of `deno task real-file`. */
async function nhanesCosts(): Promise<string[]> {
  const raw = await readCsv(`${ROOT}examples/nhanes.csv`);
  const { data } = dropMissing(raw, ["race", "hi_chol", "agecat", "gender"]);
  const race = buildDesign(data, { y: "race", x: ["agecat", "gender"] }, "categorical");
  const hiChol = buildDesign(data, { y: "hi_chol", x: ["agecat", "gender", "race"] }, "binary");
  const rows: [string, (groupRows: boolean) => Model][] = [
    [
      "race given agecat, gender (categorical)",
      (groupRows) => new CategoricalModel(race, { groupRows }),
    ],
    [
      "hi_chol given agecat, gender, race (logistic)",
      (groupRows) => new LogisticModel(hiChol, { groupRows }),
    ],
  ];
  return rows.map(([name, build]) => {
    const [plain, grouped] = [false, true].map((groupRows) => nsPerGradient(build(groupRows)));
    return `| ${name} | ${data.n} | ${(plain / 1000).toFixed(0)} | ${
      (grouped / 1000).toFixed(0)
    } | ${(plain / grouped).toFixed(1)} |`;
  });
}

const { runs } = benchArgs({ runs: "3" });
console.log("| conditional | model | dim | ns per gradient | ns per record |");
console.log("|---|---|---|---|---|");
for (const line of await gradientCosts()) console.log(line);
console.log();
console.log("| NHANES conditional | n | µs per gradient, per record | grouped by row | speed-up |");
console.log("|---|---|---|---|---|");
for (const line of await nhanesCosts()) console.log(line);
console.log();
console.log(
  "| seed | wall s | fits | refits run cold | gradients, all fits | final fit gradients | R̂ max | bulk ESS min | divergences | Δ | ε |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
for (let seed = 1; seed <= Number(runs); seed++) {
  const out = await Deno.makeTempDir({ prefix: "several_outcomes_" });
  const { seconds } = await timed(
    Deno.execPath(),
    ["run", "-A", "src/cli/synth.ts", ...APISTRAT_ARGS, "--seed", String(seed), "--out", out],
    ROOT,
  );
  const report = JSON.parse(await Deno.readTextFile(`${out}/report.json`));
  const diagnostics = JSON.parse(await Deno.readTextFile(`${out}/diagnostics.json`));
  const fit = diagnostics.fit;
  const refits: { gradientEvaluations: number; warmStartRejected?: string }[] = diagnostics.refits;
  const gradients = refits.reduce((sum, refit) => sum + refit.gradientEvaluations, 0);
  const cold = refits.filter((refit) => refit.warmStartRejected !== undefined).length;
  console.log(
    `| ${seed} | ${
      seconds.toFixed(1)
    } | ${refits.length} | ${cold} | ${gradients} | ${fit.gradientEvaluations} | ${
      fit.rhatMax.toFixed(3)
    } | ${fit.essBulkMin.toFixed(0)} | ${fit.divergences} | ${report.lipschitz.toFixed(3)} | ${
      report.epsilon.toFixed(2)
    } |`,
  );
  await Deno.remove(out, { recursive: true });
}
