/**
 * The record loops of `logistic.ts` and `categorical.ts` in WebAssembly SIMD (`logit_simd.wat`,
 * two records per f64x2 vector, its own exp and log1p kernels): the same sums and per-record
 * log-likelihoods as the TypeScript loops, to a few ulp per record.
 *
 * L = 2 levels run the logistic kernel, ℓ_i = log logit⁻¹(t_i) with t_i = s_i·η_i and
 * s_i = 2y_i − 1, gradient s_i·logit⁻¹(−t_i)·x_i; L > 2 the softmax kernel, ℓ_i =
 * (η_{i,y_i} − m_i) − log Σ_l e^{η_il − m_i} with m_i = max(0, max_l η_il), gradient
 * x_ik·(1[y_i = l] − p_il). Record i contributes clamp(α_i·ℓ_i, ±C) and, when not clamped, its
 * gradient times α_i; α_i = 0 skips it. An outcome that is not a level's code has ℓ_i = −∞ and
 * contributes clamp(−∞, ±C): those records are handled here, around the kernel.
 *
 * @module
 */
import { censorBound } from "./_glm.ts";
import { copyColumns, instantiate, recordStride, reserve } from "./wasm_memory.ts";
import type { Design, Weighting } from "./model.ts";
import { LOGIT_SIMD_WASM } from "./logit_simd_wasm.ts";

interface Exports {
  readonly BLOCK: WebAssembly.Global;
  layout(
    n: number,
    k: number,
    levels: number,
    stride: number,
    coef: number,
    grad: number,
    buf: number,
    y: number,
    alpha: number,
    out: number,
    x: number,
  ): void;
  logisticDensity(censor: number, hasAlpha: number, withGrad: number): number;
  logisticLoglik(): void;
  categoricalDensity(censor: number, hasAlpha: number, withGrad: number): number;
  categoricalLoglik(): void;
}

const BYTES = Uint8Array.from(atob(LOGIT_SIMD_WASM), (c) => c.charCodeAt(0));
let compiled: WebAssembly.Module | null = null;

/**
 * One dataset's copy in WebAssembly memory with the record loops of a model with L levels; the
 * coefficients (β_1, …, β_{L−1}, each of length K; the logistic model's β) are the first
 * (L−1)·K entries of u and θ, and their gradient goes to the same entries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LogitSimd } from "./logit_simd.ts";
 * if (LogitSimd.available) {
 *   const simd = new LogitSimd({ n: 2, k: 1, x: Float64Array.of(1, 1) }, Int32Array.of(1, 0), 2);
 *   // η = 0: ℓ = log ½ for either outcome.
 *   const l = simd.logLik(Float64Array.of(0, 1), new Float64Array(2));
 *   assert.ok(Math.abs(l[0] - Math.log(0.5)) < 1e-15 && Math.abs(l[1] - Math.log(0.5)) < 1e-15);
 * }
 * ```
 */
export class LogitSimd {
  /** Whether this engine runs WebAssembly SIMD (the constructor throws where it does not). */
  static readonly available: boolean = WebAssembly.validate(BYTES);

  readonly #n: number;
  /** Number of coefficients (L − 1)·K. */
  readonly #m: number;
  readonly #logistic: boolean;
  readonly #wasm: Exports;
  readonly #f64: Float64Array;
  /** The n entries of α and of ℓ in the memory. */
  readonly #alpha: Float64Array;
  readonly #out: Float64Array;
  /** Float64 indices of the coef and grad arrays. */
  readonly #at: { coef: number; grad: number };
  /** The records whose outcome is not a level's code (α = 0 in the kernel). */
  readonly #invalid: Int32Array;

