/**
 * CUPED variance reduction (Deng, Xu, Kohavi & Walker 2013, "Improving the sensitivity of online
 * controlled experiments by utilizing pre-experiment data"; as GrowthBook and Eppo apply it).
 * Each user's outcome y is replaced by y − θ·(x − x̄), where x is the same metric measured before
 * exposure. Randomisation makes x independent of the assignment, so the adjustment leaves the
 * expected difference between variants unchanged while removing the part of the variance of y
 * that x explains (a share ρ² of it, ρ = corr(x, y)).
 */
import type { Suff } from './types.js';

/** Per-variant sums over ALL n exposed users; x = the user's pre-exposure value of the metric (0 when none), y = the post-exposure value (0 when none). */
export interface CupedSuff {
  n: number;
  sumY: number;
  sumY2: number;
  sumX: number;
  sumX2: number;
  sumXY: number;
}

export interface CupedResult {
  /**
   * θ = pooled within-variant cov(x,y)/var(x): Σ_v (Σxy_v − Σx_v·Σy_v/n_v) / Σ_v (Σx²_v − (Σx_v)²/n_v).
   * null when the covariate has no variation (denominator ≤ 1e-12·Σx², as moments.ts) or no variant has n ≥ 2.
   */
  theta: number | null;
  /** 1 − Σ_v (n_v−1)·var_adj_v / Σ_v (n_v−1)·var_y_v (share of per-user variance removed); null when theta is null or var_y is 0. */
  varianceReduction: number | null;
  /**
   * Per variant, in input order: a Suff (n, sum, sumSquares) to be compared with the 'mean' kind, whose mean is
   * ȳ_v − θ·(x̄_v − x̄) (x̄ = mean of x over all users of all variants) and whose sample variance
   * ((sumSquares − sum²/n)/(n−1)) equals var(y)_v − 2θ·cov(x,y)_v + θ²·var(x)_v (sample variances/covariances with
   * divisor n−1, clamped at 0). null when theta is null.
   */
  adjusted: Suff[] | null;
}

/** Same role as moments.ts's tolerance: centred sums this small relative to the raw ones are rounding noise. */
const CANCELLATION_TOLERANCE = 1e-12;

const none = (): CupedResult => ({ theta: null, varianceReduction: null, adjusted: null });

/** Centred sum of squares Σa² − (Σa)²/n, 0 when within rounding noise, null when impossible (< 0). */
function centredSquares(sum: number, sumSquares: number, n: number): number | null {
  const c = sumSquares - (sum * sum) / n;
  if (Math.abs(c) <= CANCELLATION_TOLERANCE * sumSquares) return 0;
  return c < 0 ? null : c;
}

function isValid(v: CupedSuff): boolean {
  const nums = [v.n, v.sumY, v.sumY2, v.sumX, v.sumX2, v.sumXY];
  if (!nums.every(Number.isFinite) || v.n < 0 || v.sumY2 < 0 || v.sumX2 < 0) return false;
  // Nobody exposed means nothing was summed.
  return v.n > 0 || nums.every((x) => x === 0);
}

/**
 * θ is the pooled within-variant regression slope of y on x, Sxy/Sxx with
 * Sxy = Σ_v (Σxy_v − Σx_v·Σy_v/n_v) and Sxx = Σ_v (Σx²_v − (Σx_v)²/n_v); pooling within variants
 * keeps the treatment effect out of θ. Variants with n < 2 contribute nothing to θ. Per variant, the
 * adjusted values have mean ȳ_v − θ·(x̄_v − x̄) and sample variance (divisor n−1, clamped at 0)
 *   var_adj_v = var(y)_v − 2θ·cov(x,y)_v + θ²·var(x)_v,
 * returned as Suff {n, sum = n·mean, sumSquares = (n−1)·var_adj_v + sum²/n} so that compareToControl
 * ('mean' kind) tests them like any mean metric. Since Σ_v (n_v−1)·var_adj_v = Syy − Sxy²/Sxx,
 * varianceReduction equals the pooled squared correlation Sxy²/(Sxx·Syy).
 *
 * Never returns NaN or ±Infinity: every field is null when the covariate has no variation
 * (Sxx ≤ 1e-12·Σx²), no variant has n ≥ 2, any input is invalid (non-finite, negative counts or
 * squares, Σa² < (Σa)²/n) or a result overflows.
 */
export function cupedAdjust(variants: readonly CupedSuff[]): CupedResult {
  if (!variants.every(isValid)) return none();

  let totalN = 0;
  let totalX = 0;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  let rawX2 = 0;
  let usable = 0;
  const centred: Array<{ xx: number; yy: number; xy: number }> = [];
  for (const v of variants) {
    totalN += v.n;
    totalX += v.sumX;
    if (v.n < 2) {
      centred.push({ xx: 0, yy: 0, xy: 0 });
      continue;
    }
    const xx = centredSquares(v.sumX, v.sumX2, v.n);
    const yy = centredSquares(v.sumY, v.sumY2, v.n);
    if (xx === null || yy === null) return none();
    const xy = v.sumXY - (v.sumX * v.sumY) / v.n;
    centred.push({ xx, yy, xy });
    sxx += xx;
    syy += yy;
    sxy += xy;
    rawX2 += v.sumX2;
    usable++;
  }
  if (usable === 0 || !(sxx > CANCELLATION_TOLERANCE * rawX2)) return none();

  const theta = sxy / sxx;
  const xBar = totalX / totalN;
  let residual = 0;
  const adjusted = variants.map((v, i): Suff => {
    if (v.n === 0) return { n: 0, sum: 0, sumSquares: 0 };
    const c = centred[i]!;
    // (n−1)·var_adj = Syy_v − 2θ·Sxy_v + θ²·Sxx_v; 0 for a single user.
    const ss = Math.max(0, c.yy - 2 * theta * c.xy + theta * theta * c.xx);
    residual += ss;
    const sum = v.sumY - theta * (v.sumX - v.n * xBar);
    return { n: v.n, sum, sumSquares: ss + (sum * sum) / v.n };
  });
  const varianceReduction = syy > 0 ? 1 - residual / syy : null;

  const finite = [theta, varianceReduction ?? 0, ...adjusted.flatMap((s) => [s.sum, s.sumSquares])].every(Number.isFinite);
  return finite ? { theta, varianceReduction, adjusted } : none();
}
