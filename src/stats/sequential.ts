import type { SequentialResult } from './types.js';

/**
 * Always-valid inference with the asymptotic confidence sequences of Waudby-Smith et al.
 * (arXiv:2103.06476), as gbstats' SequentialTwoSidedTTest: N = nC + nT, s² = SE²·N and
 *   ρ = √((−2 ln α + ln(−2 ln α + 1)) / N*),
 *   half-width = s·√( 2(Nρ²+1)/(N²ρ²) · ln(√(Nρ²+1)/α) ).
 * ρ is tuned once, at the configured α, so that the sequence is tightest around N ≈ N*.
 */
export function sequentialRho(alpha: number, tuning: number): number {
  const l = -2 * Math.log(alpha);
  return Math.sqrt((l + Math.log(l + 1)) / tuning);
}

export function sequentialHalfWidth(se: number, n: number, alpha: number, rho: number): number {
  const s2 = se * se * n;
  const nr2 = n * rho * rho;
  return Math.sqrt(s2) * Math.sqrt(((2 * (nr2 + 1)) / (nr2 * n)) * Math.log(Math.sqrt(nr2 + 1) / alpha));
}

/**
 * Always-valid p-value: the smallest α' at which the sequence (with ρ held at its value for the
 * configured α, which makes the sequences nested in α') excludes 0. Setting the half-width equal
 * to |Δ| and solving for α' gives a closed form, so no bisection is needed:
 *   |Δ|² = SE²·2(Nρ²+1)/(Nρ²) · ln(√(Nρ²+1)/α')
 *   ⇔ α' = √(Nρ²+1) · exp(−ρ²·(Δ²N/SE²) / (2(Nρ²+1))),
 * which is gbstats' p = 1/e-value (Howard et al. eq. 155). Evaluated in log space so that huge
 * z-scores give 0 instead of overflowing; capped at 1.
 */
export function sequentialPValue(lift: number, se: number, n: number, rho: number): number {
  const nr2p1 = n * rho * rho + 1;
  const st2 = (lift * lift * n) / (se * se);
  const logP = 0.5 * Math.log(nr2p1) - (rho * rho * st2) / (2 * nr2p1);
  return Math.min(1, Math.exp(logP));
}

export function sequentialTest(lift: number, se: number, n: number, alpha: number, tuning: number): SequentialResult {
  const rho = sequentialRho(alpha, tuning);
  const half = sequentialHalfWidth(se, n, alpha, rho);
  return { ci: [lift - half, lift + half], pValue: sequentialPValue(lift, se, n, rho) };
}

/** The always-valid interval of a difference of means (treatment − control), or null without enough data to say anything. */
export interface SequentialDifference {
  control: number;
  treatment: number;
  difference: number;
  ci: [number, number];
}

/**
 * The always-valid (1 − α) interval of the absolute difference of two means, from each arm's mean
 * and per-user variance: the same confidence sequence as `sequentialTest`, on Δ = μT − μC with
 * SE² = σC²/nC + σT²/nT and N = nC + nT. Absolute, not relative, so that a control whose rate is 0
 * (no errors at all) still lets a candidate with errors be seen as worse. Null when either arm has
 * fewer than 2 users or neither varies (the interval would be a point).
 */
export function sequentialDifference(
  control: { n: number; mean: number; variance: number },
  treatment: { n: number; mean: number; variance: number },
  alpha: number,
  tuning: number,
): SequentialDifference | null {
  if (control.n < 2 || treatment.n < 2) return null;
  const se = Math.sqrt(control.variance / control.n + treatment.variance / treatment.n);
  if (!(se > 0) || !Number.isFinite(se)) return null;
  const difference = treatment.mean - control.mean;
  const half = sequentialHalfWidth(se, control.n + treatment.n, alpha, sequentialRho(alpha, tuning));
  return { control: control.mean, treatment: treatment.mean, difference, ci: [difference - half, difference + half] };
}
