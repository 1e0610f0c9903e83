/**
 * The two classifications of the survey paper's tables (Hu, Savitsky & Williams, "Private
 * tabular survey data products through synthetic microdata generation", §3.3 and §4): field of
 * study (8 levels) and gender (2 levels) of the 2017 Survey of Doctorate Recipients (SDR).
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
