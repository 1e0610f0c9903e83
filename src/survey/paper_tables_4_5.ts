/**
 * The survey paper's Tables 4 and 5 (Appendix F), as printed: the simulated population's counts
 * and mean salaries of §4.1 (their "Pop." column) beside FBS's and FBP's coverage and mean
 * interval length under repeated sampling. The "Pop." column defines the population of Study 4
 * ({@linkcode paperPopulationCells}); the rest is quoted for comparison only.
 *
 * @module
 */
import { FIELD_LEVELS, GENDER_LEVELS } from "./sdr_tables.ts";

/** One row of the paper's Tables 4–5: population value, then coverage and mean CI length. */
export type PaperRow = readonly [number, number, number, number, number];

/**
 * The survey paper's Table 4 (counts) and Table 5 (mean salaries), m = 3, ε = 10.8, R = 100, as
 * printed: Pop., FBS coverage, FBS mean CI length, FBP coverage, FBP mean CI length for the 24
 * cells Field f total, Male, Female (f = 1…8). Only the Pop. column enters a computation (the
 * population); the coverage and lengths are quoted for comparison.
 */
export const PAPER_TABLES_4_5: Readonly<Record<"count" | "mean", readonly PaperRow[]>> = Object
  .freeze({
    count: [
      [27963, 0.84, 3560, 0.99, 6682],
      [14599, 0.99, 3705, 1.00, 4854],
      [13364, 0.99, 4298, 1.00, 5242],
      [2734, 0.86, 1416, 0.86, 1853],
      [1951, 0.95, 1287, 0.88, 1492],
      [783, 1.00, 1185, 1.00, 1037],
      [4035, 0.92, 1709, 1.00, 2814],
      [2918, 0.97, 1576, 1.00, 2258],
      [1117, 1.00, 1446, 1.00, 1596],
      [18109, 0.90, 3312, 1.00, 5280],
      [12381, 0.98, 3175, 1.00, 4320],
      [5728, 0.99, 3025, 1.00, 3360],
      [11197, 0.85, 2474, 1.00, 4876],
      [3861, 1.00, 2081, 1.00, 2713],
      [7336, 0.98, 2781, 1.00, 4104],
      [12842, 0.88, 2576, 1.00, 4915],
      [6433, 0.99, 2488, 1.00, 3393],
      [6409, 0.98, 2892, 1.00, 3702],
      [18131, 0.92, 2955, 0.51, 4725],
      [14358, 0.95, 3021, 0.51, 4108],
      [3773, 1.00, 2691, 0.99, 2516],
      [4989, 0.79, 1934, 1.00, 2936],
      [2033, 1.00, 1557, 1.00, 1760],
      [2956, 0.99, 1908, 1.00, 2297],
    ],
    mean: [
      [110659, 0.85, 13657, 0.71, 13422],
      [121125, 0.87, 18337, 0.77, 17772],
      [99226, 0.90, 17941, 0.78, 16461],
      [140742, 0.95, 58335, 0.94, 64240],
      [146916, 0.95, 66324, 0.96, 71592],
      [125358, 0.97, 78486, 0.96, 78408],
      [114668, 0.91, 41026, 0.92, 41596],
      [118338, 0.91, 47514, 0.93, 46015],
      [105081, 0.94, 56496, 0.85, 53166],
      [115647, 0.81, 19026, 0.81, 16953],
      [122601, 0.87, 22022, 0.80, 20016],
      [100618, 0.91, 25821, 0.90, 23786],
      [105808, 0.85, 21648, 0.89, 22418],
      [120531, 0.95, 31905, 0.91, 33535],
      [98060, 0.86, 23600, 0.88, 24292],
      [110159, 0.88, 21325, 0.78, 18347],
      [122676, 0.95, 27187, 0.71, 25241],
      [97595, 0.92, 25165, 0.89, 21989],
      [132249, 0.87, 21163, 0.79, 20262],
      [136370, 0.84, 22964, 0.79, 22021],
      [116566, 0.97, 34669, 0.82, 34129],
      [119005, 0.90, 40658, 0.93, 39461],
      [137349, 0.93, 57063, 0.93, 54326],
      [106388, 0.92, 43357, 0.94, 40191],
    ],
  });

/**
 * The population's 16 interior cells as Tables 4–5 print them (field-major, Male then Female,
 * cell f·2 + g): N_fg and the mean salary. The printed field totals are the sums of
 * these counts (Σ = 100,000) and the count-weighted averages of these means.
 */
export function paperPopulationCells(): { readonly counts: number[]; readonly means: number[] } {
  const perField = GENDER_LEVELS.length + 1;
  const interior = (rows: readonly PaperRow[]) =>
    FIELD_LEVELS.flatMap((_, f) => GENDER_LEVELS.map((_, g) => rows[f * perField + 1 + g][0]));
  return { counts: interior(PAPER_TABLES_4_5.count), means: interior(PAPER_TABLES_4_5.mean) };
}
