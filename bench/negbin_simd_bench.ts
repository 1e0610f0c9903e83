/**
 * ns per record of the negative binomial record loops, TypeScript (`NegBinModel`) against
 * WebAssembly SIMD (`NegBinSimd`), at n = 10⁴, 10⁵, 10⁶ on `bench:scale`'s data (two
 * covariates, η varying per record): log density with gradient (α absent and present) and the
 * per-record log-likelihood. φ is fixed, so both sides reuse their per-outcome tables; the TS
 * figure includes the prior (a few ns per call). A `deno run` script (`deno bench` skips it);
 * with --allow-all it times by this thread's CPU time, which other processes' load leaves alone:
 *
 *     deno run --allow-all bench/negbin_simd_bench.ts
 *
 * @module
 */
import { parseCsv } from "../src/data/csv.ts";
import { buildDesign } from "../src/data/design.ts";
import { outcomeKind } from "../src/models/mod.ts";
import { NegBinModel } from "../src/models/negbin.ts";
import { NegBinSimd } from "../src/models/negbin_simd.ts";
import type { Weighting } from "../src/models/model.ts";
import { digammaDiff, lgamma, logPochhammer } from "../src/stats/special.ts";
import { scaleDataset } from "./_common.ts";

/** This thread's CPU time in ms where Linux shows it (so other processes' load does not count). */
function threadCpuMs(): number {
  return Number(Deno.readTextFileSync("/proc/thread-self/schedstat").split(" ")[0]) / 1e6;
}

/** The clock of the timings: thread CPU time where readable, else wall time. */
const clock = (() => {
  try {
    threadCpuMs();
    return { name: "thread CPU time", now: threadCpuMs };
  } catch {
    return { name: "wall time", now: () => performance.now() };
  }
})();

/** ns per record of `f`: the best of 5 rounds of `repeats` calls, after 5 warm-up calls. */
function nsPerRecord(n: number, repeats: number, f: () => void): number {
  for (let r = 0; r < 5; r++) f();
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t = clock.now();
    for (let r = 0; r < repeats; r++) f();
    best = Math.min(best, clock.now() - t);
  }
  return (best * 1e6) / (repeats * n);
}

/** Prints the table. */
function main(): void {
  if (!NegBinSimd.available) throw new Error("WebAssembly SIMD is not available here");
  const rows: string[][] = [];
  for (const n of [1e4, 1e5, 1e6]) {
    const data = parseCsv(scaleDataset(n, 7), "s.csv");
    const design = buildDesign(data, { y: "y", x: ["z", "b"] }, outcomeKind("negbin"));
    const model = new NegBinModel(design, { simd: false });
    const k = design.k;
    const index = new Map<number, number>();
    const values: number[] = [];
    const ids = Int32Array.from(design.y, (v) => {
      let t = index.get(v);
      if (t === undefined) index.set(v, t = values.push(v) - 1);
      return t;
    });
    const simd = new NegBinSimd(design, ids, values.length);
    const u = model.initialPoint();
    u[1] = 0.3;
    u[2] = -0.4;
    const phi = Math.exp(-u[2 * k]);
    const cst = Float64Array.from(values, (v) => logPochhammer(phi, v) - lgamma(v + 1));
    const psi = Float64Array.from(values, (v) => phi * digammaDiff(phi, v));
    const theta = model.constrain(u);
    const out = new Float64Array(n);
    const grad = new Float64Array(model.dim);
    const alpha = new Float64Array(n).map((_, i) => (i % 10 === 0 ? 0.5 : 1));
    const repeats = Math.max(3, Math.round(4e6 / n));
    const density = (w: Weighting, wasm: boolean) =>
      nsPerRecord(n, repeats, () => {
        u[0] += 1e-9;
        grad.fill(0);
        if (wasm) simd.logDensity(u, grad, w, cst, psi);
        else model.logDensity(u, grad, w);
      });
    const logLik = (wasm: boolean) =>
      nsPerRecord(n, repeats, () => {
        theta[0] += 1e-9;
        if (wasm) simd.logLik(theta, out, cst);
        else model.logLik(theta, out);
      });
    const cells = [
      [density({ alpha: null }, false), density({ alpha: null }, true)],
      [density({ alpha }, false), density({ alpha }, true)],
      [logLik(false), logLik(true)],
    ];
    rows.push([
      String(n),
      ...cells.flatMap(([ts, wasm]) => [
        ts.toFixed(1),
        wasm.toFixed(1),
        `${(ts / wasm).toFixed(1)}×`,
      ]),
    ]);
  }
  console.log(`ns per record (${clock.name}, best of 5 rounds)`);
  const pair = (what: string) => [`${what} TS`, "WASM", "gain"];
  console.log(["n", ...pair("grad"), ...pair("grad α"), ...pair("loglik")].join("\t"));
  for (const row of rows) console.log(row.join("\t"));
}

if (import.meta.main) main();
