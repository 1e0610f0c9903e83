/**
 * One release bundle: what a finished synthesis or whole-file release hands out, built once by
 * {@linkcode releaseBundle} for every caller — the command line writes it as files
 * ({@linkcode releaseFiles}), the job runner stores it (the public manifest and the CSVs for
 * analysts, {@linkcode ReleaseBundle.owner} for the data owner), and the API's owner page renders
 * it from what was stored ({@linkcode releasePage}).
 *
 * - the public manifest (report.json);
 * - the m synthetic files as CSV, formula cells escaped (they go to analysts' spreadsheets);
 * - the owner's diagnostics (diagnostics.json) and utility report (utility.json);
 * - the owner's release report page (report.html), for a synthesis with a utility report.
 *
 * @module
 */
import { datasetColumns, formatCsv } from "../data/csv.ts";
import type { Dataset } from "../data/dataset.ts";
import type { FileSchema } from "../data/file_schema.ts";
import { type FileUtility, fileUtility } from "./file_utility.ts";
import type { FileSynthesisResult } from "./file_synthesis.ts";
import type { SynthesisPlan } from "./plan.ts";
import type { ReleaseManifest } from "./report.ts";
import { reportHtml } from "./report_html.ts";
import {
  type AchievedPrivacy,
  type FitHealth,
  FLAGGED_WARNING,
  type ReleaseSetting,
  releaseSettings,
} from "./release_summary.ts";
import type { RiskReport } from "./risk_report.ts";
import type { SynthesisResult } from "./synthesize.ts";
import type { UtilityReport } from "./utility_report.ts";

/** A finished release: a synthesis and its plan, or a whole file with its data and schema. */
export type Release =
  | {
    readonly kind: "synthesis";
    readonly result: SynthesisResult;
    readonly plan: SynthesisPlan;
  }
  | {
    readonly kind: "file";
    readonly result: FileSynthesisResult;
    /** The confidential file, which each synthetic file's utility is measured against. */
    readonly confidential: Dataset;
    readonly schema: FileSchema;
  };

/** What a release hands out (see the module documentation). */
export interface ReleaseBundle<U = UtilityReport | readonly FileUtility[]> {
  /** The public manifest. */
  readonly report: ReleaseManifest;
  /** The m synthetic files as CSV text, formula cells escaped. */
  readonly datasets: readonly string[];
  /** The owner's diagnostics as `diagnostics.json` holds them. */
  readonly diagnostics: object;
  /** The owner's utility report (`utility.json`); absent where the release builds none. */
  readonly utility?: U;
  /**
   * The owner's diagnostics as a job stores them: the diagnostics with the utility report
   * (a synthesis's under `utilityReport`, with the request's `releaseSettings` the page lists; a
   * whole file's per-file reports under `utility`). {@linkcode releasePage} reads it.
   */
  readonly owner: Readonly<Record<string, unknown>>;
}

/** The owner's diagnostics as the release page reads them (a job's stored diagnostics). */
export interface PageSource {
  readonly utilityReport?: UtilityReport;
  readonly riskReport?: RiskReport;
  readonly releaseSettings?: ReleaseSetting[];
  /** On registered data: the achieved Δ and ε (`publicRelease`). */
  readonly achieved?: AchievedPrivacy;
  readonly fit?: FitHealth | null;
}

/**
 * Bundles a finished release.
 *
 * @param release The release and what its reports need.
 * @returns The manifest, the CSVs, the owner's diagnostics and reports.
 */
export function releaseBundle(
  release: Release & { readonly kind: "synthesis" },
): ReleaseBundle<UtilityReport>;
export function releaseBundle(
  release: Release & { readonly kind: "file" },
): ReleaseBundle<readonly FileUtility[]>;
export function releaseBundle(release: Release): ReleaseBundle;
export function releaseBundle(release: Release): ReleaseBundle {
  const { result } = release;
  const datasets = result.datasets.map((columns) => formatCsv(columns, { escapeFormulas: true }));
  if (release.kind === "file") {
    const confidential = new Map(
      [...datasetColumns(release.confidential)].map((
        [name, column],
      ) => [name, Array.from(column, String)]),
    );
    const utility = release.result.datasets.map((columns) =>
      fileUtility(confidential, columns, release.schema)
    );
    return {
      report: result.report,
      datasets,
      diagnostics: result.diagnostics,
      utility,
      owner: { ...release.result.diagnostics, utility },
    };
  }
  const { utility } = release.result;
  return {
    report: result.report,
    datasets,
    diagnostics: result.diagnostics,
    ...(utility === undefined ? {} : { utility }),
    // The utility report summarises the confidential data: it goes with the diagnostics, with
    // the request's settings that the release report's first section lists.
    owner: utility === undefined ? { ...release.result.diagnostics } : {
      ...release.result.diagnostics,
      utilityReport: utility,
      releaseSettings: releaseSettings(release.plan),
    },
  };
}

/**
 * The owner's release report page of a synthesis with a utility report: the release as the
 * page's reader's manifest states it (on registered data the cap, no Δ) and, from the owner's
 * diagnostics, the settings, the achieved values, the fit's health and the identification risk.
 *
 * @param report The public manifest as the reader's report states it.
 * @param owner The owner's diagnostics as stored ({@linkcode ReleaseBundle.owner}).
 * @returns The page, or undefined for a release without a utility report.
 */
export function releasePage(report: ReleaseManifest, owner: PageSource): string | undefined {
  if (owner.utilityReport === undefined) return undefined;
  return reportHtml(owner.utilityReport, {
    release: {
      report,
      settings: owner.releaseSettings,
      achieved: owner.achieved,
      fit: owner.fit,
    },
    risk: owner.riskReport,
    ...(report.fitFlagged ? { warning: FLAGGED_WARNING } : {}),
  });
}

/**
 * The files the command line writes, by name: synthetic-1.csv … synthetic-M.csv, report.json,
 * diagnostics.json, and where the release has them utility.json and report.html.
 *
 * @param bundle The release.
 * @returns File name → contents.
 */
export function releaseFiles(bundle: ReleaseBundle): Map<string, string> {
  const files = new Map<string, string>();
  bundle.datasets.forEach((csv, j) => files.set(`synthetic-${j + 1}.csv`, csv));
  files.set("report.json", JSON.stringify(bundle.report, null, 2) + "\n");
  files.set("diagnostics.json", JSON.stringify(bundle.diagnostics, null, 2) + "\n");
  if (bundle.utility !== undefined) {
    files.set("utility.json", JSON.stringify(bundle.utility, null, 2) + "\n");
  }
  const page = releasePage(bundle.report, bundle.owner as PageSource);
  if (page !== undefined) files.set("report.html", page);
  return files;
}
