import { tQuantile, tSurvival } from './distributions.js';
import type { Direction, FrequentistResult } from './types.js';

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

/**
 * One-sided p-value of the hypothesis "the metric got worse", for a guardrail metric (GrowthBook
 * tests guardrails one-sided: only harm matters, so no α is spent on the side of improvement).
 * With t = lift/se and ν = df:
 * - 'higher' (higher is better; worse is a negative lift): p = P(T_ν ≤ t) = F_t(t; ν);
 * - 'lower' (lower is better; worse is a positive lift): p = P(T_ν ≥ t) = 1 − F_t(t; ν).
 * A small p is evidence that the metric got worse. Both are evaluated as an upper tail via
 * tSurvival (F_t(t) = P(T > −t)), so no 1 − F subtraction loses the precision of a tiny p.
 * Requires finite lift, se > 0 and df > 0 (df = ∞ means the normal); otherwise throws RangeError,
 * since a caller must only test a comparison whose standard error is known.
 */
export function oneSidedWorsePValue(lift: number, se: number, df: number, direction: Direction): number {
  if (!Number.isFinite(lift)) throw new RangeError(`lift must be a finite number, got ${lift}`);
  if (!(se > 0 && Number.isFinite(se))) throw new RangeError(`se must be a positive number, got ${se}`);
  if (!(df > 0)) throw new RangeError(`df must be positive, got ${df}`);
  const t = lift / se;
  return direction === 'higher' ? tSurvival(-t, df) : tSurvival(t, df);
}

/** Result with only the point estimate known (or nothing at all). */
export function undefinedTest(lift: number | null = null): FrequentistResult {
  return { lift, se: null, ci: null, pValue: null, df: null };
}
