import { describe, expect, it } from 'vitest';
import chiSquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';
import { compareToControl, primaryPValue, verdictFor } from '../../../src/stats/index.js';
import { betaChanceToWin, fisherExactTest, newcombeInterval, pooledZTest, rateSequencePValue } from '../../../src/stats/proportionEdges.js';

/**
 * Two proportions at the edges (0/n, n/n, 1/n, tiny n). SciPy cannot be installed on this machine, so
 * the reference values come from elsewhere and say where:
 * - Newcombe's hybrid score interval: the published values of Newcombe (1998), Statistics in Medicine
 *   17:873–890, Table II, method 10 (four decimals);
 * - the pooled z-test: z² equals Pearson's χ² of the 2×2 table without continuity correction,
 *   N(ad − bc)²/(r₁r₂c₁c₂), and p its upper χ²₁ tail (another formula, another library function);
 * - Fisher's exact test: closed forms (2 of 2 against 0 of 2: 1/3; 10 of 10 against 0 of 10: 2/C(20, 10))
 *   and Fisher's tea-tasting table (3 of 4 against 1 of 4: 0.4857, two-sided);
 * - the Beta chance to win: Simpson integration of f_T(x)·F_C(x), F_C itself integrated numerically,
 *   and the closed forms P(Beta(2,1) > Beta(1,1)) = 2/3 and P(Beta(1,1) > Beta(1,1)) = 1/2.
 */

const prop = (n: number, x: number) => ({ n, sum: x, sumSquares: x });

describe("Newcombe's hybrid score interval (Newcombe 1998, Table II, method 10)", () => {
  it.each([
    // treatment x/n, control x/n → published interval of pT − pC
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
    [6, 7, 2, 7, 0.0582, 0.8062],
    [5, 56, 0, 29, -0.0381, 0.1926],
    [0, 10, 0, 20, -0.1611, 0.2775],
    [0, 10, 0, 10, -0.2775, 0.2775],
    [10, 10, 0, 20, 0.6791, 1],
    [10, 10, 0, 10, 0.6075, 1],
  ])('%i/%i − %i/%i → [%f, %f]', (xT, nT, xC, nC, lo, hi) => {
    const [l, u] = newcombeInterval({ n: nC, x: xC }, { n: nT, x: xT }, 0.05);
    expect(l).toBeCloseTo(lo, 4);
    expect(u).toBeCloseTo(hi, 4);
  });
});

describe('the pooled two-proportion z-test against Pearson’s χ² of the 2×2 table', () => {
  it.each([
    [196, 0, 204, 204],
    [10, 0, 10, 10],
    [2, 0, 2, 2],
    [3, 0, 2, 1],
    [100, 0, 100, 1],
    [50, 50, 60, 55],
    [1000, 10, 1000, 0],
  ])('control %i/%i·, treatment %i/%i·', (nC, xC, nT, xT) => {
    const a = xT;
    const b = nT - xT;
    const c = xC;
    const d = nC - xC;
    const N = nC + nT;
    const chi2 = (N * (a * d - b * c) ** 2) / (nT * nC * (a + c) * (b + d));
    const test = pooledZTest({ n: nC, x: xC }, { n: nT, x: xT });
    expect(test.z! ** 2).toBeCloseTo(chi2, 8);
    const p = 1 - chiSquareCdf(chi2, 1);
    if (p > 1e-12) expect(test.pValue / p).toBeCloseTo(1, 6);
    else expect(test.pValue).toBeLessThan(1e-10);
  });

  it('both arms all-0 or all-1: no difference at all, p = 1', () => {
    expect(pooledZTest({ n: 50, x: 0 }, { n: 60, x: 0 })).toEqual({ z: null, se: null, pValue: 1 });
    expect(pooledZTest({ n: 50, x: 50 }, { n: 60, x: 60 })).toEqual({ z: null, se: null, pValue: 1 });
  });
});

/** P(pT > pC) by numerical integration: ∫ f_T(x) F_C(x) dx with both from their densities (Simpson). */
function chanceByIntegration(nC: number, xC: number, nT: number, xT: number): number {
  const steps = 4000;
  const h = 1 / steps;
  const logDensity = (a: number, b: number, x: number) => (a - 1) * Math.log(x) + (b - 1) * Math.log(1 - x);
  const [aC, bC, aT, bT] = [1 + xC, 1 + nC - xC, 1 + xT, 1 + nT - xT];
  const xs = Array.from({ length: steps + 1 }, (_, i) => Math.min(1 - 1e-12, Math.max(1e-12, i * h)));
  const norm = (a: number, b: number) => {
    let t = 0;
    xs.forEach((x, i) => {
      t += (i === 0 || i === steps ? 1 : i % 2 ? 4 : 2) * Math.exp(logDensity(a, b, x));
    });
    return (t * h) / 3;
  };
  const zC = norm(aC, bC);
  const zT = norm(aT, bT);
  // F_C on the grid by the trapezoid rule (fine grid), then Simpson for the outer integral.
  const F: number[] = [0];
  for (let i = 1; i <= steps; i++) F.push(F[i - 1]! + ((Math.exp(logDensity(aC, bC, xs[i - 1]!)) + Math.exp(logDensity(aC, bC, xs[i]!))) * h) / 2 / zC);
  let total = 0;
  xs.forEach((x, i) => {
    total += (i === 0 || i === steps ? 1 : i % 2 ? 4 : 2) * (Math.exp(logDensity(aT, bT, x)) / zT) * F[i]!;
  });
  return (total * h) / 3;
}

