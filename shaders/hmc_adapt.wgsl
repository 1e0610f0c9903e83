// End of one many-chain HMC iteration and start of the next, in a single workgroup
// (src/gpu/hmc.ts; the algorithm and its constants are documented in src/gpu/chees.ts).
//
// First every chain's Metropolis test. Then, while adapting (iteration n < params.adapt_end),
// from the chains' acceptance probabilities a_c, trajectory starts q0_c, proposals qp_c, final
// momenta p_c and new states q_c:
//   step size  dual averaging (Hoffman & Gelman 2014, Alg. 6) on the mean of a_c over chains;
//   trajectory ChEES (Hoffman, Radul & Sountsov 2021): the gradient of
//              ¼(‖qp − q̄p‖² − ‖q0 − q̄0‖²)² with respect to the trajectory length, in the
//              metric's whitened coordinates, acceptance-weighted over chains, drives an
//              RMSProp step on log T;
//   metric     M⁻¹ = cross-chain variance of q, as an exponential moving average whose window
//              grows with n (Sountsov & Hoffman 2022, SNAPER-HMC), scaled so its maximum is 1.
// Then the next iteration begins: jitter h = van der Corput(n + 1), L = ⌈h·T/ε⌉ leapfrog steps
// (at most params.max_steps; also written as the indirect dispatch sizes of the tiled path), a
// Philox momentum per chain from counter (iteration, chain, 0, block), H₀, the start saved and
// the opening half kick and drift.

const WG_A: u32 = 256u;
// RMSProp decay of the squared ChEES gradient and the clip of one log-T update (TFP's
// GradientBasedTrajectoryLengthAdaptation: 0.95 and ~log(2)/2).
const CHEES_RMS_DECAY: f32 = 0.95;
const CHEES_LOG_UPDATE_CLIP: f32 = 0.35;
// Chains whose acceptance probability is below this do not enter the ChEES gradient (as TFP).
const CHEES_MIN_ACCEPT: f32 = 1e-4;
// Smallest entry of the scaled inverse metric.
const MIN_INV_MASS: f32 = 1e-10;

var<workgroup> red_a: array<f32, WG_A>;
var<workgroup> start_mean: array<f32, MAX_D>;
var<workgroup> proposal_mean: array<f32, MAX_D>;
var<workgroup> state_mean: array<f32, MAX_D>;
var<workgroup> state_var: array<f32, MAX_D>;
var<workgroup> shared_iter: u32;
var<workgroup> shared_steps: u32;

// Sum of v over the workgroup's invocations by a tree reduction; every invocation gets it.
fn sum_all(lid: u32, v: f32) -> f32 {
  red_a[lid] = v;
  workgroupBarrier();
  for (var s = WG_A / 2u; s > 0u; s = s >> 1u) {
    if (lid < s) {
      red_a[lid] += red_a[lid + s];
    }
    workgroupBarrier();
  }
  let total = red_a[0];
  workgroupBarrier();
  return total;
}

fn accept_of(c: u32) -> f32 {
  return chain_f[c * chain_stride() + off_scalar() + CS_ACCEPT];
}

// The van der Corput (base-2 Halton) number of i to 24 bits: reverse the bits of i, keep the
// top 24, scale by 2⁻²⁴. Exact in f32.
fn van_der_corput(i: u32) -> f32 {
  return f32(reverseBits(i) >> 8u) * (1.0 / 16777216.0);
}

