/**
 * Thin guards around the @stdlib distribution functions (no home-made CDFs). Guards exist because
 * @stdlib returns wrong values for infinite or astronomically large degrees of freedom
 * (t-cdf(1, ∞) = 0.5, t-quantile(0.975, ∞) = NaN, t-quantile(0.975, 1e20) = 0).
 */
import normalCdfImpl from '@stdlib/stats-base-dists-normal-cdf';
import normalQuantileImpl from '@stdlib/stats-base-dists-normal-quantile';
import tCdfImpl from '@stdlib/stats-base-dists-t-cdf';
import tQuantileImpl from '@stdlib/stats-base-dists-t-quantile';
import chiSquareCdfImpl from '@stdlib/stats-base-dists-chisquare-cdf';

/**
 * Largest degrees of freedom passed to @stdlib's t functions. At 1e12 the t distribution equals
 * the normal to ~1e-13 and @stdlib is still accurate there; beyond ~1e15 it breaks down.
 */
const MAX_T_DF = 1e12;

function clampDf(df: number): number {
  return Math.min(df, MAX_T_DF);
}

/** Standard normal CDF Φ(x). */
export function normalCdf(x: number): number {
  return normalCdfImpl(x, 0, 1);
}

/** Standard normal quantile Φ⁻¹(p). */
export function normalQuantile(p: number): number {
  return normalQuantileImpl(p, 0, 1);
}

/** Upper tail P(T > x) of Student's t; computed as cdf(−x) to avoid cancellation for large x. */
export function tSurvival(x: number, df: number): number {
  return tCdfImpl(-x, clampDf(df));
}

export function tQuantile(p: number, df: number): number {
  return tQuantileImpl(p, clampDf(df));
}

/** Survival function of the χ² distribution with k degrees of freedom. */
export function chiSquareSurvival(x: number, k: number): number {
  return 1 - chiSquareCdfImpl(x, k);
}
