/**
 * The NIST CRC's published feature sets of the ACS Diverse Communities Data Excerpts, and SDNist
 * v2.3.0's binning of their numeric columns, as data.
 *
 * No text in the sources read defines the reduced sets: the CRC README (usnistgov/
 * privacy_collaborative_research_cycle) refers to "recommended reduced-size feature sets … in the
 * Excerpts Readme", and the stored versions of that readme (usnistgov/SDNist, "nist diverse
 * communities data excerpts/README.md") list three other sets (race, sector, sex + disability
 * partitions), not these. The columns below are those of the CRC archive's submissions labelled
 * with each set (bundle 1.0, commit 797fa1f675fc35a7f57f2168134d21d0ab4783fb, under
 * `crc_data_and_metric_bundle_1.0/deid_data/`), which SDNist scored as such:
 *
 * - simple-features: `genetic_sd_DataEvolution/ma/genetic_sd_e_1_simple_GiuseppeVietri_3.csv`'s
 *   header (the 24 less INDP, PWGTP and WGTP);
 * - demographic-focused: `rsynthpop_cart/ma/report_cart_demographic_ma2019_…/report.json`'s
 *   feature list (10 features, no PUMA, so its k-marginal is not grouped);
 * - family-focused: `rsynthpop_cart/ma/cart_family_maxfaclevels_503_ma2019.csv`'s header;
 * - industry-focused: `rsynthpop_cart/ma/report_cart_industry_ma2019_…/report.json`'s feature
 *   list (9 features).
 *
 * @module
 */
import type { ColumnBinning } from "./sdnist_binning.ts";

/** The 24 columns of the ACS excerpts, in the files' order. */
export const CRC_ALL_FEATURES: readonly string[] = [
  "PUMA",
  "AGEP",
  "SEX",
  "MSP",
  "HISP",
  "RAC1P",
  "NOC",
  "NPF",
  "HOUSING_TYPE",
  "OWN_RENT",
  "DENSITY",
  "INDP",
  "INDP_CAT",
  "EDU",
  "PINCP",
  "PINCP_DECILE",
  "POVPIP",
  "DVET",
  "DREM",
  "DPHY",
  "DEYE",
  "DEAR",
  "PWGTP",
  "WGTP",
];

/** The CRC's feature sets by their archive labels (see the module doc for where each is read). */
export const CRC_FEATURE_SETS: Readonly<Record<string, readonly string[]>> = {
  "all-features": CRC_ALL_FEATURES,
  "simple-features": CRC_ALL_FEATURES.filter((f) => !["INDP", "PWGTP", "WGTP"].includes(f)),
  "demographic-focused": [
    "AGEP",
    "SEX",
    "MSP",
    "RAC1P",
    "HOUSING_TYPE",
    "OWN_RENT",
    "EDU",
    "PINCP_DECILE",
    "DVET",
    "DEYE",
  ],
  "family-focused": [
    "PUMA",
    "AGEP",
    "SEX",
    "MSP",
    "HISP",
    "RAC1P",
    "NOC",
    "NPF",
    "OWN_RENT",
    "PINCP_DECILE",
    "POVPIP",
  ],
  "industry-focused": [
    "PUMA",
    "SEX",
    "MSP",
    "HISP",
    "RAC1P",
    "OWN_RENT",
    "INDP_CAT",
    "EDU",
    "PINCP_DECILE",
  ],
};

/**
 * SDNist v2.3.0's binnings of the ACS excerpts (`sdnist/report/dataset/__init__.py`:
 * `numeric_features = ['AGEP', 'POVPIP', 'PINCP', 'PWGTP', 'WGTP']`, POVPIP's 501 its own bin,
 * DENSITY log-binned by `bin_density`); every other column is a category.
 *
 * @param densityMax The codebook's largest DENSITY (data_dictionary.json: 52864.7 for the 2019
 *   excerpts).
 * @returns Column → binning.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sdnistAcsBinnings } from "./crc_feature_sets.ts";
 * assert.deepEqual(sdnistAcsBinnings(52864.7).get("POVPIP"), { kind: "percentile", ownBins: ["501"] });
 * ```
 */
export function sdnistAcsBinnings(densityMax: number): Map<string, ColumnBinning> {
  return new Map<string, ColumnBinning>([
    ["AGEP", { kind: "percentile" }],
    ["POVPIP", { kind: "percentile", ownBins: ["501"] }],
    ["PINCP", { kind: "percentile" }],
    ["PWGTP", { kind: "percentile" }],
    ["WGTP", { kind: "percentile" }],
    ["DENSITY", { kind: "log-density", max: densityMax }],
  ]);
}
