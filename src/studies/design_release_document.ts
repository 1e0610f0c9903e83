/**
 * The report of a design-release result (`design_release.ts`) as data (issue 25): the verdicts'
 * numbers, the release, the design-based tables both ways, the weights and the held-out check,
 * rendered through `templates/design_release.md` to `docs/studies/design_release.md`, and the
 * files a result renders to ({@linkcode designReleaseFiles}).
 *
 * @module
 */
import {
  designReleaseJson,
  type DesignReleaseResult,
  type Estimate,
} from "./design_release_settings.ts";
import designReleaseText from "./templates/design_release.md" with { type: "text" };
import type { Report, StudyDocument, Value } from "./study_document.ts";
import { formatReport, fragment, num, renderStudy, text } from "./study_document.ts";

/** The report (the file's final newline dropped). */
const DESIGN_RELEASE_TEMPLATE = designReleaseText.replace(/\n$/, "");

/** The final fit's health, after "final fit" ({{state}}: "unflagged" or "**flagged**"). */
const DESIGN_RELEASE_FINAL_FIT =
  "{{state}} (R̂ {{rhat}}, bulk ESS {{ess}}, {{divergences}} divergences)";

/** The held-out table's predictors, in the order of its rows. */
const DESIGN_RELEASE_PREDICTORS: readonly string[] = [
  "(a) agecat, gender",
  "(b) + the synthetic weight's bin",
  "(c) + the confidential weight's bin",
  "for reference: + every released synthetic column (race, hi_chol, weight bin)",
];

/** The headers of the report's tables, by name. */
const DESIGN_RELEASE_HEADERS: Readonly<Record<string, readonly string[]>> = {
  hiChol: ["agecat", "gender", "prevalence conf.", "95 % CI", "prevalence synth."]
    .concat(["diff. (points)", "covered", "count conf.", "95 % CI", "count synth.", "covered"]),
  race: ["race", "share conf.", "95 % CI", "share synth.", "diff. (points)", "covered"]
    .concat(["count conf.", "count synth."]),
  weights: ["", "confidential", "synthetic"],
  meanByRace: ["race", "confidential", "synthetic (its race)", "synthetic (confidential race)"],
  heldOut: ["predictors", "accuracy"],
};

/** A design-release result with its report's document (the JSON file). */
export type DesignReleaseReport = DesignReleaseResult & { readonly document: StudyDocument };

/** A share in [0, 1] as a percentage with one decimal. */
const pct = (v: number | null | undefined) => num.percent(v, 1);
const yes = (v: boolean | null) => v === null ? "–" : v ? "yes" : "**no**";
const interval = (e: Estimate) => text`[${pct(e.lower)}, ${pct(e.upper)}]`;
const countInterval = (e: Estimate) => text`[${num.millions(e.lower)}, ${num.millions(e.upper)}]`;
/** Each value as it is: a number as JavaScript writes it. */
const asIs = (values: Record<string, string | number>): Record<string, Value> =>
  Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, typeof v === "number" ? num.plain(v) : v]),
  );
const code = (names: readonly string[], join: string) => names.map((c) => `\`${c}\``).join(join);

/**
 * The document of a result.
 *
 * @param result The result.
 * @returns The document; its verdicts are empty (the study compares with no paper).
 */
