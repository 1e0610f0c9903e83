/**
 * Survey products (SPEC §8, §9.4): the simulated population and its stratified PPS sample, the
 * SDR tables that parameterise them, Taylor-linearised survey tables, Student-t quantiles and
 * the partial-synthesis combining rules.
 *
 * @module
 */
export * from "./sdr_tables.ts";
export * from "./allocation.ts";
export * from "./population.ts";
export * from "./pps_sample.ts";
export * from "./tables.ts";
export * from "../stats/student_t.ts";
export * from "./combine.ts";
