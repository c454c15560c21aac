/**
 * What a bandit's results say about each arm when its allocation changed over time
 * (docs/rollouts-and-bandits.md, "Bandits").
 *
 * Pooling every user of an arm would be biased: an arm that gained traffic late is judged mostly on
 * late users, and if users (or the product around the prompt) changed over time, that is mixed up
 * with the arm itself. As GrowthBook's bandit results do, each period (a stretch of time under one
 * set of weights) is measured on its own: the arm's mean among the users who arrived in that period.
 * The periods are then averaged with weights proportional to each period's total traffic (all arms),
 * the same for every arm, so every arm is judged on the same mix of periods.
 */
import { normalQuantile, chiSquareSurvival } from './distributions.js';
import type { ArmPosterior } from './banditPosterior.js';
import { sampleRatioMismatch, type SrmResult } from './srm.js';
import type { Suff } from './types.js';

export type BanditKind = 'success_rate' | 'mean';

/** One arm's period-weighted estimate, with a (1 − alpha) interval. */
export interface ArmEstimate {
  estimate: number;
  se: number;
  lower: number;
  upper: number;
  /** Users of this arm in every period. */
  users: number;
  /**
   * The number of users a single, unweighted sample would need to be this precise (σ²/se²): equal to
   * `users` when the arm's share never changed, smaller when its periods are unevenly weighted.
   */
  effectiveUsers: number;
}

/**
 * Per-user variance of an arm over all its users, used for every period (per-period variances are
 * too noisy when a period has few users). A success rate's variance uses the Beta(1, 1) prior's
 * mean (s + 1)/(n + 2), so that 0 of 30 successes still has an honest, non-zero uncertainty.
 */
function pooledVariance(kind: BanditKind, cells: readonly Suff[]): number | null {
  let n = 0;
  let sum = 0;
  let sumSquares = 0;
  for (const c of cells) {
    n += c.n;
    sum += c.sum;
    sumSquares += c.sumSquares;
  }
  if (kind === 'success_rate') {
    if (n === 0) return null;
    const p = (sum + 1) / (n + 2);
    return p * (1 - p);
  }
  if (n < 2) return null;
  return Math.max(0, (sumSquares - (sum * sum) / n) / (n - 1));
}

/**
 * Period-weighted estimates, one per arm (null when the arm has no users yet, or fewer than 2 for a
 * mean). `periods[p][i]` are arm i's sufficient statistics among the users who arrived in period p.
 *
 * For arm i: θ̂ᵢ = Σₚ wₚ·ȳᵢₚ with wₚ = Nₚ / Σ Nₚ over the periods where arm i had users (Nₚ: every arm's
 * users in period p), and se² = σ̂ᵢ²·Σₚ wₚ²/nᵢₚ with σ̂ᵢ² the arm's pooled per-user variance. With a
 * single period this is the plain mean and its usual standard error.
 */
export function periodWeightedEstimates(kind: BanditKind, periods: readonly (readonly Suff[])[], alpha = 0.05): Array<ArmEstimate | null> {
  const k = periods[0]?.length ?? 0;
  const totals = periods.map((cells) => cells.reduce((s, c) => s + c.n, 0));
  const z = normalQuantile(1 - alpha / 2);
  const out: Array<ArmEstimate | null> = [];
  for (let i = 0; i < k; i++) {
    const cells = periods.map((p) => p[i]!);
    const variance = pooledVariance(kind, cells);
    const used = cells.map((c, p) => ({ c, total: totals[p]! })).filter(({ c }) => c.n > 0);
    const weightTotal = used.reduce((s, u) => s + u.total, 0);
    if (variance === null || weightTotal === 0) {
      out.push(null);
      continue;
    }
    let estimate = 0;
    let sumW2OverN = 0;
    let users = 0;
    for (const { c, total } of used) {
      const w = total / weightTotal;
      estimate += (w * c.sum) / c.n;
      sumW2OverN += (w * w) / c.n;
      users += c.n;
    }
    const se = Math.sqrt(variance * sumW2OverN);
    out.push({ estimate, se, lower: estimate - z * se, upper: estimate + z * se, users, effectiveUsers: 1 / sumW2OverN });
  }
  return out;
}

/**
 * The posterior an estimate stands for: a success rate's Beta with as many pseudo-observations as the
 * estimate's effective users (exactly Beta(1 + s, 1 + n − s) when the allocation never changed), a
 * mean's Normal(θ̂, se). Null estimates (no data yet) get the flat Beta(1, 1) for a success rate and
 * null for a mean (nothing can be said).
 */
export function armPosterior(kind: BanditKind, estimate: ArmEstimate | null): ArmPosterior | null {
  if (kind === 'success_rate') {
    if (estimate === null) return { kind: 'beta', alpha: 1, beta: 1 };
    const p = Math.min(1, Math.max(0, estimate.estimate));
    return { kind: 'beta', alpha: 1 + p * estimate.effectiveUsers, beta: 1 + (1 - p) * estimate.effectiveUsers };
  }
  return estimate === null ? null : { kind: 'normal', mean: estimate.estimate, sd: estimate.se };
}

/** One period's users per arm, and the weights in force while they arrived. */
export interface PeriodTraffic {
  observed: readonly number[];
  weights: readonly number[];
}

export interface PeriodSrm extends SrmResult {
  /** The sample-ratio check of each period on its own, in order. */
  periods: SrmResult[];
}

const SRM_P_THRESHOLD = 0.001;

/**
 * Sample-ratio mismatch against the weights actually in force: each period's χ² against its own
 * weights (srm.ts), then the periods' χ² and degrees of freedom added up into one test (independent
 * periods: a sum of χ² is χ² with the summed degrees of freedom). Only periods whose own test applies
 * (`checked`: at least 8 users in every arm with a weight) are added; flagged when that combined
 * p < 0.001.
 */
export function periodSampleRatioMismatch(periods: readonly PeriodTraffic[]): PeriodSrm {
  const each = periods.map((p) => sampleRatioMismatch(p.observed, p.weights));
  const counted = each.filter((s) => s.checked);
  const chiSquare = counted.reduce((s, r) => s + r.chiSquare, 0);
  const df = counted.reduce((s, r) => s + r.df, 0);
  const pValue = df > 0 ? Math.min(1, Math.max(0, chiSquareSurvival(chiSquare, df))) : 1;
  const checked = counted.length > 0;
  return { chiSquare, df, pValue, flagged: checked && pValue < SRM_P_THRESHOLD, checked, periods: each };
}
