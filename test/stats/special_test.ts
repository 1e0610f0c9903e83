import assert from "node:assert/strict";
import { bignumber, factorial, gamma, lgamma as mjLgamma, log as mjLog } from "mathjs";
import {
  digamma,
  digammaDiff,
  digammaDiffs,
  lgamma,
  log1pExp,
  logPochhammer,
  logPochhammers,
  logPochhammersAndDigammaDiffs,
  sigmoid,
} from "../../src/stats/special.ts";
import { assertClose, uniforms } from "../models/_helpers.ts";

const EULER_GAMMA = 0.57721566490153286061;

/** log n! to 40 digits with mathjs BigNumber. */
function logFactorial(n: number): number {
  return Number(mjLog(factorial(bignumber(n))));
}

Deno.test("`lgamma()` matches log n! computed in BigNumber at the integers", () => {
  for (const n of [0, 1, 2, 3, 5, 8, 9, 10, 11, 20, 50, 100, 170, 500, 1000]) {
    assertClose(lgamma(n + 1), logFactorial(n), 2e-15, 1e-15, `lgamma(${n + 1})`);
  }
});

Deno.test("`lgamma()` matches Γ(n + ½) = (2n)!·√π/(4ⁿ·n!) at the half-integers", () => {
  for (const n of [0, 1, 2, 4, 9, 10, 30, 200]) {
    const exact = logFactorial(2 * n) + 0.5 * Math.log(Math.PI) - n * Math.log(4) -
      logFactorial(n);
    // The reference adds four rounded logarithms: allow a few ulps of its largest term.
    assertClose(lgamma(n + 0.5), exact, 2e-15, 4e-15, `lgamma(${n + 0.5})`);
  }
});

Deno.test("`lgamma()` matches log of mathjs gamma on (0, 60)", () => {
  const xs = [...uniforms(200, 0, 60, 1), 1e-3, 1e-8, 0.4999, 0.5, 9.999, 10, 10.001];
  for (const x of xs) {
    const ref = Math.log(gamma(x) as number);
    assertClose(lgamma(x), ref, 2e-14, 2e-15, `lgamma(${x})`);
  }
});

Deno.test("`lgamma()` matches mathjs lgamma at large arguments", () => {
  // mathjs lgamma uses a 6-term Lanczos series: absolute error about 2e-10.
  for (const x of [61.5, 1e3 + 0.25, 1e5 + 1, 1e6, 3.3e7, 1e10, 1e15]) {
    assertClose(lgamma(x), mjLgamma(x) as number, 1e-15, 1e-9, `lgamma(${x})`);
  }
});

Deno.test("`lgamma()` handles poles, infinity and negative non-integers", () => {
  assert.equal(lgamma(0), Infinity);
  assert.equal(lgamma(-3), Infinity);
  assert.equal(lgamma(Infinity), Infinity);
  assert.ok(Number.isNaN(lgamma(NaN)));
  // Γ(−½) = −2√π.
  assertClose(lgamma(-0.5), Math.log(2 * Math.sqrt(Math.PI)), 1e-15, 0, "lgamma(-0.5)");
  // small x: log Γ(x) ≈ −log x − γx.
  assertClose(lgamma(1e-300), -Math.log(1e-300), 1e-15, 0, "lgamma(1e-300)");
});

Deno.test("`digamma()` matches ψ(1) = −γ and ψ(½) = −γ − 2·ln 2", () => {
  assertClose(digamma(1), -EULER_GAMMA, 0, 1e-15, "digamma(1)");
  assertClose(digamma(0.5), -EULER_GAMMA - 2 * Math.LN2, 0, 2e-15, "digamma(0.5)");
});

Deno.test("`digamma()` matches the harmonic sums ψ(n) = H_{n−1} − γ and ψ(n + ½)", () => {
  let harmonic = 0;
  let odd = 0;
  for (let n = 1; n <= 300; n++) {
    assertClose(digamma(n), harmonic - EULER_GAMMA, 1e-15, 2e-15, `digamma(${n})`);
    odd += 2 / (2 * n - 1);
    assertClose(
      digamma(n + 0.5),
      odd - EULER_GAMMA - 2 * Math.LN2,
      1e-15,
      2e-15,
      `digamma(${n + 0.5})`,
    );
    harmonic += 1 / n;
  }
});

Deno.test("`digamma()` matches central differences of mathjs lgamma", () => {
  for (const x of [...uniforms(40, 0.05, 80, 2), 1e3, 1e5]) {
    const h = 1e-3 * Math.max(1, x);
    const d = (s: number) => ((mjLgamma(x + s) as number) - (mjLgamma(x - s) as number)) / (2 * s);
    const fd = (4 * d(h / 2) - d(h)) / 3;
    // mathjs lgamma's 2e-10 absolute error over a 1e-3 step bounds the reference's accuracy.
    assertClose(digamma(x), fd, 1e-9, 1e-6, `digamma(${x})`);
  }
});