// The Metropolis test of chain c's trajectory (its closing half kick is done) against H₀,
// stored when the trajectory began, with H = −log π(q) + ½Σ m_j p_j² and a Philox uniform from
// counter (iteration, chain, 1, 0). A non-finite H, a non-finite value met on the trajectory, or
// H − H₀ > `params.divergence` rejects the proposal and counts a divergence. The proposal is
// kept in qp for the trajectory-length adaptation; a rejection restores q₀, g₀ and log π₀; after
// warmup the state, the acceptance probability and the divergence flag go to `draws`.
fn metropolis(c: u32, iter: u32) {
  let d = params.d;
  let base = c * chain_stride();
  let q = base + off_q();
  let p = base + off_p();
  let sc = base + off_scalar();
  let m = off_inv_mass();
  let cu = c * CU_STRIDE;
  var kinetic = 0.0;
  for (var j = 0u; j < d; j++) {
    let pj = chain_f[p + j];
    kinetic += 0.5 * ctrl_f[m + j] * pj * pj;
    chain_f[base + off_qp() + j] = chain_f[q + j];
  }
  let h1 = kinetic - chain_f[sc + CS_LOGP];
  let dh = h1 - chain_f[sc + CS_H0];
  let divergent = chain_u[cu + CU_BAD] != 0u || !is_finite_f32(h1) || !(dh <= params.divergence);
  var accept_prob = 0.0;
  if (!divergent) {
    accept_prob = select(exp(-dh), 1.0, dh <= 0.0);
  }
  let w = philox4x32(vec4<u32>(iter, c, 1u, 0u), vec2<u32>(params.key0, params.key1));
  if (!(philox_uniform(w.x) < accept_prob)) {
    for (var j = 0u; j < d; j++) {
      chain_f[q + j] = chain_f[base + off_q0() + j];
      chain_f[base + off_g() + j] = chain_f[base + off_g0() + j];
    }
    chain_f[sc + CS_LOGP] = chain_f[sc + CS_LOGP0];
  }
  chain_f[sc + CS_ACCEPT] = accept_prob;
  if (iter < params.warmup) {
    if (divergent) {
      chain_u[cu + CU_DIV_WARMUP] += 1u;
    }
    return;
  }
  let slot = iter - params.draw_base;
  if (iter >= params.draw_base && slot < params.batch_draws) {
    let row = (slot * params.chains + c) * (d + 2u);
    for (var j = 0u; j < d; j++) {
      draws[row + j] = chain_f[q + j];
    }
    draws[row + d] = accept_prob;
    draws[row + d + 1u] = select(0.0, 1.0, divergent);
  }
}

