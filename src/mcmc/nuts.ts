/**
 * The No-U-Turn sampler with multinomial trajectory sampling, as Stan 2.3x implements it
 * (`stan/mcmc/hmc/nuts/base_nuts.hpp`; Hoffman & Gelman 2014; Betancourt 2017, "A conceptual
 * introduction to Hamiltonian Monte Carlo", Appendix A), with a diagonal or dense Euclidean
 * metric (`metric.ts`; Stan's `diag_e` and `dense_e`).
 *
 * The kernel is two functions in the BlackJAX style: `nutsInit(position, logDensity)` and
 * `nutsStep(rng, state, params, logDensity) → {state, info}`. Adaptation lives elsewhere
 * (`warmup.ts`) and only chooses `params`, so changing warmup never changes sampling.
 *
 * Hamiltonian H(q, p) = −log π(q) + ½·pᵀM⁻¹p, momentum p ~ N(0, M), and the "sharp" momentum
 * p♯ = M⁻¹p (for the diagonal metric M⁻¹ = diag(m): ½·Σ_j m_j p_j², p_j ~ N(0, 1/m_j)). One
 * transition:
 * - the trajectory doubles (depth 0, 1, 2, …) in a uniformly random time direction until a
 *   subtree is invalid, the no-U-turn criterion fails, or the depth reaches `maxTreeDepth`;
 * - a new subtree of weight W_new replaces the current sample with probability
 *   min(1, W_new / W_old) (biased progressive sampling); inside a subtree the two halves are
 *   merged by uniform progressive sampling, W_right / (W_left + W_right); a state's weight is
 *   exp(H0 − H);
 * - the generalized no-U-turn criterion p♯₋·ρ > 0 and p♯₊·ρ > 0 (ρ the summed momenta) is
 *   checked over every merged tree, and, since Stan 2.26, also over each half extended by the
 *   first state of the other half;
 * - a state with H − H0 > 1000 (or a non-finite log density) is divergent: its subtree is
 *   rejected and the trajectory stops;
 * - the acceptance statistic for step-size adaptation is the mean over all leapfrog states of
 *   min(1, exp(H0 − H)).
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import { diagMetric, type InverseMetric, type Metric, toMetric } from "./metric.ts";

/**
 * An unnormalised log density on the unconstrained scale: writes ∇ log π(u) into `grad` and
 * returns log π(u). It may return −∞ or NaN (the sampler rejects such points and counts a
 * divergence); it should not throw.
 */
export type LogDensityFn = (u: Float64Array, grad: Float64Array) => number;

/** The NUTS state: a position with its log density and gradient (never mutated). */
export interface NutsState {
  readonly position: Float64Array;
  readonly logDensity: number;
  readonly gradient: Float64Array;
}

/**
 * Tuning parameters of one NUTS transition (Stan: `stepsize`, `inv_metric`, `max_depth`). The
 * metric is given either as `inverseMassDiag` (the diagonal metric) or as `metric`, not both.
 */
export interface NutsParams {
  /** Leapfrog step size ε > 0. */
  readonly stepSize: number;
  /** Diagonal of the inverse mass matrix M⁻¹, all entries > 0 (the diagonal metric). */
  readonly inverseMassDiag?: Float64Array;
  /** The Euclidean metric (see `metric.ts`), instead of `inverseMassDiag`. */
  readonly metric?: Metric;
  /** Largest number of trajectory doublings (Stan's default 10). */
  readonly maxTreeDepth?: number;
}

/** What happened in one NUTS transition (Stan's sampler diagnostics). */
export interface NutsInfo {
  /** Mean of min(1, exp(H0 − H)) over every leapfrog state (Stan's `accept_stat__`). */
  readonly acceptanceRate: number;
  /** Whether some state had H − H0 > 1000 or a non-finite log density (`divergent__`). */
  readonly divergent: boolean;
  /** Number of accepted doublings (`treedepth__`). */
  readonly treeDepth: number;
  /** Number of leapfrog steps, i.e. gradient evaluations (`n_leapfrog__`). */
  readonly numLeapfrog: number;
  /** H at the selected state, with its momentum (`energy__`). */
  readonly energy: number;
  /** Whether the trajectory stopped because `treeDepth` reached `maxTreeDepth`. */
  readonly hitMaxDepth: boolean;
}

/** Stan's default maximum tree depth. */
export const DEFAULT_MAX_TREE_DEPTH = 10;

/** Stan's divergence threshold on H − H0 (`max_deltaH_`). */
export const MAX_DELTA_H = 1000;

