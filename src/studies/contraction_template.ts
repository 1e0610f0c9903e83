/**
 * The fixed prose of the contraction study's report (Study 1, SPEC §9.1; vector-weighted paper
 * Supp 5; JSM 2024 slides), with the placeholders of `study_document.ts` that
 * `contraction_document.ts` fills.
 *
 * @module
 */
import { CONTRACTION_SETTINGS, GENERATOR_LABELS } from "./contraction_settings.ts";

/** The paragraph on LW_final, placed when LW_final ran at every n on the Poisson data. */
export const CHOSEN_RULE = "**The chosen rule.** LW_final (LW calibrated to Δ_α, then " +
  'Algorithm 3) is the supplement\'s "LW synthesizer and re-weighting strategy" with the hand ' +
  "tuning of (c, g) replaced by the project's calibration. It cannot exceed Δ_α (calibration " +
  "stops under it and Algorithm 3 accepts no k whose refit does), so P(Δ > Δ_α) = 0 at every n " +
  "by construction; what n changes is how tightly the bounds gather under Δ_α, which the 95th " +
  "percentile and max − min lines below measure. The fixed rule, the same (c, g) on every " +
  "database, drifts upwards with n for the reason given under each generator; it is what " +
  "Weighted-e truncates.";

/** One generator's section; its placeholders are prefixed with the generator's name. */
function generatorSection(name: keyof typeof GENERATOR_LABELS): string[] {
  return [
    `## ${GENERATOR_LABELS[name]} (global Δ_α = {{${name}.global}}, ε = {{${name}.epsilon}})`,
    "",
    `{{table:${name}.sizes}}`,
    "",
    `{{${name}.trends}}`,
    "",
    '**The fixed rule against its formula** (see "Why the fixed LW rule cannot contract" ' +
    "below; by database, then the median):",
    "",
    `{{table:${name}.fixed}}`,
    "",
    `{{${name}.weighted}}`,
    "",
    `**Estimands** (Supp 5, Figure ${name === "poisson" ? 12 : 14}): at n = {{estimandsN}}, the ` +
    "data's mean, median, 15th and 90th quantiles and one synthetic dataset's per rule, as " +
    "distributions over the databases.",
    "",
    `{{figure:${name}.estimands}}`,
    "",
    `- **Fits**: {{${name}.fits}} distinct, {{${name}.flagged}} ({{${name}.flaggedPercent}}%) ` +
    `flagged, {{${name}.flaggedLikelihood}} ({{${name}.flaggedLikelihoodPercent}}%) on a ` +
    "likelihood parameter (β₀, or φ for the NB model), the rest only on the prior scale σ_β, " +
    `which does not enter ℓ_i; divergences: {{${name}.divergences}}.`,
    "",
  ];
}