fn adapt_step(lid: u32, n: u32) {
  let chains = params.chains;
  let d = params.d;
  let fc = f32(chains);
  let stride = chain_stride();
  let m = off_inv_mass();

  var a_local = 0.0;
  for (var c = lid; c < chains; c += WG_A) {
    a_local += accept_of(c);
  }
  let a_sum = sum_all(lid, a_local);

  // Cross-chain mean of the starts and acceptance-weighted mean of the finite proposals.
  for (var j = 0u; j < d; j++) {
    var s0 = 0.0;
    var sp = 0.0;
    for (var c = lid; c < chains; c += WG_A) {
      let base = c * stride;
      s0 += chain_f[base + off_q0() + j];
      let a = accept_of(c);
      let x = chain_f[base + off_qp() + j];
      if (a > 0.0 && is_finite_f32(x)) {
        sp += a * x;
      }
    }
    let t0 = sum_all(lid, s0);
    let tp = sum_all(lid, sp);
    if (lid == 0u) {
      start_mean[j] = t0 / fc;
      proposal_mean[j] = tp / (a_sum + 1e-20);
    }
  }
  workgroupBarrier();

  // ChEES gradient per chain: h·(‖qp − q̄p‖²_w − ‖q0 − q̄0‖²_w)·⟨qp − q̄p, p⟩, with ‖x‖²_w =
  // Σ x_j²/m_j (whitened coordinates z = x/√m, whose velocity √m⊙p makes the inner product
  // metric-free), weighted by a_c.
  let h = ctrl_f[CF_JITTER];
  var g_local = 0.0;
  for (var c = lid; c < chains; c += WG_A) {
    let a = accept_of(c);
    if (a > CHEES_MIN_ACCEPT) {
      let base = c * stride;
      var delta = 0.0;
      var dot = 0.0;
      for (var j = 0u; j < d; j++) {
        let xp = chain_f[base + off_qp() + j] - proposal_mean[j];
        let x0 = chain_f[base + off_q0() + j] - start_mean[j];
        delta += (xp * xp - x0 * x0) / ctrl_f[m + j];
        dot += xp * chain_f[base + off_p() + j];
      }
      let gc = h * delta * dot;
      if (is_finite_f32(gc)) {
        g_local += a * gc;
      }
    }
  }
  let g_sum = sum_all(lid, g_local);

  // Cross-chain mean and variance (divisor C) of the new states.
  for (var j = 0u; j < d; j++) {
    var s = 0.0;
    for (var c = lid; c < chains; c += WG_A) {
      s += chain_f[c * stride + off_q() + j];
    }
    let mean = sum_all(lid, s) / fc;
    var v = 0.0;
    for (var c = lid; c < chains; c += WG_A) {
      let x = chain_f[c * stride + off_q() + j] - mean;
      v += x * x;
    }
    let variance = sum_all(lid, v) / fc;
    if (lid == 0u) {
      state_mean[j] = mean;
      state_var[j] = variance;
    }
  }
  workgroupBarrier();

  if (lid == 0u) {
    let t = f32(n + 1u);
    // Dual averaging of log ε.
    let t0 = params.da_t0;
    let hbar = (1.0 - 1.0 / (t + t0)) * ctrl_f[CF_HBAR] +
      (params.target_accept - a_sum / fc) / (t + t0);
    let x = ctrl_f[CF_MU] - sqrt(t) / params.da_gamma * hbar;
    let wx = pow(t, -params.da_kappa);
    let log_eps_bar = wx * x + (1.0 - wx) * ctrl_f[CF_LOG_EPS_BAR];
    var eps = exp(x);
    ctrl_f[CF_HBAR] = hbar;
    ctrl_f[CF_LOG_EPS_BAR] = log_eps_bar;

    // RMSProp step on log T with the acceptance-weighted ChEES gradient, then iterate averaging.
    let grad = g_sum / (a_sum + 1e-20);
    var traj = ctrl_f[CF_T];
    let rms = CHEES_RMS_DECAY * ctrl_f[CF_RMS] + (1.0 - CHEES_RMS_DECAY) * grad * grad;
    if (is_finite_f32(grad) && is_finite_f32(rms)) {
      ctrl_f[CF_RMS] = rms;
      let rms_hat = rms / (1.0 - pow(CHEES_RMS_DECAY, t));
      let update = clamp(
        params.traj_rate * grad / sqrt(rms_hat + 1e-20),
        -CHEES_LOG_UPDATE_CLIP,
        CHEES_LOG_UPDATE_CLIP,
      );
      traj = traj * exp(update);
    }
    let wt = 1.0 / sqrt(t);
    let traj_bar = exp(wt * log(traj) + (1.0 - wt) * log(1e-10 + ctrl_f[CF_T_BAR]));
    ctrl_f[CF_T_BAR] = traj_bar;

    // Exponential moving average of the cross-chain mean and variance (Welford's update with
    // the number of points clamped to ⌊(n+1)/ema_factor⌋), M⁻¹ = variance / max variance.
    let points = ctrl_u[CC_EMA_POINTS];
    let w = 1.0 / (f32(points) + 1.0);
    var vmax = 0.0;
    for (var j = 0u; j < d; j++) {
      let mean = ctrl_f[off_ema_mean() + j];
      let variance = ctrl_f[off_ema_var() + j];
      let md = state_mean[j] - mean;
      let new_var = variance + w * ((state_var[j] - variance) + (1.0 - w) * md * md);
      ctrl_f[off_ema_mean() + j] = mean + md * w;
      ctrl_f[off_ema_var() + j] = new_var;
      vmax = max(vmax, new_var);
    }
    ctrl_u[CC_EMA_POINTS] = min(points + 1u, max(1u, (n + 1u) / params.ema_factor));
    if (vmax > 0.0 && is_finite_f32(vmax)) {
      for (var j = 0u; j < d; j++) {
        ctrl_f[m + j] = max(ctrl_f[off_ema_var() + j] / vmax, MIN_INV_MASS);
      }
    }

    // The last adaptation iteration fixes ε = exp(log ε̄) and T = T̄ for the rest of the run.
    if (n + 1u == params.adapt_end) {
      eps = exp(log_eps_bar);
      traj = traj_bar;
    }
    ctrl_f[CF_EPS] = eps;
    ctrl_f[CF_T] = min(traj, eps * f32(params.max_steps));
  }
  storageBarrier();
  workgroupBarrier();
}