/**
 * Starts a chain at `position`: evaluates the log density and its gradient there.
 *
 * @param position The unconstrained starting point (copied).
 * @param logDensity The target.
 * @returns The state at `position`.
 * @throws {RangeError} When the log density or its gradient is not finite there.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nutsInit } from "./nuts.ts";
 * const state = nutsInit(Float64Array.of(1), (u, g) => {
 *   g[0] = -u[0];
 *   return -0.5 * u[0] * u[0];
 * });
 * assert.equal(state.logDensity, -0.5);
 * assert.equal(state.gradient[0], -1);
 * ```
 */
export function nutsInit(position: Float64Array, logDensity: LogDensityFn): NutsState {
  const q = Float64Array.from(position);
  const g = new Float64Array(q.length);
  const lp = logDensity(q, g);
  if (!Number.isFinite(lp) || !g.every(Number.isFinite)) {
    throw new RangeError(
      `Cannot start NUTS as the log density or its gradient is not finite at the position: ` +
        `logDensity=${lp}, position=[${[...q].join(", ")}]`,
    );
  }
  return { position: q, logDensity: lp, gradient: g };
}

/**
 * Draws a momentum p ~ N(0, M) into `p` (Stan's `sample_p`): p_j = z_j/√m_j for the diagonal
 * metric M⁻¹ = diag(m), p = L⁻ᵀz for the dense one (z standard normal).
 *
 * @param rng The random stream.
 * @param inverseMetric The metric, or the diagonal m of M⁻¹.
 * @param p Output momentum.
 */
export function sampleMomentum(rng: Rng, inverseMetric: InverseMetric, p: Float64Array): void {
  toMetric(inverseMetric).sampleMomentum(rng, p);
}

/**
 * Kinetic energy ½·pᵀM⁻¹p (½·Σ_j m_j p_j² for the diagonal metric).
 *
 * @param p Momentum.
 * @param inverseMetric The metric, or the diagonal m of M⁻¹.
 * @returns The kinetic energy.
 */
export function kineticEnergy(p: Float64Array, inverseMetric: InverseMetric): number {
  return toMetric(inverseMetric).kineticEnergy(p);
}

/**
 * One leapfrog step of size ε (negative to integrate backwards), in place (Stan's
 * `expl_leapfrog`): p ← p + ½ε∇log π(q); q ← q + εM⁻¹p; p ← p + ½ε∇log π(q).
 *
 * @param q Position, updated.
 * @param p Momentum, updated.
 * @param grad ∇ log π at `q` on entry, at the new `q` on exit.
 * @param stepSize ε.
 * @param inverseMetric The metric, or the diagonal m of M⁻¹.
 * @param logDensity The target.
 * @returns log π at the new position (possibly −∞ or NaN).
 *
 * @example One step on a standard normal, computed by hand
 * ```ts
 * import assert from "node:assert/strict";
 * import { leapfrog } from "./nuts.ts";
 * const q = Float64Array.of(1), p = Float64Array.of(0), g = Float64Array.of(-1);
 * const f = (u: Float64Array, gr: Float64Array) => ((gr[0] = -u[0]), -0.5 * u[0] * u[0]);
 * leapfrog(q, p, g, 0.5, Float64Array.of(1), f);
 * // p = −0.25, q = 0.875, p = −0.25 − 0.25·0.875
 * assert.equal(q[0], 0.875);
 * assert.equal(p[0], -0.46875);
 * ```
 */
export function leapfrog(
  q: Float64Array,
  p: Float64Array,
  grad: Float64Array,
  stepSize: number,
  inverseMetric: InverseMetric,
  logDensity: LogDensityFn,
): number {
  return leapfrogStep(q, p, grad, stepSize, toMetric(inverseMetric), logDensity);
}

function leapfrogStep(
  q: Float64Array,
  p: Float64Array,
  grad: Float64Array,
  stepSize: number,
  metric: Metric,
  logDensity: LogDensityFn,
): number {
  const half = 0.5 * stepSize;
  for (let j = 0; j < q.length; j++) p[j] += half * grad[j];
  metric.drift(q, p, stepSize);
  const lp = logDensity(q, grad);
  for (let j = 0; j < q.length; j++) p[j] += half * grad[j];
  return lp;
}

/** A phase-space point: position, momentum, gradient and log density. */
interface Point {
  readonly q: Float64Array;
  readonly p: Float64Array;
  readonly g: Float64Array;
  lp: number;
}

