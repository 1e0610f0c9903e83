/**
 * The survey study's report (Study 4; survey paper §4.1–4.4, Appendix F) as fixed prose: the
 * template its document fills ({@linkcode SURVEY_TEMPLATE}), and the fixed words of the sentences
 * and verdict reasons the data decides ({@linkcode SURVEY_PROSE}).
 *
 * @module
 */
import { SURVEY_SETTINGS } from "./survey_settings.ts";

/** The sections of one arm (`a<index>`) in the RMSE-ratio part of the report. */
function ratioSections(a: number): string[] {
  return [
    `### Δ* = {{a${a}.target}}: counts (replicate 0)`,
    "",
    `{{table:a${a}.ratios.count}}`,
    "",
    `### Δ* = {{a${a}.target}}: mean salaries (replicate 0)`,
    "",
    `{{table:a${a}.ratios.mean}}`,
    "",
    `### Δ* = {{a${a}.target}}: pooled over all {{replicates}} samples`,
    "",
    `{{table:a${a}.ratios.pooled}}`,
    "",
  ];
}

/** The section of one arm in the coverage part of the report. */
function coverageSection(a: number): string[] {
  return [`### Δ* = {{a${a}.target}}`, "", `{{table:a${a}.coverage}}`, ""];
}

/** The arms of {@linkcode SURVEY_SETTINGS}, one per Δ* (the main one first). */
const ARMS = SURVEY_SETTINGS.lipschitz.map((_, a) => a);

/** The survey study's report, with the placeholders of `study_document.ts`. */
export const SURVEY_TEMPLATE: string = [
  "# Study 4: private survey tables under informative sampling",
  "",
  "SPEC §9.4; survey paper §4.1–4.4 (Figures 5–7), Appendix F (Tables 4–5) and its " +
  "supplement's figures for m = 10 and Δ* = 3.4. The population the paper prints " +
  '(Tables 4–5, "Pop.": N = {{populationSize}} units, its 16 field × gender counts and mean ' +
  "salaries; log-salary sd 0.4 within a cell, log π = log y + N(0, 0.4²)); " +
  "R = {{replicates}} stratified PPS samples of " +
  "n = {{n}} (fields as strata, proportional allocation, with replacement). FBS and FBP with " +
  "LW_final weights calibrated once per sample and arm to Δ ≤ Δ* ∈ {{{targets}}} " +
  "(ε = 2·Δ*·m for m = {{ms}}, the first m of {{mMax}} synthetic samples), their synthetic " +
  "weights scaled so Σ w* = Σ w of the sample (the paper's Table 2); Laplace at the same total ε " +
  "(R = {{laplaceReplicates}} random-group replicates). All errors against the POPULATION " +
  "values. Seed {{seed}}.",
  "",
  "## The paper's numbers and ours",
  "",
  "Monte Carlo errors (±) are standard errors over the R samples; a coverage agrees when it is " +
  "within 2·√2 standard errors (both estimates carry one) plus the paper's rounding.",
  "",
  "{{verdicts}}",
  "",
  "{{targetNotReached}}## Calibration",
  "",
  "{{table:calibration}}",
  "",
  "Replicate 0, Δ* = {{a0.target}}: FBS Δ = {{r0.fbs.delta}} ({{r0.fbs.fit}}), " +
  "FBP Δ = {{r0.fbp.delta}} ({{r0.fbp.fit}}).",
  "",
  "## Figures 3–4: record-level bounds and weight smoothing (replicate 0, Δ* = {{a0.target}})",
  "",
  "The paper's Figure 3: the weighting pulls every record's bound Δ_{α,(y_i,X_i,w_i)} under " +
  "Δ*, FBS leaving more records near it than FBP. Figure 4: the synthetic data's smoothed " +
  "weights vary far less with salary than the sample's design weights.",
  "",
  "{{figure:bounds}}",
  "",
  "{{figure:smoothing}}",
  "",
  "## Figures 8–9: synthesised against smoothed weights (replicate 0, Δ* = {{a0.target}})",
  "",
  "The paper's supplement (Appendix E) sets beside the sample one synthetic dataset whose " +
  "weights are synthesised, each drawn from the model's law of the weight given the synthetic " +
  "salary (FBS: the bivariate normal's conditional; FBP: log π* with every term of eq. 5's " +
  "mean), and the same dataset with the smoothed weights the tables use. The weights' spread, " +
  "the standard deviation of log w: {{weightSpread}}.",
  "",
  "{{figure:fbsWeights}}",
  "",
  "{{figure:fbpWeights}}",
  "",
  "## Figures 5–7: RMSE ratios over the 27 cells",
  "",
  "RMSE = √(bias² + SE²) per cell against the population value; ratio = method / confidential " +
  "sample (Taylor SE). Below 1: the private table beats the confidential sample. The paper's " +
  "figures are one sample (our replicate 0); the pooled rows use all R samples (27·R ratios).",
  "",
  ...ARMS.flatMap(ratioSections),
  "The paper prints no numbers for Figures 5–7 (violin plots); what it states is in the " +
  "verdict table above.",
  "",
  "## Coverage and CV for every m and Δ* (R = {{replicates}} samples)",
  "",
  "Mean over the 24 cells of Tables 4–5 (field totals and field × gender) of the coverage of " +
  "the nominal 95% intervals and of CV = SE/estimate. Sample and Laplace intervals are " +
  "q ± 1.96·SE; FBS and FBP use t_ν of the combining rules.",
  "",
  ...ARMS.flatMap(coverageSection),
  "## Tables 4–5, cell by cell (Δ* = {{a0.target}}, m = {{coverageM}}, ε = {{coverageEpsilon}})",
  "",
  "### Table 4: counts",
  "",
  "{{table:table4}}",
  "",
  "### Table 5: mean salaries",
  "",
  "{{table:table5}}",
  "",
  "## Differences from the paper",
  "",
  "- **Population**: the paper's printed counts exactly, and each cell's salaries scaled so " +
  "its mean is the printed mean exactly (a lognormal location of log μ_fg − 0.08 up to " +
  "sampling error). The paper drew its population once from the SDR public-use file's " +
  "shares and means, which it does not print; Tables 4–5 are what it prints of it.",
  "- **Weight total**: FBS and FBP scale w* so Σ w* = Σ w of the confidential sample, as the " +
  "paper's Table 2 shows (all-fields totals equal to the sample's). In a release that total " +
  "must be public: `synth`/`tabulate` and the API scale to the owner's declared population " +
  "size Σ N_h instead (docs/decisions.md).",
  "- **FBP's means**: interior cells unweighted; margins Σ_c N̂_c·ȳ_c / Σ_c N̂_c over their " +
  'cells (the smoothed weights "only needed when combining data across strata", §2.2).',
  "- **FBP's counts**: the paper builds FBP's smoothed weights \"from the smoothed π* by " +
  'using only the κ_y y_i component of the mean in Equation (5)" (§2.2) and says FBP "is, ' +
  'perhaps, not designed to use the smoothed weights" (§3.3). Without x_iκ_x the weights ' +
  "ignore how selection differs by field, so a field's count is off where its κ_x differs " +
  "from the average: the paper's own Field 7 covers 0.51. {{countCauses}}",
  "- **Weights**: π*_i = n_h·π_i/Σ_h π (the paper's footnote-5 approximation), not the exact " +
  "inclusion probabilities of R's `sampling::inclusionprobabilities`.",
  "- **Calibration**: LW_final with an automatic search of the shift g (c = 1) and Algorithm 3 " +
  "re-weighting; the paper tunes (c₁, c₂) by hand. Δ is the maximum over all S posterior draws.",
  "- **FBP's likelihood scale**: ℓ_i is eq. (6) plus log π_i, the density of (log y, log π) " +
  "rather than of (log y, π), so that Δ does not change with the units of the weights " +
  "(docs/decisions.md). The posterior is the same; Δ_x is not comparable with the paper's.",
  "- **Priors and sampler**: the project's FBS uses N(0, 10²) coefficients (SPEC §5), not the " +
  "paper's LKJ/half-t hierarchy; our NUTS with a dense metric for both synthesizers, not Stan.",
  "- **Replicates**: R = {{replicates}}{{fewReplicates}}.",
  "{{reducedSettings}}{{sampler}}",
].join("\n");