fn begin_iteration(lid: u32, n: u32) {
  if (lid == 0u) {
    let h = van_der_corput(n + 1u);
    let raw = ceil(h * ctrl_f[CF_T] / ctrl_f[CF_EPS]);
    var steps = params.max_steps;
    var capped = true;
    if (raw <= f32(params.max_steps)) {
      steps = max(1u, u32(raw));
      capped = false;
    }
    ctrl_u[CC_ITER] = n;
    ctrl_u[CC_STEPS] = steps;
    ctrl_f[CF_JITTER] = h;
    if (n < params.total_iters) {
      ctrl_u[CC_STEP_SUM] += steps;
      if (capped && n >= params.warmup) {
        ctrl_u[CC_CAPPED] += 1u;
      }
    }
    shared_steps = steps;
  }
  let steps = workgroupUniformLoad(&shared_steps);
  for (var l = lid; l < params.max_steps; l += WG_A) {
    let on = l < steps;
    args[6u * l] = select(0u, params.tiles, on);
    args[6u * l + 1u] = params.chains;
    args[6u * l + 2u] = 1u;
    args[6u * l + 3u] = select(0u, params.chains, on);
    args[6u * l + 4u] = 1u;
    args[6u * l + 5u] = 1u;
  }

  let d = params.d;
  let eps = ctrl_f[CF_EPS];
  let m = off_inv_mass();
  let key = vec2<u32>(params.key0, params.key1);
  for (var c = lid; c < params.chains; c += WG_A) {
    let base = c * chain_stride();
    let sc = base + off_scalar();
    var kinetic = 0.0;
    for (var b = 0u; 4u * b < d; b++) {
      let w = philox4x32(vec4<u32>(n, c, 0u, b), key);
      let z01 = philox_normal2(w.x, w.y);
      let z23 = philox_normal2(w.z, w.w);
      var z = array<f32, 4>(z01.x, z01.y, z23.x, z23.y);
      for (var r = 0u; r < 4u; r++) {
        let j = 4u * b + r;
        if (j < d) {
          let mj = ctrl_f[m + j];
          let gj = chain_f[base + off_g() + j];
          let qj = chain_f[base + off_q() + j];
          kinetic += 0.5 * z[r] * z[r];
          chain_f[base + off_q0() + j] = qj;
          chain_f[base + off_g0() + j] = gj;
          let pj = z[r] / sqrt(mj) + 0.5 * eps * gj;
          chain_f[base + off_p() + j] = pj;
          chain_f[base + off_q() + j] = qj + eps * mj * pj;
        }
      }
    }
    let lp = chain_f[sc + CS_LOGP];
    chain_f[sc + CS_LOGP0] = lp;
    chain_f[sc + CS_H0] = kinetic - lp;
    chain_u[c * CU_STRIDE + CU_STEP] = 0u;
    chain_u[c * CU_STRIDE + CU_BAD] = 0u;
  }
}

// One workgroup: finish iteration ctrl_u[CC_ITER] (Metropolis tests, then adaptation while it is
// below adapt_end) and begin the next; in MODE_EVAL (after the starting points' evaluation)
// begin iteration 0.
@compute @workgroup_size(WG_A)
fn adapt(@builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) {
    shared_iter = ctrl_u[CC_ITER];
  }
  let n = workgroupUniformLoad(&shared_iter);
  var next = 0u;
  if (params.mode == MODE_RUN) {
    for (var c = lid; c < params.chains; c += WG_A) {
      metropolis(c, n);
    }
    storageBarrier();
    workgroupBarrier();
    if (n < params.adapt_end) {
      adapt_step(lid, n);
    }
    next = n + 1u;
  }
  begin_iteration(lid, next);
}
