import assert from "node:assert/strict";
import { erf } from "mathjs";
import { philox4x32, Rng } from "../../src/random/rng.ts";
import { correlation } from "../../src/stats/correlation.ts";
import { ksTest, momentsWithin } from "./_stats.ts";

const hex = (words: ArrayLike<number>) =>
  Array.from(words, (w) => w.toString(16).padStart(8, "0")).join(" ");

Deno.test("`philox4x32()` matches the Random123 known-answer vectors", () => {
  // Random123 kat_vectors, philox4x32 with 10 rounds.
  assert.equal(
    hex(philox4x32([0, 0, 0, 0], [0, 0])),
    "6627e8d5 e169c58d bc57ac4c 9b00dbd8",
  );
  assert.equal(
    hex(philox4x32([0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff], [0xffffffff, 0xffffffff])),
    "408f276d 41c83b0e a20bc7c6 6d5451fd",
  );
  assert.equal(
    hex(philox4x32([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0])),
    "d16cfe09 94fdcceb 5001e420 24126ea1",
  );
});

Deno.test("`philox4x32()` rejects counters and keys of the wrong length", () => {
  assert.throws(() => philox4x32([0, 0, 0], [0, 0]), { name: "RangeError", message: /counter/ });
  assert.throws(() => philox4x32([0, 0, 0, 0], [0]), { name: "RangeError", message: /key/ });
});

Deno.test("`Rng` words are Philox blocks at key = seed words, counter = (block, stream)", () => {
  const zero = new Rng(0, 0);
  assert.equal(
    hex([0, 1, 2, 3].map(() => zero.nextUint32())),
    "6627e8d5 e169c58d bc57ac4c 9b00dbd8",
  );

  // Word splitting of 53-bit seeds and streams, computed independently with BigInt.
  const seed = 2 ** 52 + 2 ** 40 + 12345;
  const stream = 2 ** 33 + 7;
  const lo = (v: number) => Number(BigInt(v) & 0xffffffffn);
  const hi = (v: number) => Number(BigInt(v) >> 32n);
  const key = [lo(seed), hi(seed)];
  const rng = new Rng(seed, stream);
  for (let block = 0; block < 3; block++) {
    const expected = philox4x32([block, 0, lo(stream), hi(stream)], key);
    const got = [rng.nextUint32(), rng.nextUint32(), rng.nextUint32(), rng.nextUint32()];
    assert.deepEqual(got, [...expected], `block ${block}`);
  }
});

