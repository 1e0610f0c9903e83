import assert from "node:assert/strict";
import {
  addUp,
  censoredPrivacy,
  composeEpsilon,
  histogramPrivacy,
  mulUp,
  nextUp,
  pseudoPosteriorPrivacy,
} from "../../src/mechanisms/privacy.ts";
import { Rng } from "../../src/random/rng.ts";

/** A float64 as the exact rational num·2^exp (BigInt arithmetic: the independent reference). */
type Exact = { num: bigint; exp: number };

function exact(x: number): Exact {
  assert.ok(Number.isFinite(x));
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const sign = bits >> 63n ? -1n : 1n;
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  return { num: sign * mantissa, exp: (biased === 0 ? 1 : biased) - 1075 };
}

function align(a: Exact, b: Exact): [bigint, bigint, number] {
  const exp = Math.min(a.exp, b.exp);
  return [a.num << BigInt(a.exp - exp), b.num << BigInt(b.exp - exp), exp];
}

function exactAdd(a: Exact, b: Exact): Exact {
  const [x, y, exp] = align(a, b);
  return { num: x + y, exp };
}

function exactMul(a: Exact, b: Exact): Exact {
  return { num: a.num * b.num, exp: a.exp + b.exp };
}

/** Sign of a − b. */
function compare(a: Exact, b: Exact): number {
  const [x, y] = align(a, b);
  return x > y ? 1 : x < y ? -1 : 0;
}

const nextDown = (x: number) => -nextUp(-x);

/** r is the least float64 ≥ the exact value. */
function assertRoundedUp(r: number, value: Exact, message: string): void {
  assert.ok(compare(exact(r), value) >= 0, `${message}: ${r} is below the exact value`);
  assert.ok(compare(exact(nextDown(r)), value) < 0, `${message}: ${r} is not the least above`);
}

Deno.test("`nextUp()` steps to the adjacent float64 above", () => {
  assert.ok(nextUp(1) > 1);
  assert.equal(nextUp(1), 1 + Number.EPSILON);
  assert.equal(nextUp(-1), -1 + Number.EPSILON / 2);
  assert.equal(nextUp(0), Number.MIN_VALUE);
  assert.equal(nextUp(-0), Number.MIN_VALUE);
  assert.ok(Object.is(nextUp(-Number.MIN_VALUE), -0));
  assert.equal(nextUp(Number.MAX_VALUE), Infinity);
  assert.equal(nextUp(-Infinity), -Number.MAX_VALUE);
  assert.equal(nextUp(Infinity), Infinity);
  assert.ok(Number.isNaN(nextUp(NaN)));
  // No float64 lies strictly between x and nextUp(x): their midpoint rounds to one of them.
  const rng = new Rng(5);
  for (let k = 0; k < 1000; k++) {
    const x = (rng.uniform() - 0.5) * 2 ** Math.floor(rng.uniform() * 200 - 100);
    const up = nextUp(x);
    assert.ok(up > x, `${x}`);
    const mid = x / 2 + up / 2;
    assert.ok(mid === x || mid === up, `${x}`);
  }
});

Deno.test("`addUp()` is the least float64 at or above the exact sum", () => {
  const cases: [number, number][] = [
    [0.1, 0.2],
    [1, 2 ** -53],
    [1, 2 ** -60],
    [1, -(2 ** -60)],
    [1e16, 1],
    [2 ** 53, 1],
    [0.3, -0.1],
    [5, 7],
  ];
  const rng = new Rng(11);
  for (let k = 0; k < 2000; k++) {
    const scale = () => 2 ** Math.floor(rng.uniform() * 120 - 60);
    cases.push([(rng.uniform() - 0.3) * scale(), (rng.uniform() - 0.3) * scale()]);
  }
  for (const [a, b] of cases) {
    assertRoundedUp(addUp(a, b), exactAdd(exact(a), exact(b)), `${a} + ${b}`);
  }
});

Deno.test("`mulUp()` is the least float64 at or above the exact product", () => {
  const cases: [number, number][] = [[0.1, 3], [2, 0.1], [1 / 3, 3], [0.1, 0.1], [1.5, 4]];
  const rng = new Rng(13);
  for (let k = 0; k < 2000; k++) {
    const scale = () => 2 ** Math.floor(rng.uniform() * 120 - 60);
    cases.push([(rng.uniform() - 0.3) * scale(), Math.ceil(rng.uniform() * 1000) * scale()]);
  }
  for (const [a, b] of cases) {
    assertRoundedUp(mulUp(a, b), exactMul(exact(a), exact(b)), `${a} · ${b}`);
  }
  // Outside the error-free range the product still never rounds down.
  const tiny = 2 ** -600;
  assert.ok(compare(exact(mulUp(tiny, 0.1)), exactMul(exact(tiny), exact(0.1))) >= 0);
  assert.equal(mulUp(0, 5), 0);
});

