import { describe, expect, it } from 'vitest';
import { CHECKPOINTS, coverage, RATES } from '../../../bench/intervalCoverage.js';
import { isRateSums, rateBounds, rateDifference } from '../../../src/stats/index.js';

/**
 * The rate's always-valid interval (src/stats/rateSequence.ts), checked against values computed
 * here by independent means (SciPy cannot be installed on this machine):
 * - at 0/n the upper bound has a closed form: with the Jeffreys mixture, B(½, n+½)/B(½, ½) = C(2n, n)/4ⁿ,
 *   so M_n(p) = C(2n, n)/(4ⁿ (1−p)ⁿ) and the bound solving M = 1/α is 1 − (α·C(2n, n)/4ⁿ)^(1/n);
 *   n/n mirrors it;
 * - elsewhere the mixture is integrated numerically (q = sin²θ turns the Beta(½, ½) density into the
 *   uniform 2/π on [0, π/2]), with no log-beta function at all, and must equal 1/α at each bound.
 */
function centralBinomialOver4n(n: number): number {
  let r = 1;
  for (let k = 1; k <= n; k++) r *= (n + k) / (4 * k);
  return r;
}

/** M_n(p) by Simpson's rule over θ, in log space per point so large n does not underflow. */
function mixtureByQuadrature(p: number, n: number, s: number): number {
  const steps = 20_000;
  const h = Math.PI / 2 / steps;
  let total = 0;
  for (let i = 0; i <= steps; i++) {
    const t = i * h;
    const q = Math.sin(t) ** 2;
    const logTerm = (s === 0 ? 0 : s * (Math.log(q) - Math.log(p))) + (n - s === 0 ? 0 : (n - s) * (Math.log(1 - q) - Math.log(1 - p)));
    const w = i === 0 || i === steps ? 1 : i % 2 === 1 ? 4 : 2;
    total += w * (Number.isFinite(logTerm) ? Math.exp(logTerm) : 0);
  }
  return ((total * h) / 3) * (2 / Math.PI);
}

describe('rateBounds: the beta-binomial mixture confidence sequence of one rate', () => {
  it.each([1, 2, 10, 76, 1000])('0/%i and %i/%i: the closed form C(2n, n)/4ⁿ', (n) => {
    const alpha = 0.05;
    const upper = 1 - (alpha * centralBinomialOver4n(n)) ** (1 / n);
    expect(rateBounds({ n, sum: 0 }, alpha)[0]).toBe(0);
    expect(rateBounds({ n, sum: 0 }, alpha)[1]).toBeCloseTo(upper, 12);
    expect(rateBounds({ n, sum: n }, alpha)[0]).toBeCloseTo(1 - upper, 12);
    expect(rateBounds({ n, sum: n }, alpha)[1]).toBe(1);
  });

  it.each([
    [2, 1, 0.05],
    [10, 1, 0.05],
    [10, 5, 0.025],
    [81, 4, 0.0125],
    [72, 22, 0.0125],
    [100, 37.5, 0.05], // per-user shares of failed calls: S need not be whole
    [1000, 50, 0.05],
  ])('n=%f, S=%f, α=%f: the mixture integrated numerically equals 1/α at both bounds', (n, s, alpha) => {
    const [lo, hi] = rateBounds({ n, sum: s }, alpha);
    expect(lo).toBeLessThan(s / n);
    expect(hi).toBeGreaterThan(s / n);
    expect(mixtureByQuadrature(lo, n, s) * alpha).toBeCloseTo(1, 4);
    expect(mixtureByQuadrature(hi, n, s) * alpha).toBeCloseTo(1, 4);
  });

  it('is [0, 1] with no users, and refuses sums that cannot be a rate', () => {
    expect(rateBounds({ n: 0, sum: 0 }, 0.05)).toEqual([0, 1]);
    for (const bad of [
      { n: 10, sum: 11 },
      { n: 10, sum: -1 },
      { n: Number.NaN, sum: 0 },
      { n: 10, sum: Number.POSITIVE_INFINITY },
    ]) {
      expect(isRateSums(bad)).toBe(false);
      expect(() => rateBounds(bad, 0.05)).toThrow(RangeError);
    }
  });

  it('narrows as users come, and is wider than the fixed-n Clopper–Pearson interval (the price of looking at every n)', () => {
    const widths = [10, 100, 1000, 10_000].map((n) => {
      const [lo, hi] = rateBounds({ n, sum: n / 10 }, 0.05);
      return hi - lo;
    });
    for (let i = 1; i < widths.length; i++) expect(widths[i]!).toBeLessThan(widths[i - 1]!);
    // Clopper–Pearson 95% for 10/100 is [0.0490, 0.1762] (published tables).
    const [lo, hi] = rateBounds({ n: 100, sum: 10 }, 0.05);
    expect(lo).toBeLessThan(0.049);
    expect(hi).toBeGreaterThan(0.1762);
  });
});

describe('rateDifference: candidate − production from both arms at α/2', () => {
  it('is defined at the edges and stays inside [−1, 1]', () => {
    const allFail = rateDifference({ n: 76, sum: 0 }, { n: 84, sum: 84 }, 0.025);
    expect(allFail.difference).toBe(1);
    expect(allFail.ci[0]).toBeGreaterThan(0.7);
    expect(allFail.ci[1]).toBeLessThanOrEqual(1);
    const none = rateDifference({ n: 50, sum: 0 }, { n: 50, sum: 0 }, 0.05);
    expect(none.ci[0]).toBeLessThan(0);
    expect(none.ci[1]).toBeGreaterThan(0);
    expect(none.ci[0]).toBeGreaterThanOrEqual(-1);
    expect(rateDifference({ n: 0, sum: 0 }, { n: 0, sum: 0 }, 0.05)).toEqual({ control: null, treatment: null, difference: null, ci: [-1, 1] });
  });

  it('is the two arms’ bounds at α/2 each', () => {
    const c = rateBounds({ n: 71, sum: 4 }, 0.025);
    const t = rateBounds({ n: 81, sum: 4 }, 0.025);
    expect(rateDifference({ n: 71, sum: 4 }, { n: 81, sum: 4 }, 0.05).ci).toEqual([t[0] - c[1], t[1] - c[0]]);
  });
});

describe('coverage, checked at every look (seeded simulation; `npm run bench -- decisions` runs it to 10 000 users)', () => {
  it.each(RATES)('rate %f in both arms: the difference interval holds 0 at every look up to 1 000 users per arm in ≥ 95% of runs', (p) => {
    const checkpoints = CHECKPOINTS.filter((n) => n <= 1000);
    const draw = (random: () => number) => (random() < p ? 1 : 0);
    const row = coverage(`rate ${p}`, { control: draw, treatment: draw, difference: 0 }, 'rate', checkpoints, 100, 17);
    for (const n of checkpoints) expect(row.covered[n]!).toBeGreaterThanOrEqual(0.95);
  });
});