/** The fixed words of the sentences and verdict reasons the survey study's data decides. */
export const SURVEY_PROSE = {
  /** The paragraph after the verdict table when a sample missed its Δ* (`missed`: who, where). */
  targetNotReached: (missed: string) =>
    `**Target not reached:** ${missed}; those samples ran with the cap just above ` +
    "the smallest Δ their calibration reached (the records' `cap`), and their ε is 2·Δ·m of " +
    "that fit. Laplace stays at ε = 2·Δ*·m.\n\n",
  /** What follows "R = <R>" when R is below the paper's 100 (`se`: the largest coverage SE). */
  fewReplicates: (replicates: number, se: string) =>
    ` only, against the paper's 100: a coverage rate from ${replicates} samples has a ` +
    `standard error of up to ${se}. The full run is \`deno task study survey\``,
  /** The bullet naming the settings that differ from the defaults (`changes`: key = value, …). */
  reducedSettings: (changes: string) =>
    "- **Reduced settings**: this run differs from the defaults of `deno task study survey` in " +
    `${changes}.\n`,
  /** Why FBP's unweighted Δ_x (§4.2) cannot be compared with the paper's. */
  fbpNotComparable: "not comparable: our FBP ℓ_i is eq. (6) plus log π_i (the density of " +
    "(log y, log π)), so Δ_x does not depend on the weights' units; eq. (6)'s Δ_x does, and the " +
    "paper does not state them",
  /** Why FBP's Field 7 total count covers less than the paper's 0.51 (`length`: our CI length). */
  field7: (length: string) =>
    "the paper's own rule: FBP's weights keep \"only the κ_y y_i component of the mean in " +
    "Equation (5)\" (§2.2), dropping the fields' x_iκ_x, so this total is biased in the " +
    `paper (0.51) and here; our interval is ${length} long against the paper's 4725, so it ` +
    "misses more often",
} as const;
