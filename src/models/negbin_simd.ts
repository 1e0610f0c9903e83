/**
 * The negative binomial record loops of `negbin.ts` in WebAssembly SIMD (`negbin_simd.wat`, two
 * records per f64x2 vector, its own exp and log1p kernels): the same sums and per-record
 * log-likelihoods as the TypeScript loops, to a few ulp per record.
 *
 * With d = η − log φ, L = log(1 + e^d) and s = logit⁻¹(d), record i contributes
 * c_i = α_i·ℓ_i, ℓ_i = cst[t_i] − (φ + y_i)·L + y_i·d, clamped to [−C, C]; when not clamped it
 * adds g_i = α_i·(y_i − (y_i + φ)·s) to the coefficient gradient (times x_ij) and
 * α_i·(φ·(L − s) + y_i·(1 − s) − psi[t_i]) to the gradient in u = log(1/φ). The tables cst
 * (log Γ(v+φ) − log Γ(φ) − log Γ(v+1)) and psi (φ·[ψ(v+φ) − ψ(φ)]) per distinct outcome v
 * come from the caller.
 *
 * @module
 */
import { censorBound } from "./_glm.ts";
import { copyColumns, instantiate, recordStride, reserve } from "./wasm_memory.ts";
import type { Design, Weighting } from "./model.ts";
import { NEGBIN_SIMD_WASM } from "./negbin_simd_wasm.ts";

interface Exports {
  readonly BLOCK: WebAssembly.Global;
  layout(
    k: number,
    stride: number,
    coef: number,
    grad: number,
    dbuf: number,
    ebuf: number,
    lbuf: number,
    ibuf: number,
    cst: number,
    psi: number,
    y: number,
    alpha: number,
    out: number,
    ids: number,
    x: number,
  ): void;
  density(
    from: number,
    to: number,
    phi: number,
    logPhi: number,
    censor: number,
    hasAlpha: number,
    withGrad: number,
  ): number;
  loglik(from: number, to: number, phi: number, logPhi: number): void;
}

const BYTES = Uint8Array.from(atob(NEGBIN_SIMD_WASM), (c) => c.charCodeAt(0));
let compiled: WebAssembly.Module | null = null;

/** to[i] = from[i] for i in [start, end) (one copy for the whole array). */
function copyRange(from: Float64Array, to: Float64Array, start: number, end: number): void {
  if (start === 0 && end === from.length) {
    to.set(from);
  } else {
    for (let i = start; i < end; i++) to[i] = from[i];
  }
}

/**
 * One dataset's copy in WebAssembly memory with the two record loops; θ and u follow the
 * regression layout of `_glm.ts` (coefficients at 0..k−1, φ or log(1/φ) at 2k).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NegBinSimd } from "./negbin_simd.ts";
 * if (NegBinSimd.available) {
 *   const simd = new NegBinSimd({ n: 1, k: 1, y: new Float64Array([0]), x: new Float64Array([1]) },
 *     new Int32Array(1), 1);
 *   // P(y = 0) = (φ/(μ+φ))^φ; at μ = 1, φ = 2 (cst = 0 for y = 0): (2/3)².
 *   const l = simd.logLik(new Float64Array([0, 1, 2]), new Float64Array(1), new Float64Array(1));
 *   assert.ok(Math.abs(l[0] - 2 * Math.log(2 / 3)) < 1e-15);
 * }
 * ```
 */
export class NegBinSimd {
  /** Whether this engine runs WebAssembly SIMD (the constructor throws where it does not). */
  static readonly available: boolean = WebAssembly.validate(BYTES);

  readonly #n: number;
  readonly #k: number;
  readonly #distinct: number;
  readonly #wasm: Exports;
  readonly #f64: Float64Array;
  /** The n entries of α and of ℓ in the memory. */
  readonly #alpha: Float64Array;
  readonly #out: Float64Array;
  /** Float64 indices of the coef, grad, cst and psi arrays. */
  readonly #at: { coef: number; grad: number; cst: number; psi: number };

