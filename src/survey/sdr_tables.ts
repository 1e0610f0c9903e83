/**
 * The "Sample" columns of Tables 2 and 3 of the survey paper (Hu, Savitsky & Williams,
 * "Private tabular survey data products through synthetic microdata generation", §3.3): the
 * survey-weighted estimates from the 2017 Survey of Doctorate Recipients (SDR) public-use sample
 * of the population count and of the mean salary by field of study (8) and gender (2), as
 * printed (rounded to whole numbers). They parameterise the simulated population of §4.1
 * (SPEC §9.4).
 *
 * @module
 */

/** Field-of-study labels, in the paper's order (Field 1 … Field 8). */
export const FIELD_LEVELS: readonly string[] = [
  "field1",
  "field2",
  "field3",
  "field4",
  "field5",
  "field6",
  "field7",
  "field8",
];

/** Gender labels, in the paper's order (Male, Female). */
export const GENDER_LEVELS: readonly string[] = ["male", "female"];

/**
 * One of the paper's 27-cell tables: `cells[f·2 + g]` for field f and gender g (indices into
 * {@linkcode FIELD_LEVELS} and {@linkcode GENDER_LEVELS}), the field margins over both genders,
 * the gender margins over all fields, and the grand total ("All fields").
 */
export interface SdrTable {
  readonly cells: Float64Array;
  readonly fieldTotals: Float64Array;
  readonly genderTotals: Float64Array;
  readonly total: number;
}

/**
 * Table 2, "Sample" column: survey-weighted population counts N̂ = Σ w·1_cell of the SDR sample.
 * The printed margins agree with the printed cells up to the rounding of each number (±1).
 */
export const SDR_SAMPLE_COUNTS: SdrTable = {
  cells: Float64Array.of(
    18545,
    15640,
    4495,
    1059,
    4351,
    1734,
    13714,
    4825,
    4312,
    8926,
    8328,
    7483,
    20822,
    6156,
    2044,
    2766,
  ),
  fieldTotals: Float64Array.of(34185, 5555, 6085, 18539, 13238, 15810, 26977, 4810),
  genderTotals: Float64Array.of(76610, 48589),
  total: 125199,
};

/**
 * Table 3, "Sample" column: survey-weighted mean salaries μ̂ = Σ w·y·1_cell / Σ w·1_cell (US
 * dollars) of the SDR sample. A printed margin equals the count-weighted average of its printed
 * cells to within 1 dollar, except Field 4 total (110323 printed, 110328.6 implied by its cells).
 */
export const SDR_SAMPLE_MEAN_SALARIES: SdrTable = {
  cells: Float64Array.of(
    115172,
    98641,
    135522,
    118061,
    105941,
    102610,
    111671,
    106513,
    104400,
    89748,
    104427,
    86103,
    123570,
    109867,
    117473,
    93411,
  ),
  fieldTotals: Float64Array.of(107609, 132192, 104992, 110323, 94520, 95754, 120444, 103636),
  genderTotals: Float64Array.of(115785, 97548),
  total: 108707,
};
