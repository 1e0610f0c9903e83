/**
 * The report of a design-release result (`design_release.ts`) as data (issue 25): the verdicts'
 * numbers, the release, the design-based tables both ways, the weights and the held-out check,
 * rendered through `design_release_template.ts` to `docs/studies/design_release.md`.
 *
 * @module
 */
import type { DesignReleaseResult, Estimate } from "./design_release.ts";
import * as T from "./design_release_template.ts";
import { grouped, millions, percent, significant } from "../report/format.ts";
import { fillTemplate, renderStudy, type StudyDocument } from "./study_document.ts";

/** A design-release result with its report's document (the JSON file). */
export type DesignReleaseReport = DesignReleaseResult & { readonly document: StudyDocument };

/** A share in [0, 1] as a percentage with one decimal. */
const pct = (v: number | null | undefined) => percent(v, 1);
const yes = (v: boolean | null) => v === null ? "–" : v ? "yes" : "**no**";
const interval = (e: Estimate) => `[${pct(e.lower)}, ${pct(e.upper)}]`;
const countInterval = (e: Estimate) => `[${millions(e.lower)}, ${millions(e.upper)}]`;
/** Each value as text. */
const text = (values: Record<string, string | number>) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, `${v}`]));
/** A fragment of the template filled with values. */
const fragment = (template: string, values: Record<string, string>) =>
  fillTemplate(template, { verdicts: [], values, tables: {}, figures: {} });
const code = (names: readonly string[], join: string) => names.map((c) => `\`${c}\``).join(join);

/**
 * The document of a result.
 *
 * @param result The result.
 * @returns The document; its verdicts are empty (the study compares with no paper).
 */
export function designReleaseDocument(result: DesignReleaseResult): StudyDocument {
  const { verdicts, release, table, race, weights, heldOut, settings, records, design } = result;
  const s = table.summary;
  const fit = release.finalFit;
  const { data, seed, chains, draws, warmup } = settings;
  const { mechanism, targetEpsilon, m, guarantee, n, weightRowsEqual, fits } = release;
  const { covered, cells, countCovered } = s;
  const values: Record<string, string> = {
    ...text({ data, seed, chains, draws, warmup, mechanism, targetEpsilon, m, guarantee, n, fits }),
    ...text({ ...records, weightRowsEqual, covered, cells, countCovered }),
    ...text({ heldOutSeed: heldOut.seed, bins: heldOut.bins, weight: design.weight }),
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
    margin: significant(heldOut.margin),
    weightGain: significant(100 * (heldOut.confidentialWeight - heldOut.publicOnly), 3),
    tableCoverage: pct(verdicts.tableCoverage),
    maxDifference: significant(100 * s.maxAbsPrevalenceDifference, 3),
    maxAt: `${s.maxAt.agecat} × ${s.maxAt.gender}`,
    totalConfidential: millions(s.totalConfidential),
    totalSynthetic: millions(s.totalSynthetic),
    mechanismLabel: release.mechanism.toUpperCase(),
    autoPicks: release.autoPicks.toUpperCase(),
    epsilon: significant(release.epsilon, 4),
    lipschitz: significant(release.lipschitz, 4),
    finalFit: fit === null ? "–" : fragment(T.DESIGN_RELEASE_FINAL_FIT, {
      state: fit.flagged ? "**flagged**" : "unflagged",
      rhat: significant(fit.rhatMax, 4),
      ess: significant(fit.essBulkMin, 4),
      divergences: `${fit.divergences}`,
    }),
    every: settings.every === 1 ? "record" : `${settings.every}th record`,
    outcomes: release.outcomes.map((o) => `${o.y} (${o.model})`).join(", "),
    epsilonPerDataset: significant(release.epsilonPerDataset, 4),
    coverage: pct(s.coverage),
    countCoverage: pct(s.countCoverage),
  };
  const [conf, synth] = [weights.confidential, weights.synthetic];
  const h = T.DESIGN_RELEASE_HEADERS;
  const tables = {
    hiChol: {
      header: h.hiChol,
      rows: table.cells.map((c) => {
        const [p, n, y] = [c.confidential.prevalence, c.confidential.count, c.synthetic];
        return [c.agecat, c.gender, pct(p.estimate), interval(p), pct(y.prevalence.estimate)]
          .concat([significant(100 * c.prevalenceDifference, 3), yes(c.prevalenceCovered)])
          .concat([millions(n.estimate), countInterval(n), millions(y.count.estimate)])
          .concat([yes(c.countCovered)]);
      }),
    },
    race: {
      header: h.race,
      rows: race.map((r) =>
        [r.level, pct(r.confidential.share.estimate), interval(r.confidential.share)]
          .concat([pct(r.synthetic.share.estimate), significant(100 * r.shareDifference, 3)])
          .concat([yes(r.shareCovered), millions(r.confidential.count)])
          .concat([millions(r.synthetic.count)])
      ),
    },
    weights: {
      header: h.weights,
      rows: conf.quantiles.map((q, k) => [q.p, q.value, synth.quantiles[k].value])
        .map(([p, c, y]) => [`${percent(p, 0)} quantile`, grouped(c), grouped(y)])
        .concat([["mean", grouped(conf.mean), grouped(synth.mean)]])
        .concat([["sum", grouped(conf.sum), grouped(synth.sum)]]),
    },
    meanByRace: {
      header: h.meanByRace,
      rows: Object.keys(conf.meanByRace).map((level) =>
        [level, grouped(conf.meanByRace[level]), grouped(synth.meanByRace[level])]
          .concat([grouped(weights.syntheticByConfidentialRace[level])])
      ),
    },
    heldOut: {
      header: h.heldOut,
      rows: [heldOut.publicOnly, heldOut.syntheticWeight, heldOut.confidentialWeight]
        .concat([heldOut.allReleased]).map((v, k) => [T.DESIGN_RELEASE_PREDICTORS[k], pct(v)]),
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
  return { ...bare, document: designReleaseDocument(bare) };
}

/**
 * The markdown of a result with its document.
 *
 * @param report The result with its document ({@linkcode withDesignReleaseDocument}).
 * @param footer The wall-time footer (machine-dependent), or "".
 * @returns The markdown text, ending in a newline.
 */
export function designReleaseMarkdown(report: DesignReleaseReport, footer: string): string {
  return footer === ""
    ? `${fillTemplate(T.DESIGN_RELEASE_TEMPLATE, report.document)}\n`
    : renderStudy(T.DESIGN_RELEASE_TEMPLATE, report.document, footer);
}