/** The contraction study's report, one section per generator of `CONTRACTION_SETTINGS`. */
export const CONTRACTION_TEMPLATE: string = [
  "# Study 1: contraction of the local Lipschitz bound (Poisson and NB mixture)",
  "",
  "SPEC §9.1; vector-weighted paper Supp 5; JSM 2024 slides. For each generator, R = " +
  "{{replicates}} databases per n ∈ {{{sizes}}}: Poisson({{mean}}) counts with the Poisson " +
  "intercept-only synthesizer, and 0.2·NB(100, φ = 5) + 0.8·NB(100, φ = 20) with the negative " +
  "binomial one. Δ_{α,x_r} = max over the fit's S = {{S}} draws and the n records of " +
  "|α_i ℓ_i(θ_s)|. Rules: **Unweighted**; **LW fixed**, Algorithm 1 with c = {{c}}, g = {{g}} " +
  "on every database; **LW calibrated**, the shift g searched on each database for the largest " +
  "g with Δ ≤ Δ_α; **LW_final**, that calibrated LW re-weighted by Algorithm 3 (k = 0.95 " +
  "first, then 0.95^j, the first k whose refit keeps Δ within 1% and under Δ_α); " +
  "**LW fixed + Alg. 3**, the fixed rule re-weighted by Algorithm 3 with no calibration and no " +
  "target; **Weighted-e**, the fixed rule's records with Δ_{α,x_i} > Δ_α zeroed once and refit, the " +
  "lower-Δ fit kept. Δ_α = {{globals}}, the paper's global values. Seed {{seed}}.",
  "",
  "## Verdict against the papers",
  "",
  "{{verdicts}}",
  "",
  "The supplement prints no other number about contraction: its Figures 11 and 13 are violin " +
  "plots at n = 1000 only, and the slides' figure (Weighted-M on Poisson data at n = 100, " +
  "400, 1600, 6400) has no printed values. Design as printed: R = 100 (the procedure's loop " +
  "says R = 200; 100 here), n = 1000 (here also the slides' sizes), the mixture written " +
  "π₁NB(100, 5) + π₂NB(100, 5), which is one NB; here the §3.2 mixture (φ = 5 and 20, " +
  "weights 0.2 and 0.8), the one whose Δ_α = 6 the supplement reports.",
  "",
  "{{chosenRule}}",
  "",
  ...CONTRACTION_SETTINGS.generators.flatMap((generator) => generatorSection(generator.name)),
  "## Why the fixed LW rule cannot contract",
  "",
  "With c = {{c}}, g = {{g}}, Algorithm 1 gives α_i = (f_max − f_i)/(f_max − f_min), f_i = " +
  "max_s |ℓ_i(θ_s)| under the unweighted fit. With the weighted draws near the unweighted ones, " +
  "record i's bound is α_i·f_i, so the database bound is max_f f·(f_max − f)/(f_max − f_min) = " +
  "f_max²/(4(f_max − f_min)), reached at f = f_max/2 (when f_min < f_max/2). f_min, the |ℓ| of " +
  "a record at the mode, does not move with n. f_max = Δ_x is the most extreme record's |ℓ| = " +
  "−log p(y_max | θ), and the most extreme of n records lies near the 1 − 1/n quantile, where " +
  "−log p grows like log n (for Poisson(100), |ℓ(y)| ≈ ½log(2π·100) + (y − 100)²/200 and " +
  "(y_max − 100)²/200 ≈ log n). So the fixed rule's bound rises like (log n)/4 and no fixed " +
  "(c, g) keeps it at one value across n: a rule tuned to Δ_α at one n exceeds it at every " +
  "larger n. The tables under each generator set the formula beside the measured bound; it " +
  "ignores the weighted posterior's extra width, so it reads low, more so for the NB model, " +
  "whose fitted φ falls as tail records lose weight. Calibrating g per database removes the " +
  "drift (the shift absorbs f_max), which is why the calibrated rules contract.",
  "",
  "## Choices",
  "",
  "- **Sampler**: {{chains}} chains × ({{warmup}} warmup + {{draws}} draws), refits " +
  "warm-started (250 warmup iterations, kept only when they pass the diagnostics). Of " +
  "{{fits}} distinct fits, {{flagged}} ({{flaggedPercent}}%) are flagged (R̂ > 1.01 or bulk " +
  "ESS < 400 for some parameter, or a divergence), {{flaggedLikelihood}} " +
  "({{flaggedLikelihoodPercent}}%) on a likelihood parameter. Divergences: {{divergences}}. " +
  "Δ is a maximum over the S draws, so fewer draws can only lower it in expectation.",
  "- **Calibration** (`calibrate.ts`): regula falsi on log Δ(g) with c fixed, every step a " +
  "refit with the replicate's seed, stopping once Δ ≥ 0.97·Δ_α; the studies do not use " +
  "importance-sampled predictions. Memoised fits: the unweighted fit is shared by every rule, " +
  "the fixed-rule fit by LW fixed and Weighted-e, and the calibration's fits by LW " +
  "calibrated and LW_final, so LW_final adds only the re-weighting refits.",
  "- **Δ_α per generator**: the values the supplement reports (ε = 2Δ_α = 7 for Poisson; 6 " +
  "for the mixture); Weighted-e and the calibrated rules target them with m = 1.",
].join("\n");
