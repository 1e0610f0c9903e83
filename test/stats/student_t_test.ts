import assert from "node:assert/strict";
import { normalCdf, normalQuantile, studentTQuantile } from "../../src/stats/student_t.ts";

// Reference quantiles, rows [p, df, t], in test/reference/student_t_quantiles.json:
// - r_qt: t = qt(p, df) from R 4.2.2:
//     ps <- c(0.975, 0.025, 0.9, 0.6, 0.5000001, 1e-10, 0.999999)
//     dfs <- c(0.3, 1, 2, 2.5, 3.7, 12.5, 30, 100, 999.5, 2999, 3000, 1e5, 1e8)
//     for (d in dfs) for (p in ps) cat(sprintf("[%s, %s, %.17g],\n", p, d, qt(p, d)))
// - mpmath_qt: t to 20 digits from mpmath 1.3.0 at 40 digits: bisection on log t of
//   betainc(df/2, 1/2, 0, df/(df + t²), regularized=True)/2 = min(p, 1 − p) (for min(p, 1 − p) > ¼,
//   of betainc(1/2, df/2, 0, t²/(df + t²), regularized=True)/2 = ½ − min(p, 1 − p)).
const QUANTILES: Record<"r_qt" | "mpmath_qt", [number, number, number][]> = JSON.parse(
  await Deno.readTextFile(new URL("../reference/student_t_quantiles.json", import.meta.url)),
);

/** Asserts studentTQuantile(p, df) is within `tolerance` of t, relative, for every [p, df, t]. */
function assertQuantiles(rows: [number, number, number][], tolerance: number) {
  for (const [p, df, t] of rows) {
    const got = studentTQuantile(p, df);
    assert.ok(Math.abs(got / t - 1) < tolerance, `p=${p}, df=${df}: ${got} vs ${t}`);
  }
}

Deno.test("`studentTQuantile()` matches 40-digit mpmath values to 1e-13 relative", () => {
  assertQuantiles(QUANTILES.mpmath_qt, 1e-13);
});

Deno.test("`studentTQuantile()` matches R's qt to 1e-9 relative", () => {
  // R's qt is itself off by up to 4.3e-10 relative (against mpmath) for p within 1e-7 of ½ at
  // small df, and by 9e-11 at df = 0.3, p = 1 − 1e-6; at the other points the two agree to
  // 5e-14. The mpmath test above is the tight one.
  assertQuantiles(QUANTILES.r_qt, 1e-9);
});

Deno.test("`studentTQuantile()` is the normal quantile at df = ∞, odd in p − ½, and checks inputs", () => {
  // R: sprintf("%.17g", qnorm(c(0.975, 0.6, 1e-10, 1e-300)))
  const R_QNORM: [number, number][] = [
    [0.975, 1.9599639845400536],
    [0.6, 0.25334710313579978],
    [1e-10, -6.3613409024040557],
    [1e-300, -37.047096299361201],
  ];
  for (const [p, z] of R_QNORM) {
    assert.ok(Math.abs(normalQuantile(p) / z - 1) < 1e-15, `p=${p}`);
    assert.ok(Math.abs(studentTQuantile(p, Infinity) / z - 1) < 1e-15, `p=${p}`);
  }
  assert.equal(studentTQuantile(0.5, 7), 0);
  for (const df of [0.7, 4, 55.5, 5000]) {
    assert.equal(studentTQuantile(0.125, df), -studentTQuantile(0.875, df));
  }
  // Closed forms: df = 1 is Cauchy, tan(π(p − ½)); df = 2 is (2p − 1)/√(2p(1 − p)).
  for (const p of [0.7, 0.95, 0.999]) {
    assert.ok(Math.abs(studentTQuantile(p, 1) / Math.tan(Math.PI * (p - 0.5)) - 1) < 1e-13);
    assert.ok(
      Math.abs(studentTQuantile(p, 2) / ((2 * p - 1) / Math.sqrt(2 * p * (1 - p))) - 1) < 1e-13,
    );
  }
  assert.throws(() => studentTQuantile(1, 3), /p=1/);
  assert.throws(() => studentTQuantile(0.5, 0), /df=0/);
  assert.throws(() => studentTQuantile(0.5, NaN), /df=NaN/);
  assert.equal(normalQuantile(0), -Infinity);
});

Deno.test("`normalCdf()` inverts `normalQuantile()` and matches R's pnorm", () => {
  // R 4.x: pnorm(c(-3, -1, 0, 0.5, 2.5)).
  const r = [0.0013498980316301, 0.1586552539314571, 0.5, 0.6914624612740131, 0.9937903346742238];
  [-3, -1, 0, 0.5, 2.5].forEach((x, j) => {
    assert.ok(Math.abs(normalCdf(x) - r[j]) < 1.2e-7 * Math.min(r[j], 1 - r[j]) + 1e-16, `${x}`);
  });
  for (const p of [1e-6, 0.01, 0.3, 0.5, 0.8, 0.999]) {
    assert.ok(Math.abs(normalCdf(normalQuantile(p)) - p) < 1.2e-7 * Math.min(p, 1 - p), `${p}`);
  }
  assert.equal(normalCdf(-Infinity), 0);
  assert.equal(normalCdf(Infinity), 1);
});
