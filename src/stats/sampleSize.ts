import { normalQuantile } from './distributions.js';
import type { MdeOptions } from './mde.js';
import { checkSuff } from './moments.js';
import type { MetricKind, Suff } from './types.js';

/** Shares of ALL exposed users that go to the control and to this treatment (they may sum to less than 1). */
export interface ArmShares {
  control: number;
  treatment: number;
}

/**
 * Total number of exposed users (across the whole experiment) needed for a two-sided test at level
 * α to detect a relative lift d = targetRelative between this treatment and control with the given
 * power: the inverse of minimumDetectableEffect (mde.ts), with the same assumptions (the control's
 * mean μ and per-user variance σ² for both arms) and the same delta-method relative standard error
 *   SE_rel² = σ²/(nT μ²) + σ²(1 + d)²/(nC μ²),   nC = N·shares.control, nT = N·shares.treatment.
 * Requiring d = z·SE_rel with z = Φ⁻¹(1 − α/2) + Φ⁻¹(power) and solving for N gives
 *   N = z²σ²·(1/shares.treatment + (1 + d)²/shares.control) / (d²μ²),
 * rounded up (at 12 significant digits, so rounding noise cannot add a user), and raised if needed
 * so that each of the two arms gets at least 2 users (the least a t-test needs).
 *
 * Returns null when the control has fewer than 2 users, zero variance, mean 0 or invalid
 * statistics, or when N is not a safe integer. Throws RangeError for bad configuration
 * (targetRelative ≤ 0, a share outside (0, 1], shares summing to more than 1, alpha or power
 * outside (0, 1)), like mde.ts.
 */
export function usersNeeded(kind: MetricKind, control: Suff, targetRelative: number, shares: ArmShares, opts: MdeOptions = {}): number | null {
  const alpha = opts.alpha ?? 0.05;
  const power = opts.power ?? 0.8;
  const { control: sC, treatment: sT } = shares;
  if (!(targetRelative > 0 && Number.isFinite(targetRelative))) throw new RangeError(`targetRelative must be a positive number, got ${targetRelative}`);
  if (!(sC > 0 && sC <= 1)) throw new RangeError(`shares.control must be in (0, 1], got ${sC}`);
  if (!(sT > 0 && sT <= 1)) throw new RangeError(`shares.treatment must be in (0, 1], got ${sT}`);
  if (sC + sT > 1 + 1e-9) throw new RangeError(`shares must not sum to more than 1, got ${sC} + ${sT}`);
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  if (!(power > 0 && power < 1)) throw new RangeError(`power must be in (0, 1), got ${power}`);

  const c = checkSuff(kind, control);
  if (!c.ok) return null;
  const mu = Math.abs(c.moments.mean);
  const v = c.moments.variance;
  if (mu === 0 || v === 0) return null;

  const d = targetRelative;
  const z = normalQuantile(1 - alpha / 2) + normalQuantile(power);
  // (σ/μ)² first, so that μ² cannot underflow or overflow on its own.
  const cv2 = v / mu / mu;
  const n = (z * z * cv2 * (1 / sT + ((1 + d) * (1 + d)) / sC)) / (d * d);
  const needed = Math.max(Math.ceil(Number(n.toPrecision(12))), Math.ceil(2 / sC), Math.ceil(2 / sT));
  return Number.isSafeInteger(needed) ? needed : null;
}
