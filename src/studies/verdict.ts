/**
 * The verdict table that opens a study's markdown report (issue 14): every number the paper
 * prints, ppsynth's value beside it, and a verdict: {@linkcode AGREES};
 * {@linkcode AGREES_BY_CONSTRUCTION} when the design forces the value (a setting, or a quantity
 * calibrated to the paper's); a {@linkcode tie} when a difference or order the paper states is
 * within our Monte Carlo error; or "differs: <measured reason>" ({@linkcode differs}). The
 * helpers that decide agreement treat the paper's number as a Monte Carlo estimate with the same
 * error as ours (the same design and R), so two estimates agree when they differ by at most z·√2
 * standard errors, plus half the paper's rounding unit; two of our synthesizers on the same
 * databases are compared by their paired difference (`src/stats/paired_difference.ts`).
 *
 * @module
 */
import type { PairedDifference } from "../stats/paired_difference.ts";
import { formatValue, markdownTable, type Value } from "./markdown_table.ts";

/** The verdict for a number reproduced within Monte Carlo error. */
export const AGREES = "agrees within Monte Carlo error";

/**
 * The verdict for a number the design forces (a setting, or a quantity calibrated to the paper's
 * value): it agrees, but the agreement is no evidence.
 */
export const AGREES_BY_CONSTRUCTION = "agrees by construction";

/**
 * {@linkcode AGREES_BY_CONSTRUCTION} with what forces it.
 *
 * @param reason What in the design forces the agreement.
 * @returns "agrees by construction: <reason>".
 */
export function agreesByConstruction(reason: string): string {
  return `${AGREES_BY_CONSTRUCTION}: ${reason}`;
}

/**
 * The verdict for a difference the paper reports, or an order it states, that our estimates
 * cannot resolve: the difference is within Monte Carlo error.
 *
 * @param detail The measured difference and its z.
 * @returns "agrees: a tie within Monte Carlo error (<detail>)".
 */
export function tie(detail: string): string {
  return `agrees: a tie within Monte Carlo error (${detail})`;
}

/**
 * The verdict for a number that is not reproduced.
 *
 * @param reason What was measured that explains the difference.
 * @returns "differs: <reason>".
 */
export function differs(reason: string): string {
  return `differs: ${reason}`;
}

/** How a verdict came out (see the module documentation). */
export type VerdictStatus = "agrees" | "agrees by construction" | "tie" | "differs";

/**
 * A verdict as data: what was decided, why, and the interval that decided it. A study decides it
 * with its reason as a typed value (`Judgement<Value>`, numbers with their formats); the JSON
 * keeps it as printed (`Judgement`).
 */
export interface Judgement<T = string> {
  readonly status: VerdictStatus;
  /**
   * "differs": the measured cause; "agrees by construction": what forces it; "tie": the
   * difference and its z; "agrees": "" or a qualifier.
   */
  readonly reason: T;
  /**
   * The Monte Carlo interval of our value (in the paper's units) the paper's number was tested
   * against; null where the verdict is no interval test (a setting, a stated order, a paired z).
   */
  readonly interval: readonly [number, number] | null;
  /** The paper's number as tested against `interval` (null when there is no interval test). */
  readonly paperValue: number | null;
}

/** One row of the verdict table, as saved in the study's JSON. */
export interface Verdict extends Judgement {
  /** What the paper reports, and where (e.g. "Table 1, LW median"). */
  readonly quantity: string;
  /** The paper's value as printed. */
  readonly paper: string;
  /** ppsynth's value as printed (with its Monte Carlo error where one is used). */
  readonly ours: string;
}

/** One row of the verdict table as a study decides it: its cells and reason as typed values. */
export interface ReportVerdict extends Judgement<Value> {
  readonly quantity: Value;
  readonly paper: Value;
  readonly ours: Value;
}

/** Whether `value` lies in `interval` (with the tolerance of {@linkcode withinMonteCarloError}). */
export function inInterval(value: number, interval: readonly [number, number]): boolean {
  const [lo, hi] = interval;
  const slack = 1e-12 * (Math.abs(hi - lo) + Math.abs(value));
  return value >= lo - slack && value <= hi + slack;
}

/**
 * The interval {@linkcode withinMonteCarloError} tests the paper's number against: our estimate
 * ± (z·√2·se + rounding/2).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { monteCarloInterval } from "./verdict.ts";
 * const [lo, hi] = monteCarloInterval(10, 0.1, { rounding: 0.1 });
 * assert.ok(Math.abs(lo - (10 - 0.2 * Math.SQRT2 - 0.05)) < 1e-12 && hi > 10.3);
 * ```
 */
export function monteCarloInterval(
  ours: number,
  standardError: number,
  options: AgreementOptions = {},
): [number, number] {
  const { z = 2, rounding = 0 } = options;
  if (!(standardError >= 0) || !Number.isFinite(standardError)) {
    throw new RangeError(
      `Invalid standardError: must be finite and non-negative: standardError=${standardError}`,
    );
  }
  const half = z * Math.SQRT2 * standardError + rounding / 2;
  return [ours - half, ours + half];
}

