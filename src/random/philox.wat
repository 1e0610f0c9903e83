;; Philox4x32-10 (Salmon, Moraes, Dror & Shaw 2011, "Parallel random numbers: as easy as 1, 2, 3")
;; for a run of consecutive blocks, bit-identical to `philox4x32` of src/random/rng.ts.
;;
;; `fill(count, c0, c1, c2, c3, k0, k1)` writes the four words of the blocks at counters
;; (c0 + i mod 2³², c1 + carry, c2, c3), i = 0 … count − 1 (the 64-bit block number c0 + 2³²·c1
;; counts up, its high word wrapping at 2³²), to bytes 0 … 16·count − 1 of the memory. Each of the
;; ten rounds, with the key bumped by (W0, W1) after it:
;;
;;   (c0, c1, c2, c3) ← (hi(M1·c2) ⊕ c1 ⊕ k0, lo(M1·c2), hi(M0·c0) ⊕ c3 ⊕ k1, lo(M0·c0)),
;;
;; where the 64-bit product of two u32 gives hi and lo directly.
(module
  (import "env" "memory" (memory 1))

  (func (export "fill")
    (param $count i32) (param $c0 i32) (param $c1 i32) (param $c2 i32) (param $c3 i32)
    (param $k0 i32) (param $k1 i32)
    (local $at i32) (local $end i32) (local $round i32)
    (local $x0 i32) (local $x1 i32) (local $x2 i32) (local $x3 i32)
    (local $y0 i32) (local $y1 i32) (local $p0 i64) (local $p1 i64)
    (local.set $end (i32.shl (local.get $count) (i32.const 4)))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
        (local.set $x0 (local.get $c0))
        (local.set $x1 (local.get $c1))
        (local.set $x2 (local.get $c2))
        (local.set $x3 (local.get $c3))
        (local.set $y0 (local.get $k0))
        (local.set $y1 (local.get $k1))
        (local.set $round (i32.const 10))
        (loop $rounds
          ;; p0 = M0·x0, p1 = M1·x2
          (local.set $p0 (i64.mul (i64.const 0xD2511F53) (i64.extend_i32_u (local.get $x0))))
          (local.set $p1 (i64.mul (i64.const 0xCD9E8D57) (i64.extend_i32_u (local.get $x2))))
          (local.set $x0
            (i32.xor (i32.wrap_i64 (i64.shr_u (local.get $p1) (i64.const 32)))
              (i32.xor (local.get $x1) (local.get $y0))))
          (local.set $x1 (i32.wrap_i64 (local.get $p1)))
          (local.set $x2
            (i32.xor (i32.wrap_i64 (i64.shr_u (local.get $p0) (i64.const 32)))
              (i32.xor (local.get $x3) (local.get $y1))))
          (local.set $x3 (i32.wrap_i64 (local.get $p0)))
          ;; Weyl key increments W0, W1
          (local.set $y0 (i32.add (local.get $y0) (i32.const 0x9E3779B9)))
          (local.set $y1 (i32.add (local.get $y1) (i32.const 0xBB67AE85)))
          (local.set $round (i32.sub (local.get $round) (i32.const 1)))
          (br_if $rounds (local.get $round)))
        (i32.store offset=0 (local.get $at) (local.get $x0))
        (i32.store offset=4 (local.get $at) (local.get $x1))
        (i32.store offset=8 (local.get $at) (local.get $x2))
        (i32.store offset=12 (local.get $at) (local.get $x3))
        ;; next block: c0 + 1, carrying into c1
        (local.set $c0 (i32.add (local.get $c0) (i32.const 1)))
        (if (i32.eqz (local.get $c0))
          (then (local.set $c1 (i32.add (local.get $c1) (i32.const 1)))))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $blocks)))))