describe("Fisher's exact test, for tables too small for the normal approximation", () => {
  it.each([
    [2, 0, 2, 2, 1 / 3],
    [10, 0, 10, 10, 2 / 184_756],
    [4, 1, 4, 3, 0.4857],
    [5, 5, 5, 5, 1],
  ])('control %i/%i·, treatment %i/%i· → p = %f', (nC, xC, nT, xT, p) => {
    expect(fisherExactTest({ n: nC, x: xC }, { n: nT, x: xT })).toBeCloseTo(p, 4);
  });
});

describe('the chance to win under Beta posteriors', () => {
  it('closed forms: ½ for two empty arms, ⅔ for one success against none', () => {
    expect(betaChanceToWin({ n: 0, x: 0 }, { n: 0, x: 0 })).toBeCloseTo(0.5, 12);
    expect(betaChanceToWin({ n: 0, x: 0 }, { n: 1, x: 1 })).toBeCloseTo(2 / 3, 12);
  });
  it.each([
    [196, 204],
    [10, 10],
    [2, 2],
    [1, 5],
  ])('all-0 control of %i users against an all-success treatment of %i: 1 − (nC+1)·B(nT+2, nC+1)', (nC, nT) => {
    let logB = 0; // ln B(nT+2, nC+1) = ln((nT+1)! nC! / (nT+nC+2)!)
    for (let k = 2; k <= nT + 1; k++) logB += Math.log(k);
    for (let k = 2; k <= nC; k++) logB += Math.log(k);
    for (let k = 2; k <= nT + nC + 2; k++) logB -= Math.log(k);
    expect(betaChanceToWin({ n: nC, x: 0 }, { n: nT, x: nT })).toBeCloseTo(1 - (nC + 1) * Math.exp(logB), 12);
  });
  it.each([
    [10, 1, 10, 0],
    [20, 20, 25, 24],
    [30, 3, 30, 5],
    [5, 0, 7, 1],
  ])('control %i/%i·, treatment %i/%i· agrees with numerical integration', (nC, xC, nT, xT) => {
    const exact = betaChanceToWin({ n: nC, x: xC }, { n: nT, x: xT });
    expect(exact).toBeCloseTo(chanceByIntegration(nC, xC, nT, xT), 5);
    // Swapping the arms gives the complement.
    expect(exact + betaChanceToWin({ n: nT, x: xT }, { n: nC, x: xC })).toBeCloseTo(1, 10);
  });
  it('stays defined for huge counts (normal approximation beyond 200 000 terms)', () => {
    const p = betaChanceToWin({ n: 2_000_000, x: 600_000 }, { n: 2_000_000, x: 601_000 });
    expect(p).toBeGreaterThan(0.8);
    expect(p).toBeLessThan(1);
  });
});

describe('compareToControl decides proportions at the edges instead of answering "not enough data"', () => {
  it("the issue's case: 0 of 196 control users converted, 204 of 204 treatment users did → better, p < 0.001", () => {
    for (const opts of [{}, { sequential: true }]) {
      const c = compareToControl('proportion', prop(196, 0), prop(204, 204), opts);
      expect(c.enoughData).toBe(true);
      expect(c.absolute.lift).toBe(1);
      expect(c.absolute.ci![0]).toBeGreaterThan(0.9);
      expect(c.absolute.ci![1]).toBe(1);
      expect(c.relative.lift).toBeNull(); // control at 0: no relative lift
      expect(c.bayes.chanceToWin).toBeGreaterThan(0.999999);
      const p = primaryPValue(c)!;
      expect(p).toBeLessThan(0.001);
      const v = verdictFor(c, null, 0.05, { variant: 'b' });
      expect(v.verdict).toBe('better');
      expect(v.text).toMatch(/^Variant b is better than control \(\+1 absolute, (sequential )?p<0\.001\)$/);
    }
  });
  it.each([
    // control, treatment, verdict
    [prop(50, 50), prop(60, 60), 'no_detectable_difference'],
    [prop(50, 0), prop(60, 0), 'no_detectable_difference'],
    [prop(100, 100), prop(100, 90), 'worse'],
    [prop(100, 10), prop(100, 0), 'worse'],
    [prop(2, 0), prop(2, 2), 'no_detectable_difference'], // tiny n: defined, and undecided
    [prop(10, 0), prop(10, 1), 'no_detectable_difference'], // 1/n
  ])('%j against %j → %s, every number finite or null, intervals inside [−1, 1]', (control, treatment, verdict) => {
    const c = compareToControl('proportion', control, treatment);
    expect(c.enoughData).toBe(true);
    expect(verdictFor(c, null).verdict).toBe(verdict);
    expect(c.absolute.ci![0]).toBeGreaterThanOrEqual(-1);
    expect(c.absolute.ci![1]).toBeLessThanOrEqual(1);
    expect(c.bayes.chanceToWin).not.toBeNull();
  });
  it('the always-valid p of the rates’ sequence is the α at which its interval starts to exclude 0', () => {
    const p = rateSequencePValue({ n: 100, x: 0 }, { n: 100, x: 30 });
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.05);
    expect(rateSequencePValue({ n: 10, x: 0 }, { n: 10, x: 0 })).toBe(1);
  });
});