Deno.test("`digamma()` reflects to negative non-integers and is NaN at the poles", () => {
  // ψ(1 − x) − ψ(x) = π·cot(πx); at x = −½ the cotangent vanishes: ψ(−½) = ψ(3/2).
  assertClose(digamma(-0.5), digamma(1.5), 0, 1e-15, "digamma(-0.5)");
  assertClose(digamma(-1.25), digamma(2.25) + Math.PI, 0, 1e-14, "digamma(-1.25)");
  assert.ok(Number.isNaN(digamma(0)));
  assert.ok(Number.isNaN(digamma(-2)));
});

Deno.test("`logPochhammer()` matches Σ log(a + j) for integer shifts and lgamma otherwise", () => {
  for (const a of [1e-3, 0.7, 9.99, 10, 37.5, 1e4, 1e6, 1e12, 1e15]) {
    for (const y of [0, 1, 2, 7, 100, 2500]) {
      let sum = 0;
      for (let j = 0; j < y; j++) sum += Math.log(a + j);
      assertClose(logPochhammer(a, y), sum, 1e-13, 1e-15, `logPochhammer(${a}, ${y})`);
    }
  }
  for (const [a, y] of [[12.5, 0.3], [500, 1e5 + 0.5], [3, 4.25]]) {
    const ref = (mjLgamma(a + y) as number) - (mjLgamma(a) as number);
    assertClose(logPochhammer(a, y), ref, 1e-13, 1e-9, `logPochhammer(${a}, ${y})`);
  }
});

Deno.test("`digammaDiff()` matches Σ 1/(a + j) for integer shifts", () => {
  for (const a of [1e-3, 0.7, 9.99, 10, 37.5, 1e4, 1e6, 1e12, 1e15]) {
    for (const y of [0, 1, 2, 7, 100, 2500]) {
      let sum = 0;
      for (let j = y - 1; j >= 0; j--) sum += 1 / (a + j);
      assertClose(digammaDiff(a, y), sum, 1e-13, 1e-300, `digammaDiff(${a}, ${y})`);
    }
  }
  assertClose(digammaDiff(3, 0.5), digamma(3.5) - digamma(3), 0, 1e-15, "digammaDiff(3, 0.5)");
});

Deno.test("`log1pExp()` and `sigmoid()` match direct formulas and stay finite at extremes", () => {
  for (const x of [-30, -5, -1e-3, 0, 1e-3, 2, 30]) {
    assertClose(log1pExp(x), Math.log1p(Math.exp(x)), 1e-15, 0, `log1pExp(${x})`);
    assertClose(sigmoid(x), 1 / (1 + Math.exp(-x)), 1e-15, 0, `sigmoid(${x})`);
    assertClose(sigmoid(x) + sigmoid(-x), 1, 0, 2.3e-16, `sigmoid symmetry at ${x}`);
  }
  assert.equal(log1pExp(800), 800);
  assert.equal(log1pExp(-800), 0);
  assert.equal(log1pExp(-40), Math.exp(-40));
  assert.equal(sigmoid(-800), 0);
  assert.equal(sigmoid(800), 1);
  assertClose(sigmoid(-700), Math.exp(-700), 1e-15, 0, "sigmoid(-700)");
});

Deno.test("logPochhammers, digammaDiffs and both at once equal the scalar functions bit for bit, either side of 10", () => {
  const y = Float64Array.from([0, 1, 2.5, 7, 9.9, 10, 37, 512, 1e4, 3e6]);
  for (const a of [1e-3, 0.4, 1, 7.47, 9.999, 10, 12.5, 1e3, 1e9]) {
    const lp = new Float64Array(y.length);
    const dd = new Float64Array(y.length);
    logPochhammers(a, y, lp);
    digammaDiffs(a, y, dd);
    const [lpBoth, ddBoth] = [new Float64Array(y.length), new Float64Array(y.length)];
    logPochhammersAndDigammaDiffs(a, y, lpBoth, ddBoth);
    y.forEach((v, t) => {
      assert.ok(Object.is(lp[t], logPochhammer(a, v)), `logPochhammer(${a}, ${v})`);
      assert.ok(Object.is(dd[t], digammaDiff(a, v)), `digammaDiff(${a}, ${v})`);
      assert.ok(Object.is(lpBoth[t], lp[t]), `both tables: logPochhammer(${a}, ${v})`);
      assert.ok(Object.is(ddBoth[t], dd[t]), `both tables: digammaDiff(${a}, ${v})`);
    });
  }
});
