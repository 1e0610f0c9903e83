import assert from "node:assert/strict";
import { MAX_PHILOX_BLOCKS, philoxBlocks } from "../../src/random/philox_blocks.ts";
import { philox4x32, Rng } from "../../src/random/rng.ts";

const TWO32 = 2 ** 32;

/** A small deterministic source of test words, independent of the code under test. */
function* testWords(seed: number): Generator<number> {
  let x = seed >>> 0;
  for (;;) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    yield x;
  }
}

/**
 * The documented `Rng`, one reference block at a time: word j of block i is
 * philox4x32((i mod 2³², ⌊i/2³²⌋, s₀, s₁), (k₀, k₁))[j]; uniform and normal as documented.
 */
class ReferenceRng {
  #block = 0;
  #words: Uint32Array = new Uint32Array(0);
  #next = 4;
  #spare: number | null = null;
  constructor(readonly key: readonly number[], readonly stream: readonly number[]) {}
  static of(seed: number, stream: number): ReferenceRng {
    const words = (v: number) => [v >>> 0, Math.floor(v / TWO32) >>> 0];
    return new ReferenceRng(words(seed), words(stream));
  }
  /** The child of `Rng.split(j)`: the words of philox4x32((j words, s₀, s₁), key ⊕ masks). */
  split(j: number): ReferenceRng {
    // The domain-separation masks of rng.ts's split (SPLIT_KEY0, SPLIT_KEY1).
    const key = [(this.key[0] ^ 0x73706c69) >>> 0, (this.key[1] ^ 0x8074696c) >>> 0];
    const w = philox4x32([j >>> 0, Math.floor(j / TWO32), ...this.stream], key);
    return new ReferenceRng([w[0], w[1]], [w[2], w[3]]);
  }
  nextUint32(): number {
    if (this.#next === 4) {
      const i = this.#block++;
      this.#words = philox4x32([i >>> 0, Math.floor(i / TWO32), ...this.stream], this.key);
      this.#next = 0;
    }
    return this.#words[this.#next++];
  }
  uniform(): number {
    for (;;) {
      const u = ((this.nextUint32() >>> 5) * 2 ** 26 + (this.nextUint32() >>> 6)) * 2 ** -53;
      if (u > 0) return u;
    }
  }
  normal(): number {
    if (this.#spare !== null) {
      const z = this.#spare;
      this.#spare = null;
      return z;
    }
    const r = Math.sqrt(-2 * Math.log(this.uniform()));
    const theta = 2 * Math.PI * this.uniform();
    this.#spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  }
}

Deno.test("`philoxBlocks()` equals `philox4x32()` block by block, the block number carrying", () => {
  const words = testWords(7);
  const w = () => words.next().value as number;
  const starts: [number, number][] = [
    [0, 0],
    [0xfffffff0, 0], // low word wraps inside the run: carry into the high word
    [0xffffffff, 0x12345678],
    [0xffffffc0, 0xffffffff], // the 64-bit block number wraps to 0
    [w(), w()],
  ];
  for (const [lo, hi] of starts) {
    for (const count of [1, 2, 3, 17, 64, MAX_PHILOX_BLOCKS]) {
      const c2 = w(), c3 = w(), k0 = w(), k1 = w();
      const out = new Uint32Array(4 * count);
      philoxBlocks(out, count, lo, hi, c2, c3, k0, k1);
      for (let i = 0; i < count; i++) {
        const block = lo + i;
        const counter = [block >>> 0, (hi + Math.floor(block / TWO32)) >>> 0, c2, c3];
        assert.deepEqual(
          [...out.subarray(4 * i, 4 * i + 4)],
          [...philox4x32(counter, [k0, k1])],
          `start ${lo}, ${hi}, count ${count}, block ${i}`,
        );
      }
    }
  }
});

Deno.test("`philoxBlocks()` rejects counts it cannot write", () => {
  for (const [count, length] of [[0, 4], [2, 4], [1.5, 8], [MAX_PHILOX_BLOCKS + 1, 1e5]]) {
    assert.throws(() => philoxBlocks(new Uint32Array(length), count, 0, 0, 0, 0, 0, 0), {
      name: "RangeError",
      message: new RegExp(`count=${count}`),
    });
  }
});

Deno.test("`Rng` words, uniforms and normals equal the one-block-at-a-time reference", () => {
  const words = testWords(11);
  const w = () => words.next().value as number;
  const seeds = [0, 1, 42, 2 ** 32 - 1, 2 ** 32, 2 ** 52 + 12345, Number.MAX_SAFE_INTEGER];
  for (const seed of seeds) {
    for (const stream of [0, 3, 2 ** 33 + 7]) {
      const pairs: [Rng, ReferenceRng][] = [[new Rng(seed, stream), ReferenceRng.of(seed, stream)]];
      for (const j of [0, 5, 2 ** 40 + 1]) {
        pairs.push([pairs[0][0].split(j), pairs[0][1].split(j)]);
        pairs.push([pairs[0][0].split(j).split(j + 1), pairs[0][1].split(j).split(j + 1)]);
      }
      for (const [rng, reference] of pairs) {
        // A mix of calls long enough to cross several runs of the buffer (up to 64 blocks).
        for (let i = 0; i < 700; i++) {
          const call = w() % 3;
          if (call === 0) assert.equal(rng.nextUint32(), reference.nextUint32());
          else if (call === 1) assert.equal(rng.uniform(), reference.uniform());
          else assert.equal(rng.normal(), reference.normal());
        }
      }
    }
  }
});

Deno.test("`split()` is the same after any number of draws", () => {
  const first = new Rng(99, 4).split(6).nextUint32();
  for (const draws of [1, 3, 4, 5, 255, 256, 257, 1000]) {
    const parent = new Rng(99, 4);
    for (let i = 0; i < draws; i++) parent.nextUint32();
    const child = parent.split(6);
    const again = new Rng(99, 4).split(6);
    for (let i = 0; i < 300; i++) {
      const word = child.nextUint32();
      assert.equal(word, again.nextUint32(), `after ${draws} draws, word ${i}`);
      if (i === 0) assert.equal(word, first);
    }
  }
});
