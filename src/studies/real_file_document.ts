/**
 * The real-file study's report as data (`templates/real_file.md` holds its prose): the tables of
 * `real_file_tables.ts`, the run's sizes and settings, data-decided clauses, and the findings'
 * values (`real_file_findings.ts`). It has no verdicts: the study compares synthesizers on one real file, not
 * with a paper's numbers.
 *
 * @module
 */
import { fmt } from "./markdown.ts";
import { findings } from "./real_file_findings.ts";
import {
  alphaTable,
  countsTable,
  coverageTable,
  modelTable,
  prevalenceTable,
  propensityTable,
  releasesTable,
  tvdTable,
} from "./real_file_tables.ts";
import { sci, type View } from "./real_file_measures.ts";
import {
  type ArmFailure,
  type RealFileRecord,
  type RealFileSettings,
  type RealFileSummary,
  released,
  UTILITY_MODELS,
} from "./real_file_types.ts";
import type { StudyDocument } from "./study_document.ts";
import type { StudyResult } from "./study.ts";

/** The failed-fits sentence under a utility model's table ("" when none failed). */
function failedFits(failures: readonly string[]): string {
  return failures.length === 0
    ? ""
    : `\n\nFits that failed (no combined estimate for that synthesizer): ${failures.join("; ")}.`;
}

/**
 * The report of the study's one record.
 *
 * @param result The result (its settings, seed and one record).
 * @returns The document: values, tables, no figures and no verdicts.
 */
export function realFileDocument(
  result: StudyResult<RealFileSettings, RealFileRecord, RealFileSummary>,
): StudyDocument {
  const record = result.records[0];
  const s = result.settings;
  const view: View = {
    ...record,
    settings: s,
    arms: record.arms.filter(released),
    failures: record.arms.filter((arm): arm is ArmFailure => !released(arm)),
  };
  const epsilons = (kind: string) =>
    view.arms.filter((arm) => arm.kind === kind).map((arm) => arm.targetEpsilon);
  const histograms = epsilons("histogram");
  const full = modelTable(UTILITY_MODELS[0], view.arms.filter((arm) => arm.kind !== "histogram"));
  const small = modelTable(UTILITY_MODELS[1], view.arms);
  const ref = record.reference;
  return {
    verdicts: [],
    values: {
      lw_epsilons: epsilons("lw-final").join(", "),
      m: String(s.m),
      histogram_epsilons: histograms.join(", "),
      data: s.data,
      subsample: s.every === 1 ? "" : ` (every ${s.every}th record of the file: a reduced run)`,
      n_file: String(record.n.file),
      n_dropped: String(record.n.dropped),
      n_used: String(record.n.used),
      chains: String(s.chains),
      warmup: String(s.warmup),
      draws_per_chain: String(s.draws / s.chains),
      seed: String(result.seed),
      model_full_failures: failedFits(full.failures),
      model_small_failures: failedFits(small.failures),
      psu_reference: ref === null
        ? "."
        : `: with the PSUs (\`ids = ~psu, nest = TRUE\`) R's SEs are ${
          fmt(ref.clusteredMeanSERatio[0], 2)
        }–${fmt(ref.clusteredMeanSERatio[1], 2)}× these for the prevalences and ${
          fmt(ref.clusteredCountSERatio[0], 2)
        }–${fmt(ref.clusteredCountSERatio[1], 2)}× for the counts. The confidential table ` +
          `agrees with R's \`survey\` ${ref.survey} on this file to a relative ${
            sci(ref.maxRelativeDifference)
          } in every count, mean and SE (\`test/reference/nhanes_tables.R\`).`,
      histograms_elsewhere: histograms.length > 1
        ? ` The histogram at ε = ${histograms.slice(1).join(" and ")} is in the JSON and the ` +
          "summary below."
        : "",
      ...findings(view),
    },
    tables: {
      releases: releasesTable(view),
      alpha: alphaTable(view),
      tvd: tvdTable(view),
      propensity: propensityTable(view),
      model_full: full.table,
      model_small: small.table,
      counts: countsTable(view),
      prevalence: prevalenceTable(view),
      coverage: coverageTable(view),
    },
    figures: {},
  };
}