export function designReleaseDocument(result: DesignReleaseResult): Report {
  const { verdicts, release, table, race, weights, heldOut, settings, records, design } = result;
  const s = table.summary;
  const fit = release.finalFit;
  const { data, seed, chains, draws, warmup } = settings;
  const { mechanism, targetEpsilon, m, guarantee, n, weightRowsEqual, fits } = release;
  const { covered, cells, countCovered } = s;
  const values: Record<string, Value> = {
    ...asIs({ data, seed, chains, draws, warmup, mechanism, targetEpsilon, m, guarantee, n, fits }),
    ...asIs({ ...records, weightRowsEqual, covered, cells, countCovered }),
    ...asIs({ heldOutSeed: heldOut.seed, bins: heldOut.bins, weight: design.weight }),
    strata: design.strata,
    noDesignColumn: verdicts.noUnsynthesisedDesignColumn ? "yes" : "NO",
    columns: code(release.columns, ", "),
    designColumns: code([design.strata, design.psu], " and "),
    weightModel: release.outcomes.find((o) => o.y === design.weight)?.model ?? "–",
    publicOnly: pct(heldOut.publicOnly),
    syntheticWeight: pct(heldOut.syntheticWeight),
    confidentialWeight: pct(heldOut.confidentialWeight),
    predict: heldOut.noBetter ? "do not predict" : "PREDICT",
    comparison: heldOut.noBetter ? "≤" : ">",
    margin: num.significant(heldOut.margin),
    weightGain: num.significant(100 * (heldOut.confidentialWeight - heldOut.publicOnly), 3),
    tableCoverage: pct(verdicts.tableCoverage),
    maxDifference: num.significant(100 * s.maxAbsPrevalenceDifference, 3),
    maxAt: `${s.maxAt.agecat} × ${s.maxAt.gender}`,
    totalConfidential: num.millions(s.totalConfidential),
    totalSynthetic: num.millions(s.totalSynthetic),
    mechanismLabel: release.mechanism.toUpperCase(),
    autoPicks: release.autoPicks.toUpperCase(),
    epsilon: num.significant(release.epsilon, 4),
    lipschitz: num.significant(release.lipschitz, 4),
    finalFit: fit === null ? "–" : fragment(DESIGN_RELEASE_FINAL_FIT, {
      state: fit.flagged ? "**flagged**" : "unflagged",
      rhat: num.significant(fit.rhatMax, 4),
      ess: num.significant(fit.essBulkMin, 4),
      divergences: num.plain(fit.divergences),
    }),
    every: settings.every === 1 ? "record" : `${settings.every}th record`,
    outcomes: release.outcomes.map((o) => `${o.y} (${o.model})`).join(", "),
    epsilonPerDataset: num.significant(release.epsilonPerDataset, 4),
    coverage: pct(s.coverage),
    countCoverage: pct(s.countCoverage),
  };
  const [conf, synth] = [weights.confidential, weights.synthetic];
  const h = DESIGN_RELEASE_HEADERS;
  const tables = {
    hiChol: {
      header: h.hiChol,
      rows: table.cells.map((c) => {
        const [p, n, y] = [c.confidential.prevalence, c.confidential.count, c.synthetic];
        return [c.agecat, c.gender, pct(p.estimate), interval(p), pct(y.prevalence.estimate)]
          .concat([num.significant(100 * c.prevalenceDifference, 3), yes(c.prevalenceCovered)])
          .concat([num.millions(n.estimate), countInterval(n), num.millions(y.count.estimate)])
          .concat([yes(c.countCovered)]);
      }),
    },
    race: {
      header: h.race,
      rows: race.map((r) =>
        [r.level, pct(r.confidential.share.estimate), interval(r.confidential.share)]
          .concat([pct(r.synthetic.share.estimate), num.significant(100 * r.shareDifference, 3)])
          .concat([yes(r.shareCovered), num.millions(r.confidential.count)])
          .concat([num.millions(r.synthetic.count)])
      ),
    },
    weights: {
      header: h.weights,
      rows: conf.quantiles.map((q, k) => [q.p, q.value, synth.quantiles[k].value])
        .map((
          [p, c, y],
        ): Value[] => [text`${num.percent(p, 0)} quantile`, num.grouped(c), num.grouped(y)])
        .concat([["mean", num.grouped(conf.mean), num.grouped(synth.mean)]])
        .concat([["sum", num.grouped(conf.sum), num.grouped(synth.sum)]]),
    },
    meanByRace: {
      header: h.meanByRace,
      rows: Object.keys(conf.meanByRace).map((level) =>
        [level, num.grouped(conf.meanByRace[level]), num.grouped(synth.meanByRace[level])]
          .concat([num.grouped(weights.syntheticByConfidentialRace[level])])
      ),
    },
    heldOut: {
      header: h.heldOut,
      rows: [heldOut.publicOnly, heldOut.syntheticWeight, heldOut.confidentialWeight]
        .concat([heldOut.allReleased]).map((v, k) => [DESIGN_RELEASE_PREDICTORS[k], pct(v)]),
    },
  };
  return { verdicts: [], values, tables, figures: {} };
}

/**
 * The result with its document, decided again from the rest (any document it held is replaced).
 *
 * @param result The result.
 * @returns The result, the document its last key.
 */
export function withDesignReleaseDocument(result: DesignReleaseResult): DesignReleaseReport {
  const { document: _, ...bare } = result as DesignReleaseResult & { document?: StudyDocument };
  return { ...bare, document: formatReport(designReleaseDocument(bare)) };
}

/**
 * The markdown of a result with its document.
 *
 * @param report The result with its document ({@linkcode withDesignReleaseDocument}).
 * @param footer The wall-time footer (machine-dependent), or "".
 * @returns The markdown text, ending in a newline.
 */
export function designReleaseMarkdown(report: DesignReleaseReport, footer: string): string {
  return renderStudy(DESIGN_RELEASE_TEMPLATE, report.document, footer);
}

/** DIR/design_release.json, with the report's document, and DIR/design_release.md. */
export function designReleaseFiles(
  result: DesignReleaseResult,
  footer: string,
): Map<string, string> {
  const report = withDesignReleaseDocument(result);
  return new Map([
    ["design_release.json", designReleaseJson(report)],
    ["design_release.md", designReleaseMarkdown(report, footer)],
  ]);
}