Deno.test("`Rng` rejects seeds and streams that are not non-negative safe integers", () => {
  for (const bad of [-1, 1.5, Number.NaN, Infinity, 2 ** 53]) {
    assert.throws(() => new Rng(bad), { name: "RangeError", message: new RegExp(`seed=${bad}`) });
    assert.throws(() => new Rng(1, bad), {
      name: "RangeError",
      message: new RegExp(`stream=${bad}`),
    });
    assert.throws(() => new Rng(1).split(bad), {
      name: "RangeError",
      message: new RegExp(`stream=${bad}`),
    });
  }
  assert.doesNotThrow(() => new Rng(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
});

Deno.test("`Rng` reproduces the same sequence from the same seed and stream", () => {
  const a = new Rng(20240611, 3);
  const b = new Rng(20240611, 3);
  for (let i = 0; i < 1000; i++) {
    assert.equal(a.nextUint32(), b.nextUint32());
    assert.equal(a.uniform(), b.uniform());
    assert.equal(a.normal(), b.normal());
  }
});

Deno.test("`Rng` gives different sequences for different seeds and streams", () => {
  const firstWords = (rng: Rng) => hex(Array.from({ length: 8 }, () => rng.nextUint32()));
  const seen = new Set([
    firstWords(new Rng(1, 0)),
    firstWords(new Rng(1, 1)),
    firstWords(new Rng(2, 0)),
    firstWords(new Rng(2 ** 32, 0)),
    firstWords(new Rng(0, 2 ** 32)),
    firstWords(new Rng(1).split(0)),
    firstWords(new Rng(1).split(1)),
    firstWords(new Rng(1, 1).split(0)),
  ]);
  assert.equal(seen.size, 8);
});

Deno.test("`nextUint32()` returns integers in [0, 2^32) with balanced bits", () => {
  const rng = new Rng(7);
  const n = 40000;
  const ones = new Float64Array(32);
  for (let i = 0; i < n; i++) {
    const w = rng.nextUint32();
    assert.ok(Number.isInteger(w) && w >= 0 && w < 2 ** 32);
    for (let bit = 0; bit < 32; bit++) ones[bit] += (w >>> bit) & 1;
  }
  // Each bit is Bernoulli(1/2): SE of the count is √n/2.
  for (let bit = 0; bit < 32; bit++) {
    assert.ok(Math.abs(ones[bit] - n / 2) < 5 * Math.sqrt(n) / 2, `bit ${bit}: ${ones[bit]}`);
  }
});

Deno.test("`uniform()` lies in (0, 1) on the 2^-53 grid and passes a KS test", () => {
  const rng = new Rng(11);
  const n = 100000;
  const sample = new Float64Array(n);
  let odd = 0;
  for (let i = 0; i < n; i++) {
    const u = rng.uniform();
    assert.ok(u > 0 && u < 1, `u=${u}`);
    const k = u * 2 ** 53;
    assert.ok(Number.isInteger(k), `u=${u} is not a multiple of 2^-53`);
    odd += k % 2;
    sample[i] = u;
  }
  assert.ok(Math.abs(odd - n / 2) < 5 * Math.sqrt(n) / 2, `lowest bit set ${odd} times`);
  const fit = ksTest(sample, (x) => x);
  assert.ok(fit.pValue > 1e-4, `KS D=${fit.statistic}, p=${fit.pValue}`);
  const moments = momentsWithin(sample, 0.5, 1 / 12);
  assert.ok(moments.ok, moments.detail);
});

Deno.test("`normal()` passes a KS test against Φ and matches N(0, 1) moments", () => {
  const rng = new Rng(13, 2);
  const n = 100000;
  const sample = new Float64Array(n);
  for (let i = 0; i < n; i++) sample[i] = rng.normal();
  const fit = ksTest(sample, (x) => 0.5 * (1 + erf(x / Math.SQRT2)));
  assert.ok(fit.pValue > 1e-4, `KS D=${fit.statistic}, p=${fit.pValue}`);
  const moments = momentsWithin(sample, 0, 1);
  assert.ok(moments.ok, moments.detail);
});

Deno.test("`Rng` streams, split children and lags are uncorrelated", () => {
  const n = 50000;
  const draw = (rng: Rng) => Float64Array.from({ length: n }, () => rng.uniform());
  const parent = new Rng(99);
  const streams = [
    draw(new Rng(99, 0)),
    draw(new Rng(99, 1)),
    draw(new Rng(100, 0)),
    draw(parent.split(0)),
    draw(parent.split(1)),
    draw(parent.split(0).split(0)),
  ];
  // Under independence the correlation is ≈ N(0, 1/n).
  const bound = 5 / Math.sqrt(n);
  for (let i = 0; i < streams.length; i++) {
    for (let j = i + 1; j < streams.length; j++) {
      const r = correlation(streams[i], streams[j]);
      assert.ok(Math.abs(r) < bound, `streams ${i} and ${j}: r=${r}`);
    }
    const lag1 = correlation(streams[i].subarray(1), streams[i].subarray(0, n - 1));
    assert.ok(Math.abs(lag1) < bound, `stream ${i} lag 1: r=${lag1}`);
  }
});

Deno.test("`split()` depends only on the parent's seed, stream and the argument", () => {
  const parent = new Rng(5, 1);
  const before = parent.split(3).nextUint32();
  for (let i = 0; i < 10; i++) parent.uniform();
  assert.equal(parent.split(3).nextUint32(), before);
  assert.equal(new Rng(5, 1).split(3).nextUint32(), before);
  assert.notEqual(new Rng(5, 2).split(3).nextUint32(), before);
  assert.notEqual(new Rng(6, 1).split(3).nextUint32(), before);
});

Deno.test("nested `split()` (seed → chain → replicate) gives no repeated 64-bit prefixes", () => {
  const seen = new Set<string>();
  for (let seed = 0; seed < 3; seed++) {
    const root = new Rng(seed);
    for (let chain = 0; chain < 40; chain++) {
      const chainRng = root.split(chain);
      seen.add(hex([chainRng.nextUint32(), chainRng.nextUint32()]));
      for (let replicate = 0; replicate < 40; replicate++) {
        const child = root.split(chain).split(replicate);
        seen.add(hex([child.nextUint32(), child.nextUint32()]));
      }
    }
    const plain = new Rng(seed, 0);
    seen.add(hex([plain.nextUint32(), plain.nextUint32()]));
  }
  assert.equal(seen.size, 3 * (40 + 40 * 40 + 1));
});
