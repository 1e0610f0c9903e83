/**
 * The real-file study's fixed prose (`docs/studies/real_file.md`) with the placeholders of
 * `study_document.ts`, filled from `real_file_document.ts`.
 *
 * @module
 */

/** The report's template: one string, its paragraphs one entry each. */
export const REAL_FILE_TEMPLATE = [
  "# A real public-use file end to end: NHANES 2009–2010",
  "",
  "Issue 15; SPEC §7, §8 and §10. This document and `real_file.json` are the output of one " +
  "command, `deno task real-file`, with fixed seeds.",
  "",
  "**What was done.** The confidential outcomes race (categorical) then hi_chol (logistic) " +
  "were synthesised given the public covariates agecat and gender, as the chain p(race | " +
  "agecat, gender)·p(hi_chol | agecat, gender, race) under one record-level guarantee (`deno " +
  "task synth --y race,hi_chol --model categorical,logistic --x agecat,gender --missing " +
  "drop`), by LW_final calibrated to ε = {{lw_epsilons}} and by the unweighted (non-private) " +
  "synthesizer as the utility ceiling, m = {{m}} synthetic datasets each. The perturbed " +
  "histogram of hi_chol alone (ε = {{histogram_epsilons}}) is the one-variable baseline. Each " +
  "synthesis's utility comes from its own utility report (`src/synthesis/utility_report.ts`); " +
  "the weighted survey table of hi_chol by agecat × gender comes from `src/survey/tables.ts` " +
  "on the confidential records and on each synthetic dataset, combined by the " +
  "partial-synthesis rules (`src/survey/combine.ts`).",
  "",
  "**Data.** `{{data}}`{{subsample}}: {{n_file}} examined persons of the US National Health " +
  "and Nutrition Examination Survey (NHANES) 2009–2010, as extracted in R's `survey` package " +
  '(4.1.1) dataset `nhanes` ("Data extracted from NHANES 2009-2010 on high cholesterol") and ' +
  "exported by `test/reference/nhanes_export.R`. Source: US National Center for Health " +
  "Statistics (CDC/NCHS). **Licence**: NHANES public-use files are works of the US government " +
  "and in the public domain (the `survey` package that ships this extract is GPL-2 | GPL-3). " +
  "Columns: agecat (0-19, 20-39, 40-59, 60+), gender, race (hispanic, white [non-Hispanic], " +
  "black [non-Hispanic], other), hi_chol (total cholesterol ≥ 240 mg/dL, 0/1), weight " +
  "(WTMEC2YR, the examination weight), stratum (SDMVSTRA, 15 masked variance strata), psu " +
  "(SDMVPSU, 2 per stratum). {{n_dropped}} records miss hi_chol; `--missing drop` removes " +
  "them, leaving n = {{n_used}}.",
  "",
  "**Settings.** Declared (public) level sets: race hispanic, white, black, other; hi_chol 0, " +
  "1. The default coefficient prior (`student-t`: β ~ Student-t(3, 0, 2.5), " +
  "`src/models/glm_prior.ts`). NUTS, {{chains}} chains × ({{warmup}} warmup + " +
  "{{draws_per_chain}} draws) per fit (a refit within a mechanism starts warm unless the fit " +
  "before it diverged), CPU Lipschitz backend, seed {{seed}} for every synthesis. LW_final is " +
  "LW calibrated to ε (shift g) and then re-weighted (Algorithm 3, k = 0.95^j). The histogram " +
  "has one bin per declared level of hi_chol (0 and 1) on the codes, which is the 2-bin " +
  "histogram with public bounds [0, 1]: for a binary outcome the mechanism takes its bins from " +
  "the declared levels (`--lower`, `--upper` and `--bins` are not used) and draws level codes, " +
  "so its synthetic hi_chol is 0/1. It releases hi_chol only: agecat and gender are kept, race " +
  "is not in its datasets. The utility models' reference levels are the first in order of " +
  "appearance for the public covariates (agecat 20-39, gender male) and the first declared " +
  "level for race (hispanic).",
  "",
  "## Releases",
  "",
  "{{table:releases}}",
  "",
  "Achieved ε is the release manifest's: 2·Δ·m for the pseudo posterior (aDP), ε for the " +
  "histogram (DP). Fits: every fit the mechanism ran, the unweighted one first.",
  "",
  "Mean final weight α_i over the records of each confidential level:",
  "",
  "{{table:alpha}}",
  "",
  "## Utility per variable: total variation distance",
  "",
  "½Σ|p − p*| between the confidential and each synthetic table, mean over the m datasets " +
  "(range over them in brackets); two-way tables of every pair with a synthesised variable.",
  "",
  "{{table:tvd}}",
  "",
  "## Propensity score: pMSE and S_pMSE",
  "",
  "Snoke et al. (2018): a logistic regression of t (1 = synthetic) on the main effects over " +
  "the stacked confidential and synthetic records; S_pMSE = pMSE / its null expectation (about " +
  "1 when the model cannot tell them apart). The second pair uses (agecat, gender, hi_chol) " +
  "only, the variables every synthesizer releases, so that the histogram can be compared.",
  "",
  "{{table:propensity}}",
  "",
  "## Utility model `hi_chol ~ agecat + gender + race`",
  "",
  "Logistic regression on the confidential data (Wald 95% interval) and on each synthetic " +
  "dataset, combined over m by the partial-synthesis rules. Cells: combined estimate; CI " +
  "overlap I (1 = identical intervals, < 0 disjoint) / standardised difference |β̄ − β|/SE.",
  "",
  "{{table:model_full}}{{model_full_failures}}",
  "",
  "## Utility model `hi_chol ~ agecat + gender` (every synthesizer)",
  "",
  "{{table:model_small}}{{model_small_failures}}",
  "",
  "## Survey table: hi_chol by agecat × gender, confidential vs synthetic",
  "",
  "Design: stratified one-stage, with replacement, strata = stratum (SDMVSTRA), weights = " +
  "weight (WTMEC2YR), Taylor-linearised SEs, domains by zeroing (SPEC §8; R's `svydesign(ids = " +
  "~1, strata = ~stratum, weights = ~weight)`). NHANES is a two-stage clustered design (PSUs " +
  "within strata); this table ignores the PSU clustering (ids = ~1), so its SEs are the " +
  "stratified-only ones{{psu_reference}} The design columns are public and unsynthesised: each " +
  "synthetic record gets the weight and stratum of the confidential record in its row (partial " +
  "synthesis keeps the records in order; the run checks that the synthetic datasets have the " +
  "used records' count and the same agecat and gender in every row, so the records `--missing " +
  "drop` removed are removed from the design columns too). The m synthetic tables are combined " +
  "by the partial-synthesis rules: q̄, T = b/m + ū, t_ν interval.",
  "",
  "### Weighted counts (identical in the confidential and every synthetic dataset)",
  "",
  "{{table:counts}}",
  "",
  "### hi_chol prevalence (%), confidential vs synthetic",
  "",
  "Confidential: estimate (SE). Synthetic: q̄ (√T) [95% interval]; ✗ marks an interval that " +
  "misses the confidential estimate.{{histograms_elsewhere}}",
  "",
  "{{table:prevalence}}",
  "",
  "{{table:coverage}}",
  "",
  "## Findings",
  "",
  "- **Privacy.** LW_final reached {{lw_met}} of {{lw_targets}} targets{{lw_reached}}. " +
  "LW_final stays below its target because re-weighting (k < 1) lowers Δ after the " +
  "calibration. The unweighted synthesizer's Δ = {{unweighted_lipschitz}} would give ε = " +
  "{{unweighted_epsilon}} for m = {{m}}, but it is not calibrated: its Δ is read off the " +
  "confidential data, so it is no guarantee; it is the utility ceiling only.",
  "- **Utility against ε.** {{trends}}. Against the unweighted synthesizer at ε = " +
  "{{lw_smallest}}, the {{worst_measure}} degrades most (×{{worst_factor}}) and the " +
  "{{mildest_measure}} least (×{{mildest_factor}}). With m = {{m}} datasets per synthesis each " +
  "row is one run: the ranges over the m datasets in the tables above show how large the " +
  "synthesis noise is, and a step between ε values smaller than that range is not a trend.",
  "- **What the weights do.** LW gives a record a weight that falls with its Lipschitz value " +
  "(its largest |log likelihood| over the draws); the table of mean α by level above shows " +
  "which records that hits. At ε = {{lw_smallest}} the mean α is {{alpha_non_cases}} for " +
  "hi_chol = 0 and {{alpha_cases}} for hi_chol = 1. {{weights_effect}}: the overall hi_chol " +
  "prevalence is {{prevalence_confidential}}% in the confidential data, " +
  "{{prevalence_unweighted}}% from the unweighted synthesizer and {{prevalence_lw}} from " +
  "LW_final.",
  "- **The perturbed histogram** of hi_chol (ε = {{histogram_epsilons}}) adds Laplace noise of " +
  "scale 1/ε to two counts of {{n_used}} records, which is negligible: its marginal TVD is " +
  "{{histogram_tvd}} at ε = {{histogram_epsilon}} (LW_final {{lw_tvd}}, unweighted " +
  "{{unweighted_tvd}}). But it draws hi_chol independently of agecat and gender: the agecat × " +
  "hi_chol TVD is {{histogram_tvd_agecat}} (LW_final at ε = {{lw_smallest}} {{lw_tvd_agecat}}, " +
  "unweighted {{unweighted_tvd_agecat}}), S_pMSE on (agecat, gender, hi_chol) " +
  "{{histogram_spmse}} (LW_final {{lw_spmse}}, unweighted {{unweighted_spmse}}), and the mean " +
  "CI overlap of `hi_chol ~ agecat + gender` is {{histogram_overlap}} (LW_final " +
  "{{lw_overlap}}). It cannot release race with hi_chol: the mechanism takes one variable.",
  "- **The survey table.** Of the {{cells}} prevalence cells, the combined 95% intervals cover " +
  "the confidential estimate in {{coverage}}. The weighted counts are the same in every " +
  "synthetic dataset as in the confidential data (agecat, gender and the weights are public " +
  "and unsynthesised), so only the prevalences carry synthesis error. A partially synthetic " +
  "interval is centred on the synthesizer's estimate, not on the confidential one, so it " +
  "misses a cell where the model is wrong as well as by chance: the logistic model has main " +
  "effects only, while the confidential prevalence among those 60+ is {{prevalence_men_60}}% " +
  "for men and {{prevalence_women_60}}% for women (an age × gender interaction the model " +
  "cannot carry).",
  "- **MCMC.** {{flagged}} of {{fitted}} final fits are flagged (R̂ > 1.01, bulk ESS < 400 or " +
  "a divergence): {{final_fits}}. {{precondition}}A flagged final fit stops a release " +
  "(docs/decisions.md): Δ is a maximum over the draws, so a sampler that misses part of the " +
  "posterior can understate it; this study lets one through (`allowFlagged`, research) so that " +
  "it is reported, not lost. The pipeline keeps the diagnostics of the final fit only, not " +
  "those of the calibration and re-weighting refits; a refit warm-starts only after a fit " +
  "without divergences and when its own short warmup shows none, so here {{warm_starts}} fits " +
  "started warm.",
].join("\n");
