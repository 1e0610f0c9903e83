/**
 * The privacy-budget ledger's arithmetic (SPEC §1, sequential composition): a registered dataset
 * has a total budget ε_total; every release charges its ε once; the spent budget is the
 * composition Σ_k ε_k rounded up (`composeEpsilon`), and a charge is accepted only when
 * spent ⊕ charge ≤ ε_total with ⊕ rounded up, so rounding can only refuse a release that fits
 * exactly, never admit one that does not.
 *
 * When a charge is made: a job on a registered dataset is charged its requested ε (its cap) in
 * the transaction that accepts it, once per job id however often it is retried or delivered,
 * and never refunded, whatever its outcome: success, a failure on the data, or a crash. The
 * release reports its actual ε, at most the cap (a release above it is refused). Anything that
 * touches confidential data costs budget, because a failure is an output too (as in Tumult
 * Analytics and OpenDP, which also charge before they run).
 *
 * @module
 */
import { addUp, composeEpsilon } from "../mechanisms/privacy.ts";

/** A release whose ε does not fit in what is left of a dataset's budget. */
export class BudgetExceededError extends Error {
  override name = "BudgetExceededError";
  /** The ε asked for. */
  readonly charge: number;
  /** The ε left before the charge. */
  readonly remaining: number;

  /**
   * @param charge The ε of the release.
   * @param remaining The ε left in the budget.
   */
  constructor(charge: number, remaining: number) {
    super(
      `Cannot release as the privacy budget is exhausted: charge=${charge}, remaining=${remaining}`,
    );
    this.charge = charge;
    this.remaining = remaining;
  }
}

/** Spent and remaining ε of a budget. */
export interface BudgetBalance {
  /** Σ_k ε_k over the charges, rounded up. */
  readonly spent: number;
  /** ε_total − spent rounded down, at least 0. */
  readonly remaining: number;
}

/**
 * Refuses a charge that is negative, NaN or infinite.
 *
 * @param epsilon The ε of one release.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkCharge } from "./ledger.ts";
 * assert.throws(() => checkCharge(NaN), RangeError);
 * ```
 */
export function checkCharge(epsilon: number): void {
  if (typeof epsilon !== "number" || !(epsilon >= 0) || !Number.isFinite(epsilon)) {
    throw new RangeError(`Invalid charge: must be finite and non-negative: epsilon=${epsilon}`);
  }
}

/**
 * Refuses a total budget that is not positive and finite.
 *
 * @param total ε_total of a dataset.
 */
export function checkBudget(total: number): void {
  if (typeof total !== "number" || !(total > 0) || !Number.isFinite(total)) {
    throw new RangeError(
      `Invalid epsilonTotal: must be positive and finite: epsilonTotal=${total}`,
    );
  }
}

/**
 * The balance of a budget: spent = Σ charges rounded up, remaining = total − spent rounded down
 * (the negation of (spent − total) rounded up), clamped at 0.
 *
 * @param total ε_total.
 * @param charges The charges so far, in ledger order.
 * @returns Spent and remaining ε.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { balance } from "./ledger.ts";
 * assert.deepEqual(balance(1, [0.25, 0.5]), { spent: 0.75, remaining: 0.25 });
 * ```
 */
export function balance(total: number, charges: ArrayLike<number>): BudgetBalance {
  checkBudget(total);
  const spent = composeEpsilon(charges);
  const remaining = -addUp(-total, spent);
  return { spent, remaining: remaining > 0 ? remaining : 0 };
}

/**
 * Whether a further charge fits: spent ⊕ charge ≤ total with ⊕ rounded up.
 *
 * @param total ε_total.
 * @param charges The charges so far.
 * @param charge The ε of the new release (finite, ≥ 0; refused otherwise).
 * @returns True when the release may be charged.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fits } from "./ledger.ts";
 * assert.equal(fits(1, [0.5], 0.5), true);
 * assert.equal(fits(0.3, [0.1], 0.2), false); // 0.1 ⊕ 0.2 rounds up above 0.3
 * ```
 */
export function fits(total: number, charges: ArrayLike<number>, charge: number): boolean {
  checkCharge(charge);
  return addUp(balance(total, charges).spent, charge) <= total;
}