function newPoint(dim: number): Point {
  return {
    q: new Float64Array(dim),
    p: new Float64Array(dim),
    g: new Float64Array(dim),
    lp: 0,
  };
}

function copyPoint(to: Point, from: Point): void {
  to.q.set(from.q);
  to.p.set(from.p);
  to.g.set(from.g);
  to.lp = from.lp;
}

/**
 * The trajectory's buffers as one extension sees them: the end it grows from, the new subtree's
 * and the old trajectory's momenta next to the join (inner) and at the far end (outer).
 */
interface Side {
  readonly forwards: boolean;
  readonly end: Point;
  readonly pOuter: Float64Array;
  readonly pSharpOuter: Float64Array;
  readonly pNewInner: Float64Array;
  readonly pSharpNewInner: Float64Array;
  readonly pOldInner: Float64Array;
  readonly pSharpOldInner: Float64Array;
  readonly rhoNew: Float64Array;
  readonly rhoOld: Float64Array;
}

/** Scratch space of one transition, reused across transitions of the same dimension and depth. */
interface Workspace {
  readonly dim: number;
  readonly maxDepth: number;
  busy: boolean;
  // The point being integrated, the trajectory's two ends, the sample and the proposal.
  readonly z: Point;
  readonly zFwd: Point;
  readonly zBck: Point;
  readonly zSample: Point;
  readonly zPropose: Point;
  // Momenta and sharp momenta at the ends of the forward and backward parts of the trajectory.
  readonly pFwdFwd: Float64Array;
  readonly pSharpFwdFwd: Float64Array;
  readonly pFwdBck: Float64Array;
  readonly pSharpFwdBck: Float64Array;
  readonly pBckFwd: Float64Array;
  readonly pSharpBckFwd: Float64Array;
  readonly pBckBck: Float64Array;
  readonly pSharpBckBck: Float64Array;
  readonly rho: Float64Array;
  readonly rhoFwd: Float64Array;
  readonly rhoBck: Float64Array;
  readonly rhoExtended: Float64Array;
  // The same buffers seen from each direction the trajectory can be extended in.
  readonly forward: Side;
  readonly backward: Side;
  // Per-depth scratch of `buildTree` (slot d is used only by the call at depth d).
  readonly pInitEnd: Float64Array[];
  readonly pSharpInitEnd: Float64Array[];
  readonly rhoInit: Float64Array[];
  readonly pFinalBeg: Float64Array[];
  readonly pSharpFinalBeg: Float64Array[];
  readonly rhoFinal: Float64Array[];
  readonly rhoSubtree: Float64Array[];
  readonly zProposeFinal: Point[];
  // Per-transition accumulators.
  nLeapfrog: number;
  sumMetroProb: number;
  divergent: boolean;
  /** Log of the summed weights of the subtree `buildTree` last returned. */
  logSumWeight: number;
}

function newWorkspace(dim: number, maxDepth: number): Workspace {
  const vec = () => new Float64Array(dim);
  const perDepth = () => Array.from({ length: maxDepth }, vec);
  const zFwd = newPoint(dim);
  const zBck = newPoint(dim);
  const [pFwdFwd, pSharpFwdFwd, pFwdBck, pSharpFwdBck] = [vec(), vec(), vec(), vec()];
  const [pBckFwd, pSharpBckFwd, pBckBck, pSharpBckBck] = [vec(), vec(), vec(), vec()];
  const [rhoFwd, rhoBck] = [vec(), vec()];
  return {
    dim,
    maxDepth,
    busy: false,
    z: newPoint(dim),
    zFwd,
    zBck,
    zSample: newPoint(dim),
    zPropose: newPoint(dim),
    pFwdFwd,
    pSharpFwdFwd,
    pFwdBck,
    pSharpFwdBck,
    pBckFwd,
    pSharpBckFwd,
    pBckBck,
    pSharpBckBck,
    rho: vec(),
    rhoFwd,
    rhoBck,
    rhoExtended: vec(),
    forward: {
      forwards: true,
      end: zFwd,
      pOuter: pFwdFwd,
      pSharpOuter: pSharpFwdFwd,
      pNewInner: pFwdBck,
      pSharpNewInner: pSharpFwdBck,
      pOldInner: pBckFwd,
      pSharpOldInner: pSharpBckFwd,
      rhoNew: rhoFwd,
      rhoOld: rhoBck,
    },
    backward: {
      forwards: false,
      end: zBck,
      pOuter: pBckBck,
      pSharpOuter: pSharpBckBck,
      pNewInner: pBckFwd,
      pSharpNewInner: pSharpBckFwd,
      pOldInner: pFwdBck,
      pSharpOldInner: pSharpFwdBck,
      rhoNew: rhoBck,
      rhoOld: rhoFwd,
    },
    pInitEnd: perDepth(),
    pSharpInitEnd: perDepth(),
    rhoInit: perDepth(),
    pFinalBeg: perDepth(),
    pSharpFinalBeg: perDepth(),
    rhoFinal: perDepth(),
    rhoSubtree: perDepth(),
    zProposeFinal: Array.from({ length: maxDepth }, () => newPoint(dim)),
    nLeapfrog: 0,
    sumMetroProb: 0,
    divergent: false,
    logSumWeight: -Infinity,
  };
}

