import { normalQuantile } from './distributions.js';
import { checkSuff } from './moments.js';
import type { MetricKind, Suff } from './types.js';

export interface MdeOptions {
  /** Two-sided significance level (default 0.05). */
  alpha?: number;
  /** Desired power (default 0.8). */
  power?: number;
}

/**
 * Relative minimum detectable effect: the smallest relative lift d > 0 that a two-sided test at
 * level α detects with the given power, using the control's mean μ and per-user variance σ² for
 * both arms (GrowthBook's power calculator, `findMde`, generalised to unequal arm sizes). With
 * z = Φ⁻¹(1 − α/2) + Φ⁻¹(power), d solves d = z·SE_rel(d), where the delta-method
 *   SE_rel(d)² = σ²/(nT μ²) + σ²(1 + d)²/(nC μ²)
 * depends on d itself. With x = μ(1 + d) this is the quadratic
 *   (1 − z²σ²/(nC μ²))·x² − 2μx + μ² − z²σ²/nT = 0,
 * whose larger root gives d = (x − μ)/μ (μ taken as |μC|; the equation is symmetric in sign).
 *
 * Returns null when the control has fewer than 2 users, zero variance, mean 0 or invalid
 * statistics, when treatmentN < 2, or when no finite effect is detectable with these sample sizes
 * (nC ≤ z²σ²/μ²: the relative standard error cannot get small enough).
 */
export function minimumDetectableEffect(kind: MetricKind, control: Suff, treatmentN: number, opts: MdeOptions = {}): number | null {
  const alpha = opts.alpha ?? 0.05;
  const power = opts.power ?? 0.8;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  if (!(power > 0 && power < 1)) throw new RangeError(`power must be in (0, 1), got ${power}`);

  const c = checkSuff(kind, control);
  if (!c.ok || !(treatmentN >= 2) || !Number.isFinite(treatmentN)) return null;
  const mu = Math.abs(c.moments.mean);
  const v = c.moments.variance;
  if (mu === 0 || v === 0) return null;

  const z = normalQuantile(1 - alpha / 2) + normalQuantile(power);
  const z2v = z * z * v;
  const a = 1 - z2v / (control.n * mu * mu);
  if (!(a > 0)) return null;
  // Discriminant/4 = μ² − a(μ² − z²σ²/nT) > 0 whenever a > 0.
  const disc = mu * mu - a * (mu * mu - z2v / treatmentN);
  const x = (mu + Math.sqrt(disc)) / a;
  const d = (x - mu) / mu;
  return Number.isFinite(d) && d > 0 ? d : null;
}
