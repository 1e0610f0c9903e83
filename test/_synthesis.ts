/**
 * Shared pieces of the tests that synthesise an outcome y on one public covariate z from CSV
 * rows they draw themselves.
 *
 * @module
 */
import { parseCsv } from "../src/data/csv.ts";
import { SynthesisSpec } from "../src/synthesis/spec.ts";
import {
  type SynthesisResult,
  synthesize,
  type SynthesizeOptions,
} from "../src/synthesis/synthesize.ts";

/**
 * `synthesize()` of y on z: the CSV file `name` with columns y and z, one `"<y>,<z>"` row each,
 * under the spec `{ y: "y", x: ["z"], ...spec }`.
 */
export function synthesizeYOnZ(
  rows: readonly string[],
  name: string,
  spec: Readonly<Record<string, unknown>>,
  options?: SynthesizeOptions,
): Promise<SynthesisResult> {
  return synthesize(
    parseCsv("y,z\n" + rows.join("\n") + "\n", name),
    SynthesisSpec.parse({ y: "y", x: ["z"], ...spec }),
    options,
  );
}
