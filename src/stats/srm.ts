import { chiSquareSurvival } from './distributions.js';

const SRM_P_THRESHOLD = 0.001;
const SRM_MIN_USERS_PER_VARIANT = 8;

export interface SrmResult {
  chiSquare: number;
  df: number;
  pValue: number;
  /** p < 0.001 and the check applies. */
  flagged: boolean;
  /** Every variant in the test has at least 8 users. Before that the test is too noisy to act on. */
  checked: boolean;
}

/**
 * Sample-ratio mismatch: Pearson χ² of exposures against the configured weights,
 * X² = Σ (Oᵢ − Eᵢ)²/Eᵢ with Eᵢ = wᵢ·N (weights normalised), p = χ² survival with k − 1 df
 * (gbstats check_srm).
 *
 * Variants whose weight is 0 (or not a finite positive number) receive no traffic by design and
 * are left out of the test: their users are not counted in N and they do not add a degree of
 * freedom. (gbstats skips them in the sum too, but still counts their users and their degree of
 * freedom; excluding them entirely keeps the test a proper goodness-of-fit test.)
 * With fewer than 2 variants in the test, or no users, there is nothing to test: X² = 0, p = 1.
 *
 * Throws RangeError when the arrays differ in length or a count is negative or not finite: that is
 * a programming error, not data.
 */
export function sampleRatioMismatch(observed: readonly number[], weights: readonly number[]): SrmResult {
  if (observed.length !== weights.length) {
    throw new RangeError(`observed has ${observed.length} entries but weights has ${weights.length}`);
  }
  for (const o of observed) {
    if (!Number.isFinite(o) || o < 0) throw new RangeError(`observed counts must be >= 0, got ${o}`);
  }
  const included: number[] = [];
  let totalWeight = 0;
  let total = 0;
  weights.forEach((w, i) => {
    if (Number.isFinite(w) && w > 0) {
      included.push(i);
      totalWeight += w;
      total += observed[i]!;
    }
  });
  const k = included.length;
  const df = Math.max(0, k - 1);
  const checked = k >= 2 && included.every((i) => observed[i]! >= SRM_MIN_USERS_PER_VARIANT);
  if (k < 2 || total === 0) return { chiSquare: 0, df, pValue: 1, flagged: false, checked };

  let chiSquare = 0;
  for (const i of included) {
    const expected = (weights[i]! / totalWeight) * total;
    const d = observed[i]! - expected;
    chiSquare += (d * d) / expected;
  }
  const pValue = Math.min(1, Math.max(0, chiSquareSurvival(chiSquare, df)));
  return { chiSquare, df, pValue, flagged: checked && pValue < SRM_P_THRESHOLD, checked };
}
