import betaln from '@stdlib/math-base-special-betaln';

/**
 * Always-valid intervals for rates: the mean of per-user values bounded in [0, 1] (a 0/1 success or
 * error, or each user's share of failed calls). Non-asymptotic and defined at every sample size,
 * including 0/n and n/n, where the normal approximation says nothing.
 *
 * For one arm with n users and S = Σx (x ∈ [0, 1]), the beta-binomial mixture of likelihood ratios
 *   M_n(p) = ∫ q^S (1−q)^(n−S) dBeta(q; a, b) / (p^S (1−p)^(n−S)) = B(a+S, b+n−S) / (B(a, b) · p^S (1−p)^(n−S))
 * is a non-negative supermartingale when each value has mean p: for x ∈ [0, 1] the factor
 * (q/p)^x ((1−q)/(1−p))^(1−x) is convex in x, so its expectation is at most (1−p)·(1−q)/(1−p) + p·q/p = 1
 * (equality for 0/1 values). Ville's inequality then gives P(∃n: M_n(p) ≥ 1/α) ≤ α, so
 *   C_n = { p : M_n(p) < 1/α }
 * holds the true rate at every n at once, however often it is looked at (Robbins 1970; Howard et al.
 * 2021, "Time-uniform, nonparametric, nonasymptotic confidence sequences", §3). ln M_n is convex in p,
 * so C_n is an interval found by bisection on each side of S/n, where M_n ≤ 1 < 1/α.
 * The mixing prior is Jeffreys' Beta(½, ½).
 *
 * A difference of two arms' rates takes each arm's sequence at α/2 (a union bound), so the
 * difference's interval holds with probability ≥ 1 − α at every look, and stays inside [−1, 1].
 */

const PRIOR_A = 0.5;
const PRIOR_B = 0.5;
/** Halvings of [0, 1]: 2⁻⁵⁶ is below a double's spacing near 1. */
const BISECTIONS = 56;

const LOG_BETA_PRIOR = betaln(PRIOR_A, PRIOR_B);

/** ln M_n(p) = `mixture` − S ln p − (n−S) ln(1−p), with `mixture` = ln B(a+S, b+n−S) − ln B(a, b) computed once per arm. */
function logMixture(p: number, n: number, s: number, mixture: number): number {
  const success = s === 0 ? 0 : s * Math.log(p);
  const failure = n - s === 0 ? 0 : (n - s) * Math.log1p(-p);
  return mixture - success - failure;
}

/** Where ln M crosses `threshold` between `inside` (below it) and `outside` (at or above it). */
function crossing(n: number, s: number, mixture: number, threshold: number, inside: number, outside: number): number {
  let a = inside;
  let b = outside;
  for (let i = 0; i < BISECTIONS; i++) {
    const m = (a + b) / 2;
    if (logMixture(m, n, s, mixture) < threshold) a = m;
    else b = m;
  }
  return a;
}

/** One arm's sums, as the guardrails read them: users and the sum of their values in [0, 1]. */
export interface RateSums {
  n: number;
  sum: number;
}

/** Whether sums can be a rate's: finite, n ≥ 0 users and 0 ≤ Σx ≤ n. */
export function isRateSums(s: RateSums): boolean {
  return Number.isFinite(s.n) && Number.isFinite(s.sum) && s.n >= 0 && s.sum >= 0 && s.sum <= s.n;
}

/**
 * The always-valid (1 − α) interval of one arm's rate. With no users it is [0, 1]: nothing is known.
 * Throws on sums that cannot be a rate's (a caller checks them with isRateSums first).
 */
export function rateBounds(s: RateSums, alpha: number): [number, number] {
  if (!isRateSums(s)) throw new RangeError(`not a rate's sums: n=${s.n}, sum=${s.sum}`);
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  if (s.n === 0) return [0, 1];
  const threshold = Math.log(1 / alpha);
  const mle = s.sum / s.n;
  const mixture = betaln(PRIOR_A + s.sum, PRIOR_B + s.n - s.sum) - LOG_BETA_PRIOR;
  const lower = s.sum === 0 ? 0 : crossing(s.n, s.sum, mixture, threshold, mle, 0);
  const upper = s.sum === s.n ? 1 : crossing(s.n, s.sum, mixture, threshold, mle, 1);
  return [lower, upper];
}

export interface RateDifference {
  /** Each arm's observed rate (null without users). */
  control: number | null;
  treatment: number | null;
  /** treatment − control, null while an arm has no users. */
  difference: number | null;
  /** Always-valid (1 − α) interval of the true difference, inside [−1, 1]. */
  ci: [number, number];
}

/** The always-valid (1 − α) interval of treatment − control, each arm's sequence at α/2. */
export function rateDifference(control: RateSums, treatment: RateSums, alpha: number): RateDifference {
  const [cLow, cHigh] = rateBounds(control, alpha / 2);
  const [tLow, tHigh] = rateBounds(treatment, alpha / 2);
  const c = control.n > 0 ? control.sum / control.n : null;
  const t = treatment.n > 0 ? treatment.sum / treatment.n : null;
  return { control: c, treatment: t, difference: c === null || t === null ? null : t - c, ci: [tLow - cHigh, tHigh - cLow] };
}
