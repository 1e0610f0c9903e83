/**
 * Model formulas of the form `y ~ a + b + c` (R's main-effects subset), for the utility report's
 * utility models.
 *
 * @module
 */

/** A parsed main-effects formula. */
export interface Formula {
  /** The formula as given (trimmed). */
  readonly text: string;
  /** The outcome's column name. */
  readonly outcome: string;
  /** The predictors' column names, in order (an intercept is always included). */
  readonly terms: readonly string[];
}

const NAME = /[A-Za-z_.][A-Za-z0-9_.]*/y;

/**
 * Parses `outcome ~ term + term + …`. A name is a run of letters, digits, `_` and `.` not
 * starting with a digit, or any text in backquotes (`` `net income` ``); `1` stands for the
 * intercept (always included) and `y ~ 1` has no predictors. Interactions, transformations and
 * removals (`*`, `:`, `I()`, `-`) are not supported.
 *
 * @param text The formula.
 * @returns The outcome and the terms; throws a `RangeError` quoting the formula and saying what
 *   was expected where, or naming a repeated term.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFormula } from "./formula.ts";
 * assert.deepEqual(parseFormula("A ~ x1 + `net income`").terms, ["x1", "net income"]);
 * assert.throws(() => parseFormula("A ~ x1 * B"), /unexpected "\*" at character 8/);
 * ```
 */
export function parseFormula(text: string): Formula {
  const source = text.trim();
  let at = 0;
  const fail = (what: string): never => {
    throw new RangeError(
      `Invalid utility model "${source}": ${what} (expected the form "y ~ a + b", names with ` +
        "other characters in backquotes)",
    );
  };
  const spaces = () => {
    while (at < source.length && /\s/.test(source[at])) at++;
  };
  const unexpected = () =>
    at >= source.length
      ? fail("unexpected end")
      : fail(`unexpected "${source[at]}" at character ${at + 1}`);
  /** A name, or null for the intercept term 1. */
  const name = (): string | null => {
    spaces();
    if (source[at] === "`") {
      const end = source.indexOf("`", at + 1);
      if (end < 0) fail(`unclosed backquote at character ${at + 1}`);
      const value = source.slice(at + 1, end);
      if (value === "") fail(`empty name at character ${at + 1}`);
      at = end + 1;
      return value;
    }
    if (source[at] === "1" && !/[A-Za-z0-9_.]/.test(source[at + 1] ?? "")) {
      at++;
      return null;
    }
    NAME.lastIndex = at;
    const match = NAME.exec(source);
    if (match === null) return unexpected();
    at += match[0].length;
    return match[0];
  };
  const outcome = name() ?? fail("the outcome must be a column");
  spaces();
  if (source[at] !== "~") unexpected();
  at++;
  const terms: string[] = [];
  for (;;) {
    const term = name();
    if (term !== null) {
      if (terms.includes(term)) fail(`the term "${term}" appears twice`);
      if (term === outcome) fail(`the outcome "${term}" is also a predictor`);
      terms.push(term);
    }
    spaces();
    if (at >= source.length) break;
    if (source[at] !== "+") unexpected();
    at++;
  }
  return { text: source, outcome, terms };
}
