/**
 * The vector-weighted paper's numbers that the re-weighting study (Study 2) is compared with.
 *
 * @module
 */
import type { TABLE_STATISTICS } from "./reweight_settings.ts";

/**
 * The vector-weighted paper's Supp 3 Table 1 (95% intervals over replicates), as printed: quoted
 * for the side-by-side comparison, not used in any computation.
 */
export const PAPER_TABLE_1: Readonly<
  Record<typeof TABLE_STATISTICS[number], Readonly<Record<string, readonly [number, number]>>>
> = Object.freeze({
  q15: {
    data: [70.0, 75.0],
    lw: [70.0, 74.3],
    "lw-final": [70.6, 74.8],
    cw: [77.2, 80.8],
    "cw-final": [71.6, 75.8],
  },
  q90: {
    data: [132.0, 140.0],
    lw: [132.1, 139.0],
    "lw-final": [133.1, 140.3],
    cw: [128.5, 134.0],
    "cw-final": [131.0, 137.7],
  },
  mean: {
    data: [98.8, 102.3],
    lw: [98.0, 101.4],
    "lw-final": [98.7, 102.0],
    cw: [100.6, 103.3],
    "cw-final": [98.6, 101.8],
  },
  median: {
    data: [96.0, 101.0],
    lw: [95.6, 99.7],
    "lw-final": [96.0, 100.0],
    cw: [98.7, 102.4],
    "cw-final": [96.1, 100.1],
  },
});
