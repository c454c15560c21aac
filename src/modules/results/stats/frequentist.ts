import { tQuantile, tSurvival } from './distributions.js';
import type { FrequentistResult } from './types.js';

/**
 * Welch–Satterthwaite degrees of freedom
 *   ν = (σT²/nT + σC²/nC)² / (σT⁴/(nT²(nT−1)) + σC⁴/(nC²(nC−1))),
 * evaluated after dividing both terms by the larger one so that huge or tiny variances cannot
 * overflow. gbstats uses this same ν for the relative test (computed on the raw variances).
 * Requires n ≥ 2 in both arms and at least one positive variance.
 */
export function welchDf(varC: number, nC: number, varT: number, nT: number): number {
  const a = varT / nT;
  const b = varC / nC;
  const m = Math.max(a, b);
  const as = a / m;
  const bs = b / m;
  return ((as + bs) * (as + bs)) / ((as * as) / (nT - 1) + (bs * bs) / (nC - 1));
}

/**
 * Two-sided t-test of `lift` with standard error `se` > 0 and `df` degrees of freedom:
 * p = 2·(1 − F_t(|t|; ν)) (computed as 2·F_t(−|t|; ν) to keep precision for tiny p) and the
 * interval lift ± F_t⁻¹(1 − α/2; ν)·se.
 */
export function tTest(lift: number, se: number, df: number, alpha: number): FrequentistResult {
  const t = lift / se;
  const pValue = Math.min(1, 2 * tSurvival(Math.abs(t), df));
  const half = tQuantile(1 - alpha / 2, df) * se;
  return { lift, se, ci: [lift - half, lift + half], pValue, df };
}

/** Result with only the point estimate known (or nothing at all). */
export function undefinedTest(lift: number | null = null): FrequentistResult {
  return { lift, se: null, ci: null, pValue: null, df: null };
}