  /**
   * Copies the design into a new WebAssembly memory.
   * @param design n, k, y and x (n×k row-major, column 0 the intercept).
   * @param ids each record's index in the distinct outcome values (the order of cst and psi).
   * @param distinct the number of distinct outcome values.
   */
  constructor(
    design: Pick<Design, "n" | "k" | "y" | "x">,
    ids: Int32Array,
    distinct: number,
  ) {
    if (!NegBinSimd.available) throw new Error("WebAssembly SIMD is not available");
    const { n, k, y, x } = design;
    if (y.length !== n || x.length !== n * k || ids.length !== n) {
      throw new RangeError(
        `Invalid design: y, ids must have length n and x n·k: n=${n}, k=${k}, ` +
          `y.length=${y.length}, ids.length=${ids.length}, x.length=${x.length}`,
      );
    }
    for (let i = 0; i < n; i++) {
      if (!(ids[i] >= 0 && ids[i] < distinct)) {
        throw new RangeError(`Invalid ids: must lie in [0, ${distinct}): ids[${i}]=${ids[i]}`);
      }
    }
    this.#n = n;
    this.#k = k;
    this.#distinct = distinct;
    compiled ??= new WebAssembly.Module(BYTES);
    const { exports, memory, block } = instantiate<Exports>(compiled);
    this.#wasm = exports;
    const stride = recordStride(n);
    const [coef, grad, s0, s1, s2, s3, cst, psi, yAt, alpha, out, idsAt, xAt] = reserve(memory, [
      8 * k,
      8 * (k + 1),
      8 * block,
      8 * block,
      8 * block,
      8 * block,
      8 * distinct,
      8 * distinct,
      8 * stride,
      8 * stride,
      8 * stride,
      4 * stride,
      8 * stride * (k - 1),
    ]);
    this.#wasm.layout(k, stride, coef, grad, s0, s1, s2, s3, cst, psi, yAt, alpha, out, idsAt, xAt);
    const f64 = new Float64Array(memory.buffer);
    f64.set(y, yAt / 8);
    new Int32Array(memory.buffer).set(ids, idsAt / 4);
    copyColumns(f64, xAt / 8, stride, x, n, k);
    this.#f64 = f64;
    this.#alpha = f64.subarray(alpha / 8, alpha / 8 + n);
    this.#out = f64.subarray(out / 8, out / 8 + n);
    this.#at = { coef: coef / 8, grad: grad / 8, cst: cst / 8, psi: psi / 8 };
  }

  /**
   * Σ_{i ∈ [from, to)} clamp(α_i·ℓ_i, ±C) at u (no prior), with log φ = −u[2k]; when `grad` is
   * given, adds the records' gradient to grad[0..k) and grad[2k].
   * @param cst log Γ(v+φ) − log Γ(φ) − log Γ(v+1) per distinct value v.
   * @param psi φ·[ψ(v+φ) − ψ(φ)] per distinct value (read only when `grad` is given).
   */
  logDensity(
    u: Float64Array,
    grad: Float64Array | null,
    weighting: Weighting,
    cst: Float64Array,
    psi: Float64Array,
    from = 0,
    to: number = this.#n,
  ): number {
    const k = this.#k;
    this.#checkRange(from, to);
    const censor = censorBound(weighting, this.#n);
    const alpha = weighting.alpha;
    const f64 = this.#f64;
    const at = this.#at;
    this.#setTable(at.cst, cst);
    if (grad !== null) this.#setTable(at.psi, psi);
    for (let j = 0; j < k; j++) f64[at.coef + j] = u[j];
    if (alpha !== null) copyRange(alpha, this.#alpha, from, to);
    const logPhi = -u[2 * k];
    const total = this.#wasm.density(
      from,
      to,
      Math.exp(logPhi),
      logPhi,
      censor,
      alpha === null ? 0 : 1,
      grad === null ? 0 : 1,
    );
    if (grad !== null) {
      for (let j = 0; j < k; j++) grad[j] += f64[at.grad + j];
      grad[2 * k] += f64[at.grad + k];
    }
    return total;
  }

  /**
   * out[i] = ℓ_i at θ for i ∈ [from, to), with φ = θ[2k]; returns `out` (length n).
   * @param cst log Γ(v+φ) − log Γ(φ) − log Γ(v+1) per distinct value v.
   */
  logLik(
    theta: Float64Array,
    out: Float64Array,
    cst: Float64Array,
    from = 0,
    to: number = this.#n,
  ): Float64Array {
    const k = this.#k;
    this.#checkRange(from, to);
    if (out.length !== this.#n) {
      throw new RangeError(`Invalid out: must have length n=${this.#n}: length=${out.length}`);
    }
    const f64 = this.#f64;
    const at = this.#at;
    this.#setTable(at.cst, cst);
    for (let j = 0; j < k; j++) f64[at.coef + j] = theta[j];
    const phi = theta[2 * k];
    this.#wasm.loglik(from, to, phi, Math.log(phi));
    copyRange(this.#out, out, from, to);
    return out;
  }

  #checkRange(from: number, to: number): void {
    if (
      !(Number.isInteger(from) && Number.isInteger(to) && 0 <= from && from <= to &&
        to <= this.#n)
    ) {
      throw new RangeError(`Invalid record range: [${from}, ${to}) in n=${this.#n}`);
    }
  }

  #setTable(at: number, table: Float64Array): void {
    if (table.length !== this.#distinct) {
      throw new RangeError(
        `Invalid table: must have one entry per distinct outcome (${this.#distinct}): ` +
          `length=${table.length}`,
      );
    }
    this.#f64.set(table, at);
  }
}
