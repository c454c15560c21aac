import type { MetricKind, Moments, Suff } from './types.js';

/**
 * Relative size below which Σy² − (Σy)²/n is treated as floating-point cancellation noise, i.e. a
 * coefficient of variation under ~1e-6 counts as zero variance. Without it, n users with the same
 * value could yield a variance of ±1e-17 and a meaningless (or NaN) test.
 */
const CANCELLATION_TOLERANCE = 1e-12;

export type SuffCheck = { ok: true; moments: Moments } | { ok: false; reason: 'too_few_users' | 'invalid' };

/**
 * Validates one variant's sufficient statistics and returns its mean and per-user variance
 * (GrowthBook gbstats conventions):
 * - proportion: σ² = μ(1−μ), the Bernoulli variance with divisor n (gbstats ProportionStatistic);
 * - mean: σ² = (Σy² − (Σy)²/n)/(n−1), the unbiased sample variance (gbstats SampleMeanStatistic).
 */
export function checkSuff(kind: MetricKind, s: Suff): SuffCheck {
  const { n, sum, sumSquares } = s;
  if (!Number.isFinite(n) || !Number.isFinite(sum) || !Number.isFinite(sumSquares) || n < 0) {
    return { ok: false, reason: 'invalid' };
  }
  if (n < 2) return { ok: false, reason: 'too_few_users' };
  const mean = sum / n;
  if (kind === 'proportion') {
    if (sum < 0 || sum > n) return { ok: false, reason: 'invalid' };
    return { ok: true, moments: { mean, variance: mean * (1 - mean) } };
  }
  if (sumSquares < 0) return { ok: false, reason: 'invalid' };
  const centred = sumSquares - (sum * sum) / n;
  if (Math.abs(centred) <= CANCELLATION_TOLERANCE * sumSquares) {
    return { ok: true, moments: { mean, variance: 0 } };
  }
  // Σy² < (Σy)²/n is impossible for real data (Cauchy–Schwarz).
  if (centred < 0) return { ok: false, reason: 'invalid' };
  return { ok: true, moments: { mean, variance: centred / (n - 1) } };
}

/** Mean and per-user variance, or null when n < 2 (not enough data) or the input is inconsistent. */
export function moments(kind: MetricKind, s: Suff): Moments | null {
  const c = checkSuff(kind, s);
  return c.ok ? c.moments : null;
}
