;; The record loops of the logistic (src/models/logistic.ts) and categorical
;; (src/models/categorical.ts) models in WebAssembly SIMD, two records per f64x2 vector.
;;
;; Logistic, with s = 2y − 1, t = s·η and e = exp(−|t|):
;;
;;   ℓ = log logit⁻¹(t) = min(t, 0) − log1p(e),
;;   ∂ℓ/∂η = s·logit⁻¹(−t),                    logit⁻¹(−t) = t ≥ 0 ? e/(1+e) : 1/(1+e).
;;
;; Categorical, L levels, η_0 = 0, η_l = x·β_l, m = max(0, max_l η_l), top the first level with
;; η_l = m and rest = Σ_{l ≠ top} e^{η_l − m}:
;;
;;   ℓ = (η_y − m) − log1p(rest),
;;   ∂ℓ/∂β_lj = x_j·(1[y = l] − p_l),          p_l = e^{η_l − m}/(1 + rest).
;;
;; exp and log1p are evaluated here (range reduction and polynomial, under one ulp each).
;;
;; Records go by blocks of BLOCK, each in short passes (the linear predictors; the exponentials; the
;; record terms; the coefficient gradient), which keeps every loop body small enough for the
;; processor to overlap many iterations. The caller owns the memory and sets the byte offsets once
;; (`layout`):
;;
;;   coef   (L−1)·k f64    the coefficients β_1, …, β_{L−1} (logistic: β) of the current call
;;   grad   (L−1)·k f64    out: Σ g_il·x_ij in the layout of coef
;;   buf    B·BLOCK f64    scratch, B buffers of BLOCK records, BLOCK·8 bytes apart: logistic
;;                         B = 2 (t, e); categorical B = L + 3 (L − 1 levels, M, R, F, Y)
;;   y      n f64          logistic: s = ±1; categorical: the level code y
;;   alpha, out  n f64     the weights α; out: ℓ
;;   x      columns 1..k−1 of the design, column-major, `stride` f64 apart
;;
;; Every per-record array has n + 1 entries or more (a final odd record's second lane reads a
;; finite value) and starts at a multiple of 16 bytes. Records whose outcome is not a level's code
;; are the caller's: it gives them α = 0 here.
(module
  (import "env" "memory" (memory 1))

  ;; Records per block (even).
  (global $BLOCK (export "BLOCK") i32 (i32.const 512))

  ;; Constants, the same in both lanes. E2..E11: Chebyshev interpolant of degree 9 to
  ;; (e^r − 1 − r)/r² on [−ln 2/2, ln 2/2] (mpmath's chebyfit); LG1..LG7: fdlibm's log
  ;; polynomial (as in negbin_simd.wat).
  (global $ZERO v128 (v128.const f64x2 0 0))
  (global $HALF v128 (v128.const f64x2 0.5 0.5))
  (global $ONE v128 (v128.const f64x2 1 1))
  (global $TWO v128 (v128.const f64x2 2 2))
  (global $LN2HI v128 (v128.const f64x2 6.93147180369123816490e-01 6.93147180369123816490e-01))
  (global $LN2LO v128 (v128.const f64x2 1.90821492927058770002e-10 1.90821492927058770002e-10))
  (global $LOG2E v128 (v128.const f64x2 1.4426950408889634 1.4426950408889634))
  (global $SHIFT v128 (v128.const f64x2 6755399441055744 6755399441055744))
  (global $EXP_BIAS v128 (v128.const i64x2 0x4337fffffffffc01 0x4337fffffffffc01))
  (global $EXP_MIN v128 (v128.const f64x2 -708 -708))
  (global $E2 v128 (v128.const f64x2 0.5000000000000001 0.5000000000000001))
  (global $E3 v128 (v128.const f64x2 0.16666666666666669 0.16666666666666669))
  (global $E4 v128 (v128.const f64x2 0.041666666666624164 0.041666666666624164))
  (global $E5 v128 (v128.const f64x2 0.008333333333330065 0.008333333333330065))
  (global $E6 v128 (v128.const f64x2 0.0013888888917196719 0.0013888888917196719))
  (global $E7 v128 (v128.const f64x2 0.00019841269863040545 0.00019841269863040545))
  (global $E8 v128 (v128.const f64x2 2.4801521322368692e-05 2.4801521322368692e-05))
  (global $E9 v128 (v128.const f64x2 2.7557268480310024e-06 2.7557268480310024e-06))
  (global $E10 v128 (v128.const f64x2 2.7620075879983367e-07 2.7620075879983367e-07))
  (global $E11 v128 (v128.const f64x2 2.5100375832561234e-08 2.5100375832561234e-08))
  (global $SQRT2_M1 v128 (v128.const f64x2 0.41421356237309503 0.41421356237309503))
  ;; log1p's reduction of u = 1 + x to 2^k·(1 + f), 1 + f ∈ [√2/2, √2): the offset that moves
  ;; u's exponent up by one from √2 on, the mantissa mask, the bits of √2/2 and 2⁵² + 1023.
  (global $LOG_OFFSET v128 (v128.const i64x2 0x00095f6200000000 0x00095f6200000000))
  (global $MANTISSA v128 (v128.const i64x2 0x000fffffffffffff 0x000fffffffffffff))
  (global $HALF_SQRT2 v128 (v128.const i64x2 0x3fe6a09e00000000 0x3fe6a09e00000000))
  (global $TWO52 v128 (v128.const i64x2 0x4330000000000000 0x4330000000000000))
  (global $K_BIAS v128 (v128.const f64x2 4503599627371519 4503599627371519))
  (global $LG1 v128 (v128.const f64x2 6.666666666666735130e-01 6.666666666666735130e-01))
  (global $LG2 v128 (v128.const f64x2 3.999999999940941908e-01 3.999999999940941908e-01))
  (global $LG3 v128 (v128.const f64x2 2.857142874366239149e-01 2.857142874366239149e-01))
  (global $LG4 v128 (v128.const f64x2 2.222219843214978396e-01 2.222219843214978396e-01))
  (global $LG5 v128 (v128.const f64x2 1.818357216161805012e-01 1.818357216161805012e-01))
  (global $LG6 v128 (v128.const f64x2 1.531383769920937332e-01 1.531383769920937332e-01))
  (global $LG7 v128 (v128.const f64x2 1.479819860511658591e-01 1.479819860511658591e-01))

  (global $n (mut i32) (i32.const 0))
  (global $k (mut i32) (i32.const 0))
  (global $levels (mut i32) (i32.const 0))
  (global $stride (mut i32) (i32.const 0))
  (global $coef (mut i32) (i32.const 0))
  (global $grad (mut i32) (i32.const 0))
  (global $buf (mut i32) (i32.const 0))
  (global $y (mut i32) (i32.const 0))
  (global $alpha (mut i32) (i32.const 0))
  (global $out (mut i32) (i32.const 0))
  (global $x (mut i32) (i32.const 0))

  ;; Sets n, k, L, the column stride and the byte offsets of the header's arrays.
  (func (export "layout")
    (param $n i32) (param $k i32) (param $levels i32) (param $stride i32) (param $coef i32)
    (param $grad i32) (param $buf i32) (param $y i32) (param $alpha i32) (param $out i32)
    (param $x i32)
    (global.set $n (local.get $n))
    (global.set $k (local.get $k))
    (global.set $levels (local.get $levels))
    (global.set $stride (local.get $stride))
    (global.set $coef (local.get $coef))
    (global.set $grad (local.get $grad))
    (global.set $buf (local.get $buf))
    (global.set $y (local.get $y))
    (global.set $alpha (local.get $alpha))
    (global.set $out (local.get $out))
    (global.set $x (local.get $x)))

  ;; e^x for x ≤ 0, under one ulp (NaN stays NaN; 0 below −708, where e^x < 3.4e-308).
  ;; x = k·ln 2 + r with k = round(x/ln 2), |r| ≤ ln 2/2 (ln 2 in two parts, k·LN2HI exact);
  ;; e^r = 1 + r + r²·q(r), q of degree 9 (E2..E11, relative error 2e-17), and e^x = e^r·2^k with
  ;; 2^k built from k's bits (a normal number for x ≥ −708). The kernel of negbin_simd.wat.
  (func $expNeg (param $x v128) (result v128)
    (local $xc v128) (local $kd v128) (local $kf v128) (local $r v128) (local $r2 v128)
    (local $r4 v128)
    (local.set $xc (f64x2.pmax (local.get $x) (global.get $EXP_MIN)))
    ;; kd = x/ln 2 + 1.5·2⁵², rounded to an integer: its bits are 0x4338000000000000 + k.
    (local.set $kd
      (f64x2.add (f64x2.mul (local.get $xc) (global.get $LOG2E)) (global.get $SHIFT)))
    (local.set $kf (f64x2.sub (local.get $kd) (global.get $SHIFT)))
    (local.set $r
      (f64x2.sub
        (f64x2.sub (local.get $xc) (f64x2.mul (local.get $kf) (global.get $LN2HI)))
        (f64x2.mul (local.get $kf) (global.get $LN2LO))))
    (local.set $r2 (f64x2.mul (local.get $r) (local.get $r)))
    (local.set $r4 (f64x2.mul (local.get $r2) (local.get $r2)))
    (v128.andnot
      (f64x2.mul
        ;; 1 + (r + r²·q), q = (E2 + E3 r) + r²(E4 + E5 r)
        ;;                    + r⁴[(E6 + E7 r) + r²(E8 + E9 r) + r⁴(E10 + E11 r)]
        (f64x2.add
          (global.get $ONE)
          (f64x2.add
            (local.get $r)
            (f64x2.mul
              (local.get $r2)
              (f64x2.add
                (f64x2.add
                  (f64x2.add (global.get $E2) (f64x2.mul (local.get $r) (global.get $E3)))
                  (f64x2.mul
                    (local.get $r2)
                    (f64x2.add (global.get $E4) (f64x2.mul (local.get $r) (global.get $E5)))))
                (f64x2.mul
                  (local.get $r4)
                  (f64x2.add
                    (f64x2.add
                      (f64x2.add (global.get $E6) (f64x2.mul (local.get $r) (global.get $E7)))
                      (f64x2.mul
                        (local.get $r2)
                        (f64x2.add (global.get $E8) (f64x2.mul (local.get $r) (global.get $E9)))))
                    (f64x2.mul
                      (local.get $r4)
                      (f64x2.add
                        (global.get $E10)
                        (f64x2.mul (local.get $r) (global.get $E11))))))))))
        ;; 2^k: bits (0x4338000000000000 + k − (0x4338000000000000 − 1023)) << 52.
        (i64x2.shl (i64x2.sub (local.get $kd) (global.get $EXP_BIAS)) (i32.const 52)))
      (f64x2.lt (local.get $x) (global.get $EXP_MIN))))

  ;; log1p(x) for x ∈ [0, 2⁵³), under one ulp, given u = 1 + x (rounded) and inv = 1/u: fdlibm's
  ;; (musl's) log1p. Below √2 − 1, f = x and k = 0; above, u = 2^k·(1 + f) with 1 + f ∈ [√2/2, √2)
  ;; (exact, from u's bits) and c = (k ≥ 2 ? 1 − (u − x) : x − (u − 1))/u corrects the rounding
  ;; of u. With s = f/(2 + f), log(1 + f) = f − f²/2 + s·(f²/2 + R(s²)), R fdlibm's polynomial of
  ;; degree 7 in s² (error < 2⁻⁵⁸), and log1p(x) = k·ln 2 + c + log(1 + f).
  (func $log1p (param $x v128) (param $u v128) (param $inv v128) (result v128)
    (local $big v128) (local $ix v128) (local $f v128) (local $kf v128) (local $c v128)
    (local $s v128) (local $z v128) (local $w v128) (local $r v128) (local $hfsq v128)
    (local.set $big (f64x2.ge (local.get $x) (global.get $SQRT2_M1)))
    ;; ix: u's bits with the exponent one up from √2 on; k = (ix >> 52) − 1023 by way of the
    ;; double 2⁵² + (ix >> 52), and 1 + f the mantissa of ix under the exponent of √2/2.
    (local.set $ix (i64x2.add (local.get $u) (global.get $LOG_OFFSET)))
    (local.set $kf
      (v128.and
        (local.get $big)
        (f64x2.sub
          (v128.or (i64x2.shr_u (local.get $ix) (i32.const 52)) (global.get $TWO52))
          (global.get $K_BIAS))))
    (local.set $f
      (v128.bitselect
        (f64x2.sub
          (i64x2.add (v128.and (local.get $ix) (global.get $MANTISSA)) (global.get $HALF_SQRT2))
          (global.get $ONE))
        (local.get $x)
        (local.get $big)))
    (local.set $c
      (v128.and
        (local.get $big)
        (f64x2.mul
          (v128.bitselect
            (f64x2.sub (global.get $ONE) (f64x2.sub (local.get $u) (local.get $x)))
            (f64x2.sub (local.get $x) (f64x2.sub (local.get $u) (global.get $ONE)))
            (f64x2.ge (local.get $kf) (global.get $TWO)))
          (local.get $inv))))
    (local.set $s
      (f64x2.div (local.get $f) (f64x2.add (global.get $TWO) (local.get $f))))
    (local.set $z (f64x2.mul (local.get $s) (local.get $s)))
    (local.set $w (f64x2.mul (local.get $z) (local.get $z)))
    (local.set $r
      (f64x2.add
        (f64x2.mul (local.get $z)
          (f64x2.add
            (global.get $LG1)
            (f64x2.mul (local.get $w)
              (f64x2.add
                (global.get $LG3)
                (f64x2.mul (local.get $w)
                  (f64x2.add
                    (global.get $LG5)
                    (f64x2.mul (local.get $w)
                      (global.get $LG7))))))))
        (f64x2.mul (local.get $w)
          (f64x2.add
            (global.get $LG2)
            (f64x2.mul (local.get $w)
              (f64x2.add
                (global.get $LG4)
                (f64x2.mul (local.get $w)
                  (global.get $LG6))))))))
    (local.set $hfsq (f64x2.mul (global.get $HALF) (f64x2.mul (local.get $f) (local.get $f))))
    ;; k·LN2HI − ((hfsq − (s·(hfsq + R) + (k·LN2LO + c))) − f)
    (f64x2.sub
      (f64x2.mul (local.get $kf)
        (global.get $LN2HI))
      (f64x2.sub
        (f64x2.sub
          (local.get $hfsq)
          (f64x2.add
            (f64x2.mul (local.get $s) (f64x2.add (local.get $hfsq) (local.get $r)))
            (f64x2.add
              (f64x2.mul (local.get $kf)
                (global.get $LN2LO))
              (local.get $c))))
        (local.get $f))))

  ;; dst[r] = η_r = row[0] + Σ_{j≥1} x_rj·row[j] (summed in the order of the TypeScript loops) for
  ;; the records from `from` on, `end` bytes of dst (whole pairs); row: a coefficient row's bytes.
  (func $predict (param $row i32) (param $dst i32) (param $from i32) (param $end i32)
    (local $o i32) (local $j i32) (local $col i32) (local $cj v128)
    (local.set $cj (v128.load64_splat (local.get $row)))
    (local.set $o (i32.const 0))
    (loop $fill
      (v128.store (i32.add (local.get $dst) (local.get $o)) (local.get $cj))
      (br_if $fill
        (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
    (local.set $j (i32.const 1))
    (block $columnsDone
      (loop $columns
        (br_if $columnsDone (i32.ge_u (local.get $j) (global.get $k)))
        (local.set $cj
          (v128.load64_splat (i32.add (local.get $row) (i32.shl (local.get $j) (i32.const 3)))))
        (local.set $col (call $column (local.get $j) (local.get $from)))
        (local.set $o (i32.const 0))
        (loop $rows
          (v128.store
            (i32.add (local.get $dst) (local.get $o))
            (f64x2.add
              (v128.load (i32.add (local.get $dst) (local.get $o)))
              (f64x2.mul (v128.load (i32.add (local.get $col) (local.get $o))) (local.get $cj))))
          (br_if $rows
            (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $columns))))

  ;; The byte address of x_rj, j ≥ 1, r = from.
  (func $column (param $j i32) (param $from i32) (result i32)
    (i32.add
      (global.get $x)
      (i32.shl
        (i32.add
          (i32.mul (i32.sub (local.get $j) (i32.const 1)) (global.get $stride))
          (local.get $from))
        (i32.const 3))))

  ;; The sum of a vector's two lanes.
  (func $lanes (param $v v128) (result f64)
    (f64.add (f64x2.extract_lane 0 (local.get $v)) (f64x2.extract_lane 1 (local.get $v))))

  ;; row[0] += Σ_r g_r and row[j] += Σ_r g_r·x_rj over the records from `from` on, `end` bytes of
  ;; g (whole pairs; a final odd record's second lane has g = 0); row: a gradient row's bytes.
  (func $accumulate (param $g i32) (param $row i32) (param $from i32) (param $end i32)
    (local $o i32) (local $j i32) (local $col i32) (local $at i32) (local $acc v128)
    (local.set $acc (global.get $ZERO))
    (local.set $o (i32.const 0))
    (loop $sum
      (local.set $acc
        (f64x2.add (local.get $acc) (v128.load (i32.add (local.get $g) (local.get $o)))))
      (br_if $sum
        (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
    (f64.store
      (local.get $row)
      (f64.add (f64.load (local.get $row)) (call $lanes (local.get $acc))))
    (local.set $j (i32.const 1))
    (block $columnsDone
      (loop $columns
        (br_if $columnsDone (i32.ge_u (local.get $j) (global.get $k)))
        (local.set $col (call $column (local.get $j) (local.get $from)))
        (local.set $acc (global.get $ZERO))
        (local.set $o (i32.const 0))
        (loop $rows
          (local.set $acc
            (f64x2.add
              (local.get $acc)
              (f64x2.mul
                (v128.load (i32.add (local.get $g) (local.get $o)))
                (v128.load (i32.add (local.get $col) (local.get $o))))))
          (br_if $rows
            (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
        (local.set $at (i32.add (local.get $row) (i32.shl (local.get $j) (i32.const 3))))
        (f64.store
          (local.get $at)
          (f64.add (f64.load (local.get $at)) (call $lanes (local.get $acc))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $columns))))

  ;; α of the records at byte offset `at` of the per-record arrays (1 unless hasAlpha), with the
  ;; second lane 0 when the first is the final record of an odd n.
  (func $alphaAt (param $at i32) (param $hasAlpha i32) (result v128)
    (local $a v128)
    (local.set $a (global.get $ONE))
    (if (local.get $hasAlpha)
      (then (local.set $a (v128.load (i32.add (global.get $alpha) (local.get $at))))))
    (if (i32.eq (i32.add (local.get $at) (i32.const 8)) (i32.shl (global.get $n) (i32.const 3)))
      (then (local.set $a (f64x2.replace_lane 1 (local.get $a) (f64.const 0)))))
    (local.get $a))

  ;; Σ clamp(c, ±C) over the lanes not skipped (α = 0): C·sign(c) where clamped, else c.
  (func $clampedSum (param $c v128) (param $clamped v128) (param $skip v128) (param $cV v128)
    (result v128)
    (v128.andnot
      (v128.bitselect
        (v128.bitselect
          (local.get $cV)
          (f64x2.neg (local.get $cV))
          (f64x2.gt (local.get $c) (global.get $ZERO)))
        (local.get $c)
        (local.get $clamped))
      (local.get $skip)))

  ;; Whether c lies outside [−C, C].
  (func $outside (param $c v128) (param $cV v128) (result v128)
    (v128.or
      (f64x2.gt (local.get $c) (local.get $cV))
      (f64x2.lt (local.get $c) (f64x2.neg (local.get $cV)))))

  ;; The records [from, from + 2·pairs) of the logistic model: t = s·η into buffer 0 and
  ;; e = exp(−|t|) into buffer 1.
  (func $logisticPrepare (param $from i32) (param $end i32)
    (local $o i32) (local $t v128) (local $ys i32) (local $tbuf i32) (local $ebuf i32)
    (local.set $tbuf (global.get $buf))
    (local.set $ebuf (i32.add (global.get $buf) (i32.shl (global.get $BLOCK) (i32.const 3))))
    (call $predict (global.get $coef) (local.get $tbuf) (local.get $from) (local.get $end))
    (local.set $ys (i32.add (global.get $y) (i32.shl (local.get $from) (i32.const 3))))
    (local.set $o (i32.const 0))
    (loop $exps
      (local.set $t
        (f64x2.mul
          (v128.load (i32.add (local.get $ys) (local.get $o)))
          (v128.load (i32.add (local.get $tbuf) (local.get $o)))))
      (v128.store (i32.add (local.get $tbuf) (local.get $o)) (local.get $t))
      (v128.store
        (i32.add (local.get $ebuf) (local.get $o))
        (call $expNeg (f64x2.neg (f64x2.abs (local.get $t)))))
      (br_if $exps
        (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end)))))

  ;; ℓ = min(t, 0) − log1p(e) with u = 1 + e and inv = 1/u.
  (func $logSigmoid (param $t v128) (param $e v128) (param $u v128) (param $inv v128)
    (result v128)
    (f64x2.sub
      (v128.and (local.get $t) (f64x2.lt (local.get $t) (global.get $ZERO)))
      (call $log1p (local.get $e) (local.get $u) (local.get $inv))))

  ;; Σ_i clamp(α_i·ℓ_i, ±C) of the logistic model, skipping α_i = 0 (α_i = 1 unless hasAlpha).
  ;; With withGrad, sets grad[j] = Σ g_i·x_ij, g_i = α_i·s_i·logit⁻¹(−t_i), over the records
  ;; neither skipped nor clamped.
  (func (export "logisticDensity")
    (param $censor f64) (param $hasAlpha i32) (param $withGrad i32) (result f64)
    (local $i i32) (local $m i32) (local $o i32) (local $end i32) (local $at i32)
    (local $tbuf i32) (local $ebuf i32) (local $cV v128) (local $total v128)
    (local $t v128) (local $e v128) (local $u v128) (local $inv v128) (local $a v128)
    (local $c v128) (local $clamped v128) (local $skip v128) (local $neg v128)
    (local.set $cV (f64x2.splat (local.get $censor)))
    (local.set $tbuf (global.get $buf))
    (local.set $ebuf (i32.add (global.get $buf) (i32.shl (global.get $BLOCK) (i32.const 3))))
    (memory.fill (global.get $grad) (i32.const 0) (i32.shl (global.get $k) (i32.const 3)))
    (local.set $i (i32.const 0))
    (block $blocksDone
      (loop $blocks
        (br_if $blocksDone (i32.ge_s (local.get $i) (global.get $n)))
        (local.set $m (i32.sub (global.get $n) (local.get $i)))
        (if (i32.gt_s (local.get $m) (global.get $BLOCK))
          (then (local.set $m (global.get $BLOCK))))
        (local.set $end (i32.shl (i32.shr_u (i32.add (local.get $m) (i32.const 1)) (i32.const 1))
          (i32.const 4)))
        (call $logisticPrepare (local.get $i) (local.get $end))
        (local.set $o (i32.const 0))
        (loop $records
          (local.set $at (i32.add (i32.shl (local.get $i) (i32.const 3)) (local.get $o)))
          (local.set $t (v128.load (i32.add (local.get $tbuf) (local.get $o))))
          (local.set $e (v128.load (i32.add (local.get $ebuf) (local.get $o))))
          (local.set $u (f64x2.add (global.get $ONE) (local.get $e)))
          (local.set $inv (f64x2.div (global.get $ONE) (local.get $u)))
          (local.set $a (call $alphaAt (local.get $at) (local.get $hasAlpha)))
          (local.set $c
            (f64x2.mul
              (local.get $a)
              (call $logSigmoid (local.get $t) (local.get $e) (local.get $u) (local.get $inv))))
          (local.set $clamped (call $outside (local.get $c) (local.get $cV)))
          (local.set $skip (f64x2.eq (local.get $a) (global.get $ZERO)))
          (local.set $total
            (f64x2.add
              (local.get $total)
              (call $clampedSum
                (local.get $c) (local.get $clamped) (local.get $skip) (local.get $cV))))
          (if (local.get $withGrad)
            (then
              ;; logit⁻¹(−t) = t ≥ 0 ? e/(1+e) : 1/(1+e); g = α·s·logit⁻¹(−t), into ebuf.
              (local.set $neg
                (v128.bitselect
                  (f64x2.mul (local.get $e) (local.get $inv))
                  (local.get $inv)
                  (f64x2.ge (local.get $t) (global.get $ZERO))))
              (v128.store
                (i32.add (local.get $ebuf) (local.get $o))
                (v128.andnot
                  (f64x2.mul
                    (f64x2.mul
                      (local.get $a)
                      (v128.load (i32.add (global.get $y) (local.get $at))))
                    (local.get $neg))
                  (v128.or (local.get $skip) (local.get $clamped))))))
          (br_if $records
            (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
        (if (local.get $withGrad)
          (then
            (call $accumulate
              (local.get $ebuf) (global.get $grad) (local.get $i) (local.get $end))))
        (local.set $i (i32.add (local.get $i) (local.get $m)))
        (br $blocks)))
    (call $lanes (local.get $total)))

  ;; out[i] = ℓ_i of the logistic model for every record.
  (func (export "logisticLoglik")
    (local $i i32) (local $m i32) (local $o i32) (local $end i32) (local $at i32)
    (local $tbuf i32) (local $ebuf i32) (local $e v128) (local $u v128)
    (local.set $tbuf (global.get $buf))
    (local.set $ebuf (i32.add (global.get $buf) (i32.shl (global.get $BLOCK) (i32.const 3))))
    (local.set $i (i32.const 0))
    (block $blocksDone
      (loop $blocks
        (br_if $blocksDone (i32.ge_s (local.get $i) (global.get $n)))
        (local.set $m (i32.sub (global.get $n) (local.get $i)))
        (if (i32.gt_s (local.get $m) (global.get $BLOCK))
          (then (local.set $m (global.get $BLOCK))))
        (local.set $end (i32.shl (i32.shr_u (i32.add (local.get $m) (i32.const 1)) (i32.const 1))
          (i32.const 4)))
        (call $logisticPrepare (local.get $i) (local.get $end))
        (local.set $o (i32.const 0))
        (loop $records
          (local.set $at (i32.add (i32.shl (local.get $i) (i32.const 3)) (local.get $o)))
          (local.set $e (v128.load (i32.add (local.get $ebuf) (local.get $o))))
          (local.set $u (f64x2.add (global.get $ONE) (local.get $e)))
          (call $store
            (local.get $at)
            (call $logSigmoid
              (v128.load (i32.add (local.get $tbuf) (local.get $o)))
              (local.get $e)
              (local.get $u)
              (f64x2.div (global.get $ONE) (local.get $u))))
          (br_if $records
            (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
        (local.set $i (i32.add (local.get $i) (local.get $m)))
        (br $blocks))))

  ;; out at byte offset `at` = l, lane 0 only when it is the final record of an odd n.
  (func $store (param $at i32) (param $l v128)
    (local $to i32)
    (local.set $to (i32.add (global.get $out) (local.get $at)))
    (if (i32.eq (i32.add (local.get $at) (i32.const 8)) (i32.shl (global.get $n) (i32.const 3)))
      (then (v128.store64_lane 0 (local.get $to) (local.get $l)))
      (else (v128.store (local.get $to) (local.get $l)))))

  ;; The byte address of scratch buffer q: level l's at q = l − 1 (l = 1..L−1), then the
  ;; per-record buffers M, R, F and Y at q = L − 1, L, L + 1, L + 2.
  (func $buffer (param $q i32) (result i32)
    (i32.add (global.get $buf) (i32.shl (i32.mul (local.get $q) (global.get $BLOCK)) (i32.const 3))))

  ;; The byte address of level l's coefficient (or gradient) row in `base`.
  (func $row (param $base i32) (param $l i32) (result i32)
    (i32.add
      (local.get $base)
      (i32.shl (i32.mul (i32.sub (local.get $l) (i32.const 1)) (global.get $k)) (i32.const 3))))

  ;; The softmax of the records from `from` on, `end` bytes (whole pairs), by passes over the
  ;; block: η_l (l = 1..L−1) into level l's buffer; M = m = max(0, max_l η_l); then level by level
  ;; (0 first) e_l = exp(η_l − m) into level l's buffer, R = rest = Σ_l e_l over every level but
  ;; the first whose η_l − m is 0 (its e_l is 1; F marks the records whose top level is found),
  ;; summed in level order, and Y = η_y − m.
  (func $categoricalPrepare (param $from i32) (param $end i32)
    (local $l i32) (local $o i32) (local $lb i32) (local $mb i32) (local $rb i32) (local $fb i32)
    (local $yb i32) (local $ys i32) (local $lv v128) (local $sh v128) (local $e v128)
    (local $found v128) (local $top v128)
    (local.set $mb (call $buffer (i32.sub (global.get $levels) (i32.const 1))))
    (local.set $rb (call $buffer (global.get $levels)))
    (local.set $fb (call $buffer (i32.add (global.get $levels) (i32.const 1))))
    (local.set $yb (call $buffer (i32.add (global.get $levels) (i32.const 2))))
    (local.set $ys (i32.add (global.get $y) (i32.shl (local.get $from) (i32.const 3))))
    (local.set $o (i32.const 0))
    (loop $zero
      (v128.store (i32.add (local.get $mb) (local.get $o)) (global.get $ZERO))
      (br_if $zero
        (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
    (local.set $l (i32.const 1))
    (loop $levels
      (local.set $lb (call $buffer (i32.sub (local.get $l) (i32.const 1))))
      (call $predict
        (call $row (global.get $coef) (local.get $l)) (local.get $lb) (local.get $from)
        (local.get $end))
      (local.set $o (i32.const 0))
      (loop $max
        (v128.store
          (i32.add (local.get $mb) (local.get $o))
          (f64x2.pmax
            (v128.load (i32.add (local.get $mb) (local.get $o)))
            (v128.load (i32.add (local.get $lb) (local.get $o)))))
        (br_if $max
          (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
      (br_if $levels
        (i32.lt_u (local.tee $l (i32.add (local.get $l) (i32.const 1))) (global.get $levels))))
    ;; Level 0: η_0 − m = 0 − m, the top level when m = 0.
    (local.set $o (i32.const 0))
    (loop $level0
      (local.set $sh (f64x2.sub (global.get $ZERO) (v128.load (i32.add (local.get $mb) (local.get $o)))))
      (local.set $found (f64x2.eq (local.get $sh) (global.get $ZERO)))
      (v128.store (i32.add (local.get $fb) (local.get $o)) (local.get $found))
      (v128.store
        (i32.add (local.get $rb) (local.get $o))
        (v128.andnot (call $expNeg (local.get $sh)) (local.get $found)))
      (v128.store
        (i32.add (local.get $yb) (local.get $o))
        (v128.and
          (local.get $sh)
          (f64x2.eq (v128.load (i32.add (local.get $ys) (local.get $o))) (global.get $ZERO))))
      (br_if $level0
        (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
    (local.set $lv (global.get $ZERO))
    (local.set $l (i32.const 1))
    (loop $levels
      (local.set $lv (f64x2.add (local.get $lv) (global.get $ONE)))
      (local.set $lb (call $buffer (i32.sub (local.get $l) (i32.const 1))))
      (local.set $o (i32.const 0))
      (loop $exps
        (local.set $sh
          (f64x2.sub
            (v128.load (i32.add (local.get $lb) (local.get $o)))
            (v128.load (i32.add (local.get $mb) (local.get $o)))))
        (local.set $e (call $expNeg (local.get $sh)))
        (v128.store (i32.add (local.get $lb) (local.get $o)) (local.get $e))
        (local.set $found (v128.load (i32.add (local.get $fb) (local.get $o))))
        (local.set $top
          (v128.andnot (f64x2.eq (local.get $sh) (global.get $ZERO)) (local.get $found)))
        (v128.store
          (i32.add (local.get $fb) (local.get $o))
          (v128.or (local.get $found) (local.get $top)))
        (v128.store
          (i32.add (local.get $rb) (local.get $o))
          (f64x2.add
            (v128.load (i32.add (local.get $rb) (local.get $o)))
            (v128.andnot (local.get $e) (local.get $top))))
        (v128.store
          (i32.add (local.get $yb) (local.get $o))
          (v128.bitselect
            (local.get $sh)
            (v128.load (i32.add (local.get $yb) (local.get $o)))
            (f64x2.eq (v128.load (i32.add (local.get $ys) (local.get $o))) (local.get $lv))))
        (br_if $exps
          (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
      (br_if $levels
        (i32.lt_u (local.tee $l (i32.add (local.get $l) (i32.const 1))) (global.get $levels)))))

  ;; ℓ = (η_y − m) − log1p(rest) with u = 1 + rest and inv = 1/u.
  (func $logSoftmax (param $ys v128) (param $rest v128) (param $u v128) (param $inv v128)
    (result v128)
    (f64x2.sub (local.get $ys) (call $log1p (local.get $rest) (local.get $u) (local.get $inv))))

  ;; Σ_i clamp(α_i·ℓ_i, ±C) of the categorical model, skipping α_i = 0 (α_i = 1 unless
  ;; hasAlpha). With withGrad, sets grad[(l−1)·k + j] = Σ g_il·x_ij,
  ;; g_il = α_i·(1[y_i = l] − p_il), p_il = e_il/(1 + rest_i), over the records neither skipped
  ;; nor clamped (the record loop leaves 1/(1 + rest) in M, and in F α_i, or 0 for the records
  ;; skipped or clamped).
  (func (export "categoricalDensity")
    (param $censor f64) (param $hasAlpha i32) (param $withGrad i32) (result f64)
    (local $i i32) (local $m i32) (local $o i32) (local $end i32) (local $at i32) (local $l i32)
    (local $lb i32) (local $mb i32) (local $rb i32) (local $fb i32) (local $yb i32)
    (local $cV v128) (local $total v128) (local $rest v128) (local $u v128) (local $inv v128)
    (local $a v128) (local $c v128) (local $clamped v128) (local $skip v128) (local $lv v128)
    (local.set $cV (f64x2.splat (local.get $censor)))
    (local.set $mb (call $buffer (i32.sub (global.get $levels) (i32.const 1))))
    (local.set $rb (call $buffer (global.get $levels)))
    (local.set $fb (call $buffer (i32.add (global.get $levels) (i32.const 1))))
    (local.set $yb (call $buffer (i32.add (global.get $levels) (i32.const 2))))
    (memory.fill
      (global.get $grad)
      (i32.const 0)
      (i32.shl
        (i32.mul (i32.sub (global.get $levels) (i32.const 1)) (global.get $k))
        (i32.const 3)))
    (local.set $i (i32.const 0))
    (block $blocksDone
      (loop $blocks
        (br_if $blocksDone (i32.ge_s (local.get $i) (global.get $n)))
        (local.set $m (i32.sub (global.get $n) (local.get $i)))
        (if (i32.gt_s (local.get $m) (global.get $BLOCK))
          (then (local.set $m (global.get $BLOCK))))
        (local.set $end (i32.shl (i32.shr_u (i32.add (local.get $m) (i32.const 1)) (i32.const 1))
          (i32.const 4)))
        (call $categoricalPrepare (local.get $i) (local.get $end))
        (local.set $o (i32.const 0))
        (loop $records
          (local.set $at (i32.add (i32.shl (local.get $i) (i32.const 3)) (local.get $o)))
          (local.set $rest (v128.load (i32.add (local.get $rb) (local.get $o))))
          (local.set $u (f64x2.add (global.get $ONE) (local.get $rest)))
          (local.set $inv (f64x2.div (global.get $ONE) (local.get $u)))
          (local.set $a (call $alphaAt (local.get $at) (local.get $hasAlpha)))
          (local.set $c
            (f64x2.mul
              (local.get $a)
              (call $logSoftmax
                (v128.load (i32.add (local.get $yb) (local.get $o)))
                (local.get $rest)
                (local.get $u)
                (local.get $inv))))
          (local.set $clamped (call $outside (local.get $c) (local.get $cV)))
          (local.set $skip (f64x2.eq (local.get $a) (global.get $ZERO)))
          (local.set $total
            (f64x2.add
              (local.get $total)
              (call $clampedSum
                (local.get $c) (local.get $clamped) (local.get $skip) (local.get $cV))))
          (v128.store (i32.add (local.get $mb) (local.get $o)) (local.get $inv))
          (v128.store
            (i32.add (local.get $fb) (local.get $o))
            (v128.andnot (local.get $a) (v128.or (local.get $skip) (local.get $clamped))))
          (br_if $records
            (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
        (if (local.get $withGrad)
          (then
            ;; Level by level, g_l = α·(1[y = l] − e_l·inv) in place of e_l, then its sums.
            (local.set $lv (global.get $ZERO))
            (local.set $l (i32.const 1))
            (loop $levels
              (local.set $lv (f64x2.add (local.get $lv) (global.get $ONE)))
              (local.set $lb (call $buffer (i32.sub (local.get $l) (i32.const 1))))
              (local.set $o (i32.const 0))
              (loop $rows
                (local.set $at (i32.add (i32.shl (local.get $i) (i32.const 3)) (local.get $o)))
                (v128.store
                  (i32.add (local.get $lb) (local.get $o))
                  (f64x2.mul
                    (v128.load (i32.add (local.get $fb) (local.get $o)))
                    (f64x2.sub
                      (v128.and
                        (global.get $ONE)
                        (f64x2.eq
                          (v128.load (i32.add (global.get $y) (local.get $at)))
                          (local.get $lv)))
                      (f64x2.mul
                        (v128.load (i32.add (local.get $lb) (local.get $o)))
                        (v128.load (i32.add (local.get $mb) (local.get $o)))))))
                (br_if $rows
                  (i32.lt_u
                    (local.tee $o (i32.add (local.get $o) (i32.const 16)))
                    (local.get $end))))
              (call $accumulate
                (local.get $lb)
                (call $row (global.get $grad) (local.get $l))
                (local.get $i)
                (local.get $end))
              (br_if $levels
                (i32.lt_u
                  (local.tee $l (i32.add (local.get $l) (i32.const 1)))
                  (global.get $levels))))))
        (local.set $i (i32.add (local.get $i) (local.get $m)))
        (br $blocks)))
    (call $lanes (local.get $total)))

  ;; out[i] = ℓ_i of the categorical model for every record.
  (func (export "categoricalLoglik")
    (local $i i32) (local $m i32) (local $o i32) (local $end i32) (local $rb i32) (local $yb i32)
    (local $rest v128) (local $u v128)
    (local.set $rb (call $buffer (global.get $levels)))
    (local.set $yb (call $buffer (i32.add (global.get $levels) (i32.const 2))))
    (local.set $i (i32.const 0))
    (block $blocksDone
      (loop $blocks
        (br_if $blocksDone (i32.ge_s (local.get $i) (global.get $n)))
        (local.set $m (i32.sub (global.get $n) (local.get $i)))
        (if (i32.gt_s (local.get $m) (global.get $BLOCK))
          (then (local.set $m (global.get $BLOCK))))
        (local.set $end (i32.shl (i32.shr_u (i32.add (local.get $m) (i32.const 1)) (i32.const 1))
          (i32.const 4)))
        (call $categoricalPrepare (local.get $i) (local.get $end))
        (local.set $o (i32.const 0))
        (loop $records
          (local.set $rest (v128.load (i32.add (local.get $rb) (local.get $o))))
          (local.set $u (f64x2.add (global.get $ONE) (local.get $rest)))
          (call $store
            (i32.add (i32.shl (local.get $i) (i32.const 3)) (local.get $o))
            (call $logSoftmax
              (v128.load (i32.add (local.get $yb) (local.get $o)))
              (local.get $rest)
              (local.get $u)
              (f64x2.div (global.get $ONE) (local.get $u))))
          (br_if $records
            (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
        (local.set $i (i32.add (local.get $i) (local.get $m)))
        (br $blocks)))))
