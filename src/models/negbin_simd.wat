;; The negative binomial record loops of src/models/negbin.ts in WebAssembly SIMD, two records
;; per f64x2 vector. With d = η − log φ and e = exp(−|d|):
;;
;;   L = log(1 + e^d) = max(d, 0) + log1p(e),
;;   s = logit⁻¹(d) = d ≥ 0 ? 1/(1+e) : e/(1+e),   1 − s = d ≥ 0 ? e/(1+e) : 1/(1+e),
;;   ℓ = cst[t] − (φ + y)·L + y·d,                  cst[t] = log Γ(v_t+φ) − log Γ(φ) − log Γ(v_t+1),
;;   ∂ℓ/∂η = y − (y + φ)·s,
;;   −φ·∂ℓ/∂φ = φ·(L − s) + y·(1 − s) − psi[t],     psi[t] = φ·[ψ(v_t+φ) − ψ(φ)],
;;
;; t a record's index among the distinct outcome values v. exp and log1p are evaluated here (range
;; reduction and polynomial, under one ulp each); cst and psi come from the caller.
;;
;; Records go by blocks of BLOCK, each in short passes (η; d and e; L and 1/(1 + e); the record
;; terms; the coefficient gradient), which keeps every loop body small enough for the processor to
;; overlap many iterations. The caller owns the memory and sets the byte offsets once (`layout`):
;;
;;   coef  k f64      the coefficients (u or θ entries 0..k−1) of the current call
;;   grad  k+1 f64    out: Σ g_i, Σ g_i·x_ij (j = 1..k−1), Σ of the φ term
;;   dbuf  BLOCK f64  scratch: η, then d, of a block's records
;;   ebuf  BLOCK f64  scratch: e, then g_i (0 where skipped or clamped)
;;   lbuf  BLOCK f64  scratch: L
;;   ibuf  BLOCK f64  scratch: 1/(1 + e)
;;   cst, psi         one f64 per distinct outcome
;;   y, alpha, out    one f64 per record; ids one i32 per record
;;   x                columns 1..k−1 of the design, column-major, `stride` f64 apart
;;
;; Every per-record array has n + 1 entries or more (a final odd record's second lane reads a
;; finite value and a valid id) and starts at a multiple of 16 bytes.
(module
  (import "env" "memory" (memory 1))

  ;; Records per block (even).
  (global $BLOCK (export "BLOCK") i32 (i32.const 512))

  ;; Constants, the same in both lanes (a global.get of one costs V8 one load; a v128.const, several
  ;; instructions each time). E2..E11: Chebyshev interpolant of degree 9 to (e^r − 1 − r)/r² on
  ;; [−ln 2/2, ln 2/2] (mpmath's chebyfit); LG1..LG7: fdlibm's log polynomial.
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
  (global $LG1 v128 (v128.const f64x2 6.666666666666735130e-01 6.666666666666735130e-01))
  (global $LG2 v128 (v128.const f64x2 3.999999999940941908e-01 3.999999999940941908e-01))
  (global $LG3 v128 (v128.const f64x2 2.857142874366239149e-01 2.857142874366239149e-01))
  (global $LG4 v128 (v128.const f64x2 2.222219843214978396e-01 2.222219843214978396e-01))
  (global $LG5 v128 (v128.const f64x2 1.818357216161805012e-01 1.818357216161805012e-01))
  (global $LG6 v128 (v128.const f64x2 1.531383769920937332e-01 1.531383769920937332e-01))
  (global $LG7 v128 (v128.const f64x2 1.479819860511658591e-01 1.479819860511658591e-01))

  (global $k (mut i32) (i32.const 0))
  (global $stride (mut i32) (i32.const 0))
  (global $coef (mut i32) (i32.const 0))
  (global $grad (mut i32) (i32.const 0))
  (global $dbuf (mut i32) (i32.const 0))
  (global $ebuf (mut i32) (i32.const 0))
  (global $lbuf (mut i32) (i32.const 0))
  (global $ibuf (mut i32) (i32.const 0))
  (global $cst (mut i32) (i32.const 0))
  (global $psi (mut i32) (i32.const 0))
  (global $y (mut i32) (i32.const 0))
  (global $alpha (mut i32) (i32.const 0))
  (global $out (mut i32) (i32.const 0))
  (global $ids (mut i32) (i32.const 0))
  (global $x (mut i32) (i32.const 0))

  ;; Sets k, the column stride and the byte offsets of the header's arrays.
  (func (export "layout")
    (param $k i32) (param $stride i32) (param $coef i32) (param $grad i32) (param $dbuf i32)
    (param $ebuf i32) (param $lbuf i32) (param $ibuf i32) (param $cst i32) (param $psi i32)
    (param $y i32) (param $alpha i32) (param $out i32) (param $ids i32) (param $x i32)
    (global.set $k (local.get $k))
    (global.set $stride (local.get $stride))
    (global.set $coef (local.get $coef))
    (global.set $grad (local.get $grad))
    (global.set $dbuf (local.get $dbuf))
    (global.set $ebuf (local.get $ebuf))
    (global.set $lbuf (local.get $lbuf))
    (global.set $ibuf (local.get $ibuf))
    (global.set $cst (local.get $cst))
    (global.set $psi (local.get $psi))
    (global.set $y (local.get $y))
    (global.set $alpha (local.get $alpha))
    (global.set $out (local.get $out))
    (global.set $ids (local.get $ids))
    (global.set $x (local.get $x)))

  ;; e^x for x ≤ 0, under one ulp (NaN stays NaN; 0 below −708, where e^x < 3.4e-308).
  ;; x = k·ln 2 + r with k = round(x/ln 2), |r| ≤ ln 2/2 (ln 2 in two parts, k·LN2HI exact);
  ;; e^r = 1 + r + r²·q(r), q of degree 9 (E2..E11, relative error 2e-17), and e^x = e^r·2^k with
  ;; 2^k built from k's bits (a normal number for x ≥ −708).
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

  ;; log1p(e) for e ∈ [0, 1], under one ulp, given u = 1 + e (rounded) and inv = 1/u: fdlibm's
  ;; log1p. Below √2 − 1, f = e and k = 0; above, f = u/2 − 1 (exact), k = 1 and
  ;; c = (e − (u − 1))/u corrects the rounding of u. With s = f/(2 + f),
  ;; log(1 + f) = f − f²/2 + s·(f²/2 + R(s²)), R fdlibm's polynomial of degree 7 in s² (error
  ;; < 2⁻⁵⁸), and log1p(e) = k·ln 2 + c + log(1 + f).
  (func $log1p (param $e v128) (param $u v128) (param $inv v128) (result v128)
    (local $big v128) (local $f v128) (local $kf v128) (local $c v128) (local $s v128)
    (local $z v128) (local $w v128) (local $r v128) (local $hfsq v128)
    (local.set $big
      (f64x2.ge (local.get $e) (global.get $SQRT2_M1)))
    (local.set $f
      (v128.bitselect
        (f64x2.sub (f64x2.mul (local.get $u) (global.get $HALF)) (global.get $ONE))
        (local.get $e)
        (local.get $big)))
    (local.set $kf (v128.and (local.get $big) (global.get $ONE)))
    (local.set $c
      (v128.and
        (local.get $big)
        (f64x2.mul
          (f64x2.sub (local.get $e) (f64x2.sub (local.get $u) (global.get $ONE)))
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

  ;; Fills dbuf, ebuf, lbuf and ibuf for the records [from, from + 2·pairs): η = coef_0 +
  ;; Σ_{j≥1} x_ij·coef_j (summed in the order of negbin.ts), d = η − log φ, e = exp(−|d|), then
  ;; L and 1/(1 + e).
  (func $prepare (param $from i32) (param $pairs i32) (param $logPhi v128)
    (local $end i32) (local $o i32) (local $j i32) (local $col i32) (local $cj v128)
    (local $dbuf i32) (local $ebuf i32) (local $d v128) (local $e v128) (local $u v128)
    (local $inv v128)
    (local.set $dbuf (global.get $dbuf))
    (local.set $ebuf (global.get $ebuf))
    (local.set $end (i32.shl (local.get $pairs) (i32.const 4)))
    (local.set $cj (v128.load64_splat (global.get $coef)))
    (local.set $o (i32.const 0))
    (loop $fill
      (v128.store (i32.add (local.get $dbuf) (local.get $o)) (local.get $cj))
      (br_if $fill
        (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
    (local.set $j (i32.const 1))
    (block $columnsDone
      (loop $columns
        (br_if $columnsDone (i32.ge_u (local.get $j) (global.get $k)))
        (local.set $cj
          (v128.load64_splat (i32.add (global.get $coef) (i32.shl (local.get $j) (i32.const 3)))))
        (local.set $col
          (i32.add
            (global.get $x)
            (i32.shl
              (i32.add
                (i32.mul (i32.sub (local.get $j) (i32.const 1)) (global.get $stride))
                (local.get $from))
              (i32.const 3))))
        (local.set $o (i32.const 0))
        (loop $rows
          (v128.store
            (i32.add (local.get $dbuf) (local.get $o))
            (f64x2.add
              (v128.load (i32.add (local.get $dbuf) (local.get $o)))
              (f64x2.mul (v128.load (i32.add (local.get $col) (local.get $o))) (local.get $cj))))
          (br_if $rows
            (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $columns)))
    (local.set $o (i32.const 0))
    (loop $exps
      (local.set $d
        (f64x2.sub (v128.load (i32.add (local.get $dbuf) (local.get $o))) (local.get $logPhi)))
      (v128.store (i32.add (local.get $dbuf) (local.get $o)) (local.get $d))
      (v128.store
        (i32.add (local.get $ebuf) (local.get $o))
        (call $expNeg (f64x2.neg (f64x2.abs (local.get $d)))))
      (br_if $exps
        (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
    (local.set $o (i32.const 0))
    (loop $logs
      (local.set $d (v128.load (i32.add (local.get $dbuf) (local.get $o))))
      (local.set $e (v128.load (i32.add (local.get $ebuf) (local.get $o))))
      (local.set $u (f64x2.add (global.get $ONE) (local.get $e)))
      (local.set $inv (f64x2.div (global.get $ONE) (local.get $u)))
      (v128.store
        (i32.add (global.get $lbuf) (local.get $o))
        (f64x2.add
          (v128.and (local.get $d) (f64x2.gt (local.get $d) (global.get $ZERO)))
          (call $log1p (local.get $e) (local.get $u) (local.get $inv))))
      (v128.store (i32.add (global.get $ibuf) (local.get $o)) (local.get $inv))
      (br_if $logs
        (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end)))))

  ;; (lane 0, lane 1) of a per-distinct-outcome table at the ids of records r and r + 1.
  (func $gather (param $table i32) (param $r i32) (result v128)
    (local $at i32)
    (local.set $at (i32.add (global.get $ids) (i32.shl (local.get $r) (i32.const 2))))
    (v128.load64_lane 1
      (i32.add (local.get $table) (i32.shl (i32.load offset=4 (local.get $at)) (i32.const 3)))
      (v128.load64_zero
        (i32.add (local.get $table) (i32.shl (i32.load (local.get $at)) (i32.const 3))))))

  ;; Σ_{i ∈ [from, to)} clamp(α_i·ℓ_i, ±C), skipping α_i = 0 (α_i = 1 unless hasAlpha). With
  ;; withGrad, sets grad[0] = Σ g_i, grad[j] = Σ g_i·x_ij and grad[k] = Σ α_i·(φ(L − s) + y(1 − s)
  ;; − psi), g_i = α_i·(y − (y + φ)·s), over the records neither skipped nor clamped.
  (func (export "density")
    (param $from i32) (param $to i32) (param $phi f64) (param $logPhi f64) (param $censor f64)
    (param $hasAlpha i32) (param $withGrad i32) (result f64)
    (local $i i32) (local $m i32) (local $pairs i32) (local $o i32) (local $end i32)
    (local $r i32) (local $j i32) (local $col i32) (local $half i32) (local $sum f64)
    (local $phiV v128) (local $logPhiV v128) (local $cV v128) (local $negCV v128)
    (local $total v128) (local $g0 v128) (local $gPhi v128) (local $acc v128)
    (local $d v128) (local $l v128) (local $yv v128) (local $a v128) (local $c v128)
    (local $clamped v128) (local $skip v128) (local $inv v128) (local $ei v128) (local $ge v128)
    (local $s v128) (local $oms v128) (local $g v128)
    (local.set $phiV (f64x2.splat (local.get $phi)))
    (local.set $logPhiV (f64x2.splat (local.get $logPhi)))
    (local.set $cV (f64x2.splat (local.get $censor)))
    (local.set $negCV (f64x2.neg (local.get $cV)))
    (local.set $a (global.get $ONE))
    (memory.fill
      (global.get $grad)
      (i32.const 0)
      (i32.shl (i32.add (global.get $k) (i32.const 1)) (i32.const 3)))
    (local.set $i (local.get $from))
    (block $blocksDone
      (loop $blocks
        (br_if $blocksDone (i32.ge_s (local.get $i) (local.get $to)))
        (local.set $m (i32.sub (local.get $to) (local.get $i)))
        (if (i32.gt_s (local.get $m) (global.get $BLOCK))
          (then (local.set $m (global.get $BLOCK))))
        (local.set $pairs (i32.shr_u (i32.add (local.get $m) (i32.const 1)) (i32.const 1)))
        (call $prepare (local.get $i) (local.get $pairs) (local.get $logPhiV))
        (local.set $end (i32.shl (local.get $pairs) (i32.const 4)))
        (local.set $o (i32.const 0))
        (local.set $r (local.get $i))
        (loop $records
          (local.set $d (v128.load (i32.add (global.get $dbuf) (local.get $o))))
          (local.set $l (v128.load (i32.add (global.get $lbuf) (local.get $o))))
          (local.set $yv
            (v128.load (i32.add (global.get $y) (i32.shl (local.get $r) (i32.const 3)))))
          (if (local.get $hasAlpha)
            (then
              (local.set $a
                (v128.load (i32.add (global.get $alpha) (i32.shl (local.get $r) (i32.const 3)))))))
          ;; A final odd record's second lane is skipped.
          (if (i32.eq (i32.add (local.get $r) (i32.const 1)) (local.get $to))
            (then (local.set $a (f64x2.replace_lane 1 (local.get $a) (f64.const 0)))))
          ;; c = α·(cst − (φ + y)·L + y·d), clamped to [−C, C]; 0 where α = 0.
          (local.set $c
            (f64x2.mul
              (local.get $a)
              (f64x2.add
                (f64x2.sub
                  (call $gather (global.get $cst) (local.get $r))
                  (f64x2.mul (f64x2.add (local.get $phiV) (local.get $yv)) (local.get $l)))
                (f64x2.mul (local.get $yv) (local.get $d)))))
          (local.set $clamped
            (v128.or
              (f64x2.gt (local.get $c) (local.get $cV))
              (f64x2.lt (local.get $c) (local.get $negCV))))
          (local.set $skip (f64x2.eq (local.get $a) (global.get $ZERO)))
          (local.set $total
            (f64x2.add
              (local.get $total)
              (v128.andnot
                (v128.bitselect
                  (v128.bitselect
                    (local.get $cV)
                    (local.get $negCV)
                    (f64x2.gt (local.get $c) (global.get $ZERO)))
                  (local.get $c)
                  (local.get $clamped))
                (local.get $skip))))
          (if (local.get $withGrad)
            (then
              (local.set $skip (v128.or (local.get $skip) (local.get $clamped)))
              ;; s and 1 − s from e/(1+e) and 1/(1+e) by the sign of d.
              (local.set $inv (v128.load (i32.add (global.get $ibuf) (local.get $o))))
              (local.set $ei
                (f64x2.mul
                  (v128.load (i32.add (global.get $ebuf) (local.get $o)))
                  (local.get $inv)))
              (local.set $ge (f64x2.ge (local.get $d) (global.get $ZERO)))
              (local.set $s (v128.bitselect (local.get $inv) (local.get $ei) (local.get $ge)))
              (local.set $oms (v128.bitselect (local.get $ei) (local.get $inv) (local.get $ge)))
              ;; g = α·(y − (y + φ)·s), kept in ebuf for the coefficient pass.
              (local.set $g
                (v128.andnot
                  (f64x2.mul
                    (local.get $a)
                    (f64x2.sub
                      (local.get $yv)
                      (f64x2.mul (f64x2.add (local.get $yv) (local.get $phiV)) (local.get $s))))
                  (local.get $skip)))
              (v128.store (i32.add (global.get $ebuf) (local.get $o)) (local.get $g))
              (local.set $g0 (f64x2.add (local.get $g0) (local.get $g)))
              ;; α·(φ·(L − s) + y·(1 − s) − psi)
              (local.set $gPhi
                (f64x2.add
                  (local.get $gPhi)
                  (v128.andnot
                    (f64x2.mul
                      (local.get $a)
                      (f64x2.sub
                        (f64x2.add
                          (f64x2.mul (local.get $phiV) (f64x2.sub (local.get $l) (local.get $s)))
                          (f64x2.mul (local.get $yv) (local.get $oms)))
                        (call $gather (global.get $psi) (local.get $r))))
                    (local.get $skip))))))
          (local.set $r (i32.add (local.get $r) (i32.const 2)))
          (br_if $records
            (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
        ;; grad[j] += Σ_block g_i·x_ij: whole pairs in f64x2, then a final odd record alone.
        (if (local.get $withGrad)
          (then
            (local.set $half (i32.shl (i32.shr_u (local.get $m) (i32.const 1)) (i32.const 4)))
            (local.set $j (i32.const 1))
            (block $columnsDone
              (loop $columns
                (br_if $columnsDone (i32.ge_u (local.get $j) (global.get $k)))
                (local.set $col
                  (i32.add
                    (global.get $x)
                    (i32.shl
                      (i32.add
                        (i32.mul (i32.sub (local.get $j) (i32.const 1)) (global.get $stride))
                        (local.get $i))
                      (i32.const 3))))
                (local.set $acc (global.get $ZERO))
                (local.set $o (i32.const 0))
                (block $rowsDone
                  (loop $rows
                    (br_if $rowsDone (i32.ge_u (local.get $o) (local.get $half)))
                    (local.set $acc
                      (f64x2.add
                        (local.get $acc)
                        (f64x2.mul
                          (v128.load (i32.add (global.get $ebuf) (local.get $o)))
                          (v128.load (i32.add (local.get $col) (local.get $o))))))
                    (local.set $o (i32.add (local.get $o) (i32.const 16)))
                    (br $rows)))
                (local.set $sum
                  (f64.add
                    (f64x2.extract_lane 0 (local.get $acc))
                    (f64x2.extract_lane 1 (local.get $acc))))
                (if (i32.and (local.get $m) (i32.const 1))
                  (then
                    (local.set $sum
                      (f64.add
                        (local.get $sum)
                        (f64.mul
                          (f64.load (i32.add (global.get $ebuf) (local.get $o)))
                          (f64.load (i32.add (local.get $col) (local.get $o))))))))
                (local.set $col (i32.add (global.get $grad) (i32.shl (local.get $j) (i32.const 3))))
                (f64.store (local.get $col) (f64.add (f64.load (local.get $col)) (local.get $sum)))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (br $columns)))))
        (local.set $i (i32.add (local.get $i) (local.get $m)))
        (br $blocks)))
    (f64.store
      (global.get $grad)
      (f64.add (f64x2.extract_lane 0 (local.get $g0)) (f64x2.extract_lane 1 (local.get $g0))))
    (f64.store
      (i32.add (global.get $grad) (i32.shl (global.get $k) (i32.const 3)))
      (f64.add (f64x2.extract_lane 0 (local.get $gPhi)) (f64x2.extract_lane 1 (local.get $gPhi))))
    (f64.add (f64x2.extract_lane 0 (local.get $total)) (f64x2.extract_lane 1 (local.get $total))))

  ;; out[i] = ℓ_i = cst − (φ + y)·L + y·d for i ∈ [from, to).
  (func (export "loglik") (param $from i32) (param $to i32) (param $phi f64) (param $logPhi f64)
    (local $i i32) (local $m i32) (local $pairs i32) (local $o i32) (local $end i32) (local $r i32)
    (local $at i32) (local $phiV v128) (local $logPhiV v128) (local $yv v128) (local $l v128)
    (local.set $phiV (f64x2.splat (local.get $phi)))
    (local.set $logPhiV (f64x2.splat (local.get $logPhi)))
    (local.set $i (local.get $from))
    (block $blocksDone
      (loop $blocks
        (br_if $blocksDone (i32.ge_s (local.get $i) (local.get $to)))
        (local.set $m (i32.sub (local.get $to) (local.get $i)))
        (if (i32.gt_s (local.get $m) (global.get $BLOCK))
          (then (local.set $m (global.get $BLOCK))))
        (local.set $pairs (i32.shr_u (i32.add (local.get $m) (i32.const 1)) (i32.const 1)))
        (call $prepare (local.get $i) (local.get $pairs) (local.get $logPhiV))
        (local.set $end (i32.shl (local.get $pairs) (i32.const 4)))
        (local.set $o (i32.const 0))
        (local.set $r (local.get $i))
        (loop $records
          (local.set $at (i32.shl (local.get $r) (i32.const 3)))
          (local.set $yv (v128.load (i32.add (global.get $y) (local.get $at))))
          (local.set $l
            (f64x2.add
              (f64x2.sub
                (call $gather (global.get $cst) (local.get $r))
                (f64x2.mul
                  (f64x2.add (local.get $phiV) (local.get $yv))
                  (v128.load (i32.add (global.get $lbuf) (local.get $o)))))
              (f64x2.mul
                (local.get $yv)
                (v128.load (i32.add (global.get $dbuf) (local.get $o))))))
          (local.set $at (i32.add (global.get $out) (local.get $at)))
          ;; A final odd record writes lane 0 only.
          (if (i32.eq (i32.add (local.get $r) (i32.const 1)) (local.get $to))
            (then (v128.store64_lane 0 (local.get $at) (local.get $l)))
            (else (v128.store (local.get $at) (local.get $l))))
          (local.set $r (i32.add (local.get $r) (i32.const 2)))
          (br_if $records
            (i32.lt_u (local.tee $o (i32.add (local.get $o) (i32.const 16))) (local.get $end))))
        (local.set $i (i32.add (local.get $i) (local.get $m)))
        (br $blocks)))))