Deno.test("`composeEpsilon()` never falls below the exact rational sum", () => {
  const lists: number[][] = [
    [0.1, 0.2],
    Array(10).fill(0.1),
    [1, 2 ** -53, 2 ** -53],
    [1e16, 1, 1, 1],
  ];
  const rng = new Rng(17);
  for (let k = 0; k < 50; k++) {
    lists.push(Array.from({ length: 200 }, () => rng.uniform() * 2 ** (rng.uniform() * 40 - 20)));
  }
  for (const list of lists) {
    const total = composeEpsilon(list);
    let sum: Exact = { num: 0n, exp: 0 };
    let plain = 0;
    for (const e of list) {
      sum = exactAdd(sum, exact(e));
      plain += e;
    }
    assert.ok(compare(exact(total), sum) >= 0, `${list.slice(0, 3)}…`);
    assert.ok(total <= plain * (1 + 1e-12), "not needlessly loose");
  }
  assert.ok(composeEpsilon([0.1, 0.2]) > 0.3);
  assert.equal(composeEpsilon([]), 0);
  assert.equal(composeEpsilon(new Float64Array([1, 2])), 3);
});

Deno.test("`composeEpsilon()` refuses NaN, negative and infinite charges", () => {
  assert.throws(() => composeEpsilon([1, NaN]), { name: "RangeError", message: /entry 1/ });
  assert.throws(() => composeEpsilon([-0.5]), /entry 0/);
  assert.throws(() => composeEpsilon([Infinity]), /entry 0/);
});

Deno.test("privacy maps give 2Δ and 2Δm (aDP), 2C and 2Cm (DP), ε for the histogram", () => {
  assert.deepEqual(pseudoPosteriorPrivacy(1.5, 3), {
    guarantee: "aDP",
    epsilonPerDataset: 3,
    epsilon: 9,
  });
  assert.deepEqual(pseudoPosteriorPrivacy(0, 5), {
    guarantee: "aDP",
    epsilonPerDataset: 0,
    epsilon: 0,
  });
  assert.deepEqual(censoredPrivacy(2.5, 2), { guarantee: "DP", epsilonPerDataset: 5, epsilon: 10 });
  assert.deepEqual(histogramPrivacy(5), { guarantee: "DP", epsilonPerDataset: 5, epsilon: 5 });
  // Inexact products are rounded up: 2·Δ·m ≥ the exact value for Δ = 0.1 (a double just above
  // 1/10) and m = 3, where plain 0.2·3 rounds.
  const loss = pseudoPosteriorPrivacy(0.1, 3);
  const exactTotal = exactMul(exactMul(exact(2), exact(0.1)), exact(3));
  assert.ok(compare(exact(loss.epsilon), exactTotal) >= 0);
  assertRoundedUp(
    censoredPrivacy(0.7, 3).epsilon,
    exactMul(exactMul(exact(2), exact(0.7)), exact(3)),
    "2C·m",
  );
});

Deno.test("privacy maps reject NaN, negative and infinite inputs naming them", () => {
  assert.throws(() => pseudoPosteriorPrivacy(NaN, 1), {
    name: "RangeError",
    message: /lipschitz=NaN/,
  });
  assert.throws(() => pseudoPosteriorPrivacy(-1, 1), /lipschitz=-1/);
  assert.throws(() => pseudoPosteriorPrivacy(Infinity, 1), /lipschitz=Infinity/);
  assert.throws(() => pseudoPosteriorPrivacy(1, 0), /m=0/);
  assert.throws(() => pseudoPosteriorPrivacy(1, 2.5), /m=2.5/);
  assert.throws(() => censoredPrivacy(0, 1), /censor=0/);
  assert.throws(() => censoredPrivacy(Infinity, 1), /censor=Infinity/);
  assert.throws(() => censoredPrivacy(1, -1), /m=-1/);
  assert.throws(() => histogramPrivacy(-2), /epsilon=-2/);
  assert.throws(() => histogramPrivacy(NaN), /epsilon=NaN/);
});
