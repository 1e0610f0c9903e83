/**
 * The `--stratum-sizes` flag: public population sizes per stratum, as `label=N,label=N`.
 *
 * @module
 */
import { parseDecimal } from "../data/decimal.ts";
import { UsageError } from "./run_command.ts";

/** Parses `label=size,label=size` into a record, naming the flag on a bad entry. */
export function parseStratumSizes(flag: string, value: string): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const entry of value.split(",")) {
    const at = entry.lastIndexOf("=");
    const size = at < 1 ? NaN : parseDecimal(entry.slice(at + 1).trim());
    if (!(size > 0) || !Number.isFinite(size)) {
      throw new UsageError(`--${flag}: expected stratum=size pairs with positive sizes`);
    }
    sizes[entry.slice(0, at)] = size;
  }
  return sizes;
}