  /**
   * Copies the design into a new WebAssembly memory.
   * @param design n, k and x (n×k row-major, column 0 the intercept).
   * @param codes each record's level 0..L−1 (the logistic model's y), −1 for an outcome that is
   *   not a level's code.
   * @param levels L ≥ 2.
   */
  constructor(design: Pick<Design, "n" | "k" | "x">, codes: Int32Array, levels: number) {
    if (!LogitSimd.available) throw new Error("WebAssembly SIMD is not available");
    const { n, k, x } = design;
    if (codes.length !== n || x.length !== n * k) {
      throw new RangeError(
        `Invalid design: codes must have length n and x n·k: n=${n}, k=${k}, ` +
          `codes.length=${codes.length}, x.length=${x.length}`,
      );
    }
    if (!(Number.isInteger(levels) && levels >= 2)) {
      throw new RangeError(`Invalid levels: must be an integer ≥ 2: levels=${levels}`);
    }
    for (let i = 0; i < n; i++) {
      if (!(codes[i] >= -1 && codes[i] < levels)) {
        throw new RangeError(`Invalid codes: must lie in [−1, ${levels}): codes[${i}]=${codes[i]}`);
      }
    }
    this.#n = n;
    this.#m = (levels - 1) * k;
    this.#logistic = levels === 2;
    compiled ??= new WebAssembly.Module(BYTES);
    const { exports, memory, block } = instantiate<Exports>(compiled);
    this.#wasm = exports;
    const stride = recordStride(n);
    const [coef, grad, buf, yAt, alpha, out, xAt] = reserve(memory, [
      8 * this.#m,
      8 * this.#m,
      8 * block * (levels === 2 ? 2 : levels + 3),
      8 * stride,
      8 * stride,
      8 * stride,
      8 * stride * (k - 1),
    ]);
    this.#wasm.layout(n, k, levels, stride, coef, grad, buf, yAt, alpha, out, xAt);
    const f64 = new Float64Array(memory.buffer);
    // The kernel's y: s = ±1 (logistic) or the code; an invalid record's is any level's.
    for (let i = 0; i < n; i++) {
      const c = Math.max(codes[i], 0);
      f64[yAt / 8 + i] = this.#logistic ? 2 * c - 1 : c;
    }
    copyColumns(f64, xAt / 8, stride, x, n, k);
    this.#f64 = f64;
    this.#alpha = f64.subarray(alpha / 8, alpha / 8 + n);
    this.#out = f64.subarray(out / 8, out / 8 + n);
    this.#at = { coef: coef / 8, grad: grad / 8 };
    this.#invalid = Int32Array.from(codes.keys()).filter((i) => codes[i] < 0);
  }

  /**
   * Σ_i clamp(α_i·ℓ_i, ±C) at u (no prior); when `grad` is given, adds the records' gradient to
   * grad[0..(L−1)·K).
   */
  logDensity(u: Float64Array, grad: Float64Array | null, weighting: Weighting): number {
    const censor = censorBound(weighting, this.#n);
    const alpha = weighting.alpha;
    const invalid = this.#invalid;
    const f64 = this.#f64;
    const at = this.#at;
    f64.set(u.subarray(0, this.#m), at.coef);
    // Invalid records get α = 0 in the kernel and clamp(−∞, ±C) here.
    if (alpha !== null) this.#alpha.set(alpha);
    else if (invalid.length > 0) this.#alpha.fill(1);
    let invalidTotal = 0;
    for (const i of invalid) {
      if (this.#alpha[i] !== 0) invalidTotal += censor === Infinity ? -Infinity : -censor;
      this.#alpha[i] = 0;
    }
    const hasAlpha = alpha !== null || invalid.length > 0 ? 1 : 0;
    const withGrad = grad === null ? 0 : 1;
    const total = this.#logistic
      ? this.#wasm.logisticDensity(censor, hasAlpha, withGrad)
      : this.#wasm.categoricalDensity(censor, hasAlpha, withGrad);
    if (grad !== null) {
      for (let j = 0; j < this.#m; j++) grad[j] += f64[at.grad + j];
    }
    return total + invalidTotal;
  }

  /** out[i] = ℓ_i at θ (−∞ for an outcome that is not a level's code); returns `out`. */
  logLik(theta: Float64Array, out: Float64Array): Float64Array {
    if (out.length !== this.#n) {
      throw new RangeError(`Invalid out: must have length n=${this.#n}: length=${out.length}`);
    }
    this.#f64.set(theta.subarray(0, this.#m), this.#at.coef);
    if (this.#logistic) this.#wasm.logisticLoglik();
    else this.#wasm.categoricalLoglik();
    out.set(this.#out);
    for (const i of this.#invalid) out[i] = -Infinity;
    return out;
  }
}
