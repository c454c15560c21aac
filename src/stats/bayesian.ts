import { normalCdf, normalQuantile } from './distributions.js';
import type { BayesianResult } from './types.js';

/**
 * Gaussian effect model (gbstats EffectBayesianABTest) on an estimated lift Δ with standard
 * error SE > 0. Flat prior: posterior N(Δ, SE²). Proper prior N(0, τ²):
 *   precision = 1/SE² + 1/τ², mean = (Δ/SE²)/precision, sd = 1/√precision.
 * Chance to win = P(lift > 0) = Φ(mean/sd); credible interval mean ± Φ⁻¹(1 − α/2)·sd.
 */
export function gaussianPosterior(lift: number, se: number, alpha: number, prior: 'flat' | 'proper', priorStdDev: number): BayesianResult {
  let mean = lift;
  let sd = se;
  if (prior === 'proper') {
    const dataPrecision = 1 / (se * se);
    const precision = dataPrecision + 1 / (priorStdDev * priorStdDev);
    mean = (lift * dataPrecision) / precision;
    sd = 1 / Math.sqrt(precision);
  }
  const z = normalQuantile(1 - alpha / 2);
  return {
    chanceToWin: normalCdf(mean / sd),
    ci: [mean - z * sd, mean + z * sd],
    mean,
    sd,
  };
}

export function undefinedPosterior(): BayesianResult {
  return { chanceToWin: null, ci: null, mean: null, sd: null };
}