/** One cached workspace per dimension; a re-entrant call gets a fresh one. */
const workspaces = new Map<number, Workspace>();

function acquireWorkspace(dim: number, maxDepth: number): Workspace {
  const cached = workspaces.get(dim);
  if (cached !== undefined && !cached.busy && cached.maxDepth >= maxDepth) {
    cached.busy = true;
    return cached;
  }
  const fresh = newWorkspace(dim, maxDepth);
  if (cached === undefined || !cached.busy) workspaces.set(dim, fresh);
  fresh.busy = true;
  return fresh;
}

function logSumExp(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

/** H = −log π(q) + ½pᵀM⁻¹p; a non-finite H counts as +∞ (Stan maps NaN to +∞). */
function hamiltonian(z: Point, metric: Metric): number {
  const h = -z.lp + metric.kineticEnergy(z.p);
  return Number.isFinite(h) ? h : Infinity;
}

/** The generalized no-U-turn criterion p♯₋·ρ > 0 and p♯₊·ρ > 0 (Stan's `compute_criterion`). */
function criterion(
  pSharpMinus: Float64Array,
  pSharpPlus: Float64Array,
  rho: Float64Array,
): boolean {
  let plus = 0;
  let minus = 0;
  for (let j = 0; j < rho.length; j++) {
    plus += pSharpPlus[j] * rho[j];
    minus += pSharpMinus[j] * rho[j];
  }
  return plus > 0 && minus > 0;
}

function addInto(out: Float64Array, a: Float64Array, b: Float64Array): void {
  for (let j = 0; j < out.length; j++) out[j] = a[j] + b[j];
}

/**
 * Builds a subtree of 2^depth leapfrog steps from `ws.z` in direction `sign` (Stan's
 * `build_tree`). Writes the proposal into `zPropose`, the sharp momenta and momenta at the
 * subtree's beginning and end, adds its summed momenta to `rho`, and leaves the log of its
 * summed weights in `ws.logSumWeight`. Returns whether the subtree is valid (no divergence,
 * no U-turn inside it).
 */
function buildTree(
  ws: Workspace,
  rng: Rng,
  depth: number,
  zPropose: Point,
  pSharpBeg: Float64Array,
  pSharpEnd: Float64Array,
  rho: Float64Array,
  pBeg: Float64Array,
  pEnd: Float64Array,
  h0: number,
  signedStep: number,
  metric: Metric,
  logDensity: LogDensityFn,
): boolean {
  if (depth === 0) {
    const z = ws.z;
    z.lp = leapfrogStep(z.q, z.p, z.g, signedStep, metric, logDensity);
    ws.nLeapfrog++;
    const h = hamiltonian(z, metric);
    if (h - h0 > MAX_DELTA_H) ws.divergent = true;
    ws.logSumWeight = h0 - h;
    ws.sumMetroProb += h0 - h > 0 ? 1 : Math.exp(h0 - h);
    copyPoint(zPropose, z);
    metric.sharp(pSharpBeg, z.p);
    pSharpEnd.set(pSharpBeg);
    for (let j = 0; j < rho.length; j++) rho[j] += z.p[j];
    pBeg.set(z.p);
    pEnd.set(z.p);
    return !ws.divergent;
  }

  // The initial half.
  const pInitEnd = ws.pInitEnd[depth];
  const pSharpInitEnd = ws.pSharpInitEnd[depth];
  const rhoInit = ws.rhoInit[depth].fill(0);
  const validInit = buildTree(
    ws,
    rng,
    depth - 1,
    zPropose,
    pSharpBeg,
    pSharpInitEnd,
    rhoInit,
    pBeg,
    pInitEnd,
    h0,
    signedStep,
    metric,
    logDensity,
  );
  if (!validInit) return false;
  const logSumWeightInit = ws.logSumWeight;

  // The final half.
  const zProposeFinal = ws.zProposeFinal[depth];
  const pFinalBeg = ws.pFinalBeg[depth];
  const pSharpFinalBeg = ws.pSharpFinalBeg[depth];
  const rhoFinal = ws.rhoFinal[depth].fill(0);
  const validFinal = buildTree(
    ws,
    rng,
    depth - 1,
    zProposeFinal,
    pSharpFinalBeg,
    pSharpEnd,
    rhoFinal,
    pFinalBeg,
    pEnd,
    h0,
    signedStep,
    metric,
    logDensity,
  );
  if (!validFinal) return false;
  const logSumWeightFinal = ws.logSumWeight;

  // Uniform multinomial sample between the halves.
  const logSumWeightSubtree = logSumExp(logSumWeightInit, logSumWeightFinal);
  ws.logSumWeight = logSumWeightSubtree;
  if (logSumWeightFinal > logSumWeightSubtree) {
    copyPoint(zPropose, zProposeFinal);
  } else if (rng.uniform() < Math.exp(logSumWeightFinal - logSumWeightSubtree)) {
    copyPoint(zPropose, zProposeFinal);
  }

  const rhoSubtree = ws.rhoSubtree[depth];
  addInto(rhoSubtree, rhoInit, rhoFinal);
  for (let j = 0; j < rho.length; j++) rho[j] += rhoSubtree[j];

  // Around the merged subtree, then between its halves (Stan 2.26).
  if (!criterion(pSharpBeg, pSharpEnd, rhoSubtree)) return false;
  addInto(rhoSubtree, rhoInit, pFinalBeg);
  if (!criterion(pSharpBeg, pSharpFinalBeg, rhoSubtree)) return false;
  addInto(rhoSubtree, rhoFinal, pInitEnd);
  return criterion(pSharpInitEnd, pSharpEnd, rhoSubtree);
}

function checkDimension(name: string, length: number, dim: number): void {
  if (length !== dim) {
    throw new RangeError(
      `Invalid ${name}: its dimension must equal the dimension ${dim}: length=${length}`,
    );
  }
}

/** Checks `params` against the dimension and returns the metric they give. */
function checkParams(dim: number, params: NutsParams, maxDepth: number): Metric {
  if (!(params.stepSize > 0 && Number.isFinite(params.stepSize))) {
    throw new RangeError(`Invalid stepSize: must be finite and > 0: stepSize=${params.stepSize}`);
  }
  if (!Number.isInteger(maxDepth) || maxDepth < 1) {
    throw new RangeError(`Invalid maxTreeDepth: must be an integer ≥ 1: maxTreeDepth=${maxDepth}`);
  }
  const { inverseMassDiag, metric } = params;
  if (metric === undefined) {
    if (inverseMassDiag === undefined) {
      throw new TypeError("Invalid params: give inverseMassDiag or metric: both are absent");
    }
    checkDimension("inverseMassDiag", inverseMassDiag.length, dim);
    return diagMetric(inverseMassDiag);
  }
  if (inverseMassDiag !== undefined) {
    throw new TypeError("Invalid params: give inverseMassDiag or metric, not both");
  }
  checkDimension("metric", metric.dim, dim);
  return metric;
}

/**
 * One multinomial NUTS transition (Stan 2.3x `base_nuts::transition`; see the module doc).
 *
 * Random numbers are drawn in Stan's order: the momentum, then per doubling the direction, the
 * merge draws inside the new subtree, and the biased progressive draw.
 *
 * @param rng The chain's random stream.
 * @param state The current state.
 * @param params Step size, metric (or the diagonal of M⁻¹) and maximum tree depth.
 * @param logDensity The target; non-finite values count as divergences, never throw.
 * @returns The next state and what happened.
 *
 * @example A standard normal: moves, with a fair acceptance statistic
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "../random/rng.ts";
 * import { nutsInit, nutsStep } from "./nuts.ts";
 * const f = (u: Float64Array, g: Float64Array) => ((g[0] = -u[0]), -0.5 * u[0] * u[0]);
 * const { state, info } = nutsStep(new Rng(1), nutsInit(Float64Array.of(0.5), f), {
 *   stepSize: 0.5,
 *   inverseMassDiag: Float64Array.of(1),
 * }, f);
 * assert.ok(info.acceptanceRate > 0.5 && !info.divergent);
 * assert.notEqual(state.position[0], 0.5);
 * ```
 */
export function nutsStep(
  rng: Rng,
  state: NutsState,
  params: NutsParams,
  logDensity: LogDensityFn,
): { state: NutsState; info: NutsInfo } {
  const dim = state.position.length;
  const maxDepth = params.maxTreeDepth ?? DEFAULT_MAX_TREE_DEPTH;
  const metric = checkParams(dim, params, maxDepth);
  const ws = acquireWorkspace(dim, maxDepth);
  try {
    return transition(ws, rng, state, params.stepSize, metric, maxDepth, logDensity);
  } finally {
    ws.busy = false;
  }
}

function transition(
  ws: Workspace,
  rng: Rng,
  state: NutsState,
  stepSize: number,
  metric: Metric,
  maxDepth: number,
  logDensity: LogDensityFn,
): { state: NutsState; info: NutsInfo } {
  const z = ws.z;
  z.q.set(state.position);
  z.g.set(state.gradient);
  z.lp = state.logDensity;
  metric.sampleMomentum(rng, z.p);

  copyPoint(ws.zFwd, z);
  copyPoint(ws.zBck, z);
  copyPoint(ws.zSample, z);
  copyPoint(ws.zPropose, z);

  metric.sharp(ws.pSharpFwdFwd, z.p);
  ws.pFwdFwd.set(z.p);
  ws.pFwdBck.set(z.p);
  ws.pSharpFwdBck.set(ws.pSharpFwdFwd);
  ws.pBckFwd.set(z.p);
  ws.pSharpBckFwd.set(ws.pSharpFwdFwd);
  ws.pBckBck.set(z.p);
  ws.pSharpBckBck.set(ws.pSharpFwdFwd);
  ws.rho.set(z.p);

  let logSumWeight = 0; // log(exp(H0 − H0))
  const h0 = hamiltonian(z, metric);
  ws.nLeapfrog = 0;
  ws.sumMetroProb = 0;
  ws.divergent = false;
  let depth = 0;

  while (depth < maxDepth) {
    ws.rhoFwd.fill(0);
    ws.rhoBck.fill(0);
    // Extend forwards or backwards: the old trajectory becomes the other side's subtree.
    const side = rng.uniform() > 0.5 ? ws.forward : ws.backward;
    copyPoint(z, side.end);
    side.rhoOld.set(ws.rho);
    side.pOldInner.set(side.pOuter);
    side.pSharpOldInner.set(side.pSharpOuter);
    const valid = buildTree(
      ws,
      rng,
      depth,
      ws.zPropose,
      side.pSharpNewInner,
      side.pSharpOuter,
      side.rhoNew,
      side.pNewInner,
      side.pOuter,
      h0,
      side.forwards ? stepSize : -stepSize,
      metric,
      logDensity,
    );
    copyPoint(side.end, z);
    if (!valid) break;
    depth++;

    // Biased progressive sampling between the new subtree and the old trajectory.
    const logSumWeightSubtree = ws.logSumWeight;
    if (logSumWeightSubtree > logSumWeight) {
      copyPoint(ws.zSample, ws.zPropose);
    } else if (rng.uniform() < Math.exp(logSumWeightSubtree - logSumWeight)) {
      copyPoint(ws.zSample, ws.zPropose);
    }
    logSumWeight = logSumExp(logSumWeight, logSumWeightSubtree);

    // No-U-turn around the whole trajectory, then between the old and the new part.
    addInto(ws.rho, ws.rhoBck, ws.rhoFwd);
    if (!criterion(ws.pSharpBckBck, ws.pSharpFwdFwd, ws.rho)) break;
    addInto(ws.rhoExtended, ws.rhoBck, ws.pFwdBck);
    if (!criterion(ws.pSharpBckBck, ws.pSharpFwdBck, ws.rhoExtended)) break;
    addInto(ws.rhoExtended, ws.rhoFwd, ws.pBckFwd);
    if (!criterion(ws.pSharpBckFwd, ws.pSharpFwdFwd, ws.rhoExtended)) break;
  }

  const sample = ws.zSample;
  return {
    state: {
      position: Float64Array.from(sample.q),
      logDensity: sample.lp,
      gradient: Float64Array.from(sample.g),
    },
    info: {
      acceptanceRate: ws.sumMetroProb / ws.nLeapfrog,
      divergent: ws.divergent,
      treeDepth: depth,
      numLeapfrog: ws.nLeapfrog,
      energy: hamiltonian(sample, metric),
      hitMaxDepth: depth >= maxDepth,
    },
  };
}
