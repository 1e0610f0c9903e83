/**
 * The health of a release's final fit as the studies' results record it (R̂, bulk ESS,
 * divergences and whether it was flagged, in this order).
 *
 * @module
 */

/** The final fit's health in a study's result. */
export interface FinalFit {
  readonly rhatMax: number;
  readonly essBulkMin: number;
  readonly divergences: number;
  readonly flagged: boolean;
}

/** A study's record of a final fit's health (its fields in result order), or null for no fit. */
export function finalFitOf(fit: FinalFit | null): FinalFit | null {
  return fit === null ? null : {
    rhatMax: fit.rhatMax,
    essBulkMin: fit.essBulkMin,
    divergences: fit.divergences,
    flagged: fit.flagged,
  };
}