/** The judgements a study's verdicts are built from. */
export const Judge = {
  /** Agrees: the paper's number lies in our interval (or, without one, as stated). */
  agrees(
    interval: readonly [number, number] | null = null,
    paperValue: number | null = null,
    reason: Value = "",
  ): Judgement<Value> {
    return { status: "agrees", reason, interval, paperValue };
  },
  /** Agrees by construction: the design forces the value. */
  byConstruction(reason: Value): Judgement<Value> {
    return { status: "agrees by construction", reason, interval: null, paperValue: null };
  },
  /** A stated difference or order within Monte Carlo error. */
  tie(detail: Value): Judgement<Value> {
    return { status: "tie", reason: detail, interval: null, paperValue: null };
  },
  /** Differs, for a measured cause. */
  differs(
    reason: Value,
    interval: readonly [number, number] | null = null,
    paperValue: number | null = null,
  ): Judgement<Value> {
    return { status: "differs", reason, interval, paperValue };
  },
  /** Agrees when `paperValue` lies in `interval`, else differs for `otherwise`. */
  within(
    paperValue: number,
    interval: readonly [number, number],
    otherwise: Value | (() => Value),
  ): Judgement<Value> {
    return inInterval(paperValue, interval) ? Judge.agrees(interval, paperValue) : Judge.differs(
      typeof otherwise === "function" ? otherwise() : otherwise,
      interval,
      paperValue,
    );
  },
} as const;

/** A verdict row from its cells and its judgement. */
export function verdict(
  cells: { readonly quantity: Value; readonly paper: Value; readonly ours: Value },
  judgement: Judgement<Value>,
): ReportVerdict {
  return { ...cells, ...judgement };
}

/**
 * The verdict cell: {@linkcode AGREES} (or "agrees: <qualifier>" for an agreement that is no
 * Monte Carlo test, such as a range or an order), {@linkcode agreesByConstruction},
 * {@linkcode tie} or {@linkcode differs} of the judgement's reason.
 */
export function verdictText(judgement: Judgement<Value>): string {
  const { status } = judgement;
  const reason = formatValue(judgement.reason);
  // A qualified agreement (a range, an order, a stated tolerance) is no Monte Carlo test.
  if (status === "agrees") return reason === "" ? AGREES : `agrees: ${reason}`;
  if (status === "agrees by construction") return agreesByConstruction(reason);
  if (status === "tie") return tie(reason);
  return differs(reason);
}

/**
 * The verdict table in markdown: columns "paper reports", "paper", "ppsynth" and "verdict".
 *
 * @param rows The rows, in the paper's order.
 * @returns The table (no trailing newline).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Judge, verdict, verdictTable } from "./verdict.ts";
 * const table = verdictTable([
 *   verdict({ quantity: "Δ", paper: "3.5", ours: "3.49 ± 0.02" }, Judge.within(3.5, [3.44, 3.54], "")),
 * ]);
 * assert.equal(table.split("\n")[2], "| Δ | 3.5 | 3.49 ± 0.02 | agrees within Monte Carlo error |");
 * ```
 */
export function verdictTable(rows: readonly ReportVerdict[]): string {
  if (rows.length === 0) throw new RangeError("Invalid rows: a verdict table needs at least one");
  return markdownTable(
    ["paper reports", "paper", "ppsynth", "verdict"],
    rows.map((row) =>
      [row.quantity, row.paper, row.ours].map(formatValue).concat(verdictText(row))
    ),
  );
}

/** Options of {@linkcode withinMonteCarloError}. */
export interface AgreementOptions {
  /** Normal quantile (default 2). */
  readonly z?: number;
  /** The paper's rounding unit, e.g. 0.1 for one printed decimal (default 0). */
  readonly rounding?: number;
}

/**
 * Whether our estimate and the paper's agree within Monte Carlo error: |ours − paper| ≤
 * z·√2·se + rounding/2, the paper's estimate taken to carry the same standard error as ours.
 *
 * @param ours Our estimate.
 * @param paper The paper's printed value.
 * @param standardError The Monte Carlo standard error of our estimate (finite, ≥ 0).
 * @param options z and the paper's rounding unit.
 * @returns Whether they agree.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withinMonteCarloError } from "./verdict.ts";
 * assert.equal(withinMonteCarloError(10.2, 10, 0.1), true); // 0.2 ≤ 2·√2·0.1
 * assert.equal(withinMonteCarloError(10.4, 10, 0.1), false);
 * ```
 */
export function withinMonteCarloError(
  ours: number,
  paper: number,
  standardError: number,
  options: AgreementOptions = {},
): boolean {
  const { z = 2, rounding = 0 } = options;
  if (!(standardError >= 0) || !Number.isFinite(standardError)) {
    throw new RangeError(
      `Invalid standardError: must be finite and non-negative: standardError=${standardError}`,
    );
  }
  const allowed = z * Math.SQRT2 * standardError + rounding / 2;
  // A relative 1e-12 absorbs the binary representation of printed decimals (1.05 − 1 > 0.05).
  return Math.abs(ours - paper) <= allowed * (1 + 1e-12) + 1e-12 * Math.abs(paper);
}

/**
 * Whether a paired difference is within Monte Carlo error: |z| below the quantile
 * ({@linkcode withinMonteCarloError}'s default, 2).
 *
 * @param difference The paired difference.
 * @param z The normal quantile (default 2).
 * @returns Whether it is a tie.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pairedDifference } from "../stats/paired_difference.ts";
 * import { isTie } from "./verdict.ts";
 * assert.equal(isTie(pairedDifference([[1.1, 1], [0.9, 1], [1.05, 1]])), true);
 * ```
 */
export function isTie(difference: PairedDifference, z = 2): boolean {
  return Math.abs(difference.z) < z;
}
