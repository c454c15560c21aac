import { describe, expect, it } from 'vitest';
import {
  compareToControl,
  holmAdjust,
  minimumDetectableEffect,
  primaryPValue,
  verdictFor,
  type Comparison,
  type MetricKind,
  type Suff,
} from '../../../src/stats/index.js';

function close(actual: number | null | undefined, expected: number, tol: number): void {
  expect(actual).toBeTypeOf('number');
  if (Math.abs((actual as number) - expected) > tol) {
    throw new Error(`expected ${actual} to be within ${tol} of ${expected}`);
  }
}

const prop = (n: number, successes: number): Suff => ({ n, sum: successes, sumSquares: successes });
const gbControl: Suff = { n: 3407, sum: 1396.87, sumSquares: 52377.9767 };

describe('minimumDetectableEffect', () => {
  // Expected: SciPy brentq root of d = z·SE_rel(d), z = Φ⁻¹(1−α/2) + Φ⁻¹(power), with
  // SE_rel(d)² = σ²/(nT μ²) + σ²(1+d)²/(nC μ²) (independent of the closed-form quadratic in mde.ts).
  // The first row also equals GrowthBook's power calculator findMde (equal arms, nA = 1000):
  // 0.4732443978351433.
  it.each<[string, MetricKind, Suff, number, { alpha?: number; power?: number } | undefined, number]>([
    ['10% baseline, 1000 per arm', 'proportion', prop(1000, 100), 1000, undefined, 0.47324439783514344],
    ['10% baseline, 3000 in treatment', 'proportion', prop(1000, 100), 3000, undefined, 0.40330570368986707],
    ['mean metric (gbstats fixture control)', 'mean', gbControl, 3461, undefined, 1.0327037836523543],
    ['alpha 0.01, power 0.9', 'proportion', prop(1000, 100), 1000, { alpha: 0.01, power: 0.9 }, 0.7318103607961031],
  ])('%s', (_name, kind, control, nT, opts, expected) => {
    close(minimumDetectableEffect(kind, control, nT, opts), expected, 1e-9);
  });

  it('an effect of exactly the MDE sits z standard errors from 0', () => {
    const d = minimumDetectableEffect('proportion', prop(4000, 600), 5000)!;
    const mu = 0.15;
    const v = mu * (1 - mu);
    const se = Math.sqrt(v / (5000 * mu * mu) + (v * (1 + d) ** 2) / (4000 * mu * mu));
    close(d / se, 1.959963984540054 + 0.8416212335729143, 1e-9);
  });

  it('shrinks as the sample grows', () => {
    const small = minimumDetectableEffect('proportion', prop(1000, 100), 1000)!;
    const large = minimumDetectableEffect('proportion', prop(10000, 1000), 10000)!;
    expect(large).toBeLessThan(small);
  });

  it.each<[string, MetricKind, Suff, number]>([
    ['control too small', 'proportion', prop(1, 1), 1000],
    ['treatment too small', 'proportion', prop(1000, 100), 1],
    ['control mean 0', 'proportion', prop(1000, 0), 1000],
    ['no variance', 'proportion', prop(1000, 1000), 1000],
    ['invalid control', 'proportion', prop(10, 20), 1000],
    ['no finite effect detectable (nC ≤ z²σ²/μ²)', 'proportion', prop(10, 1), 10],
    ['NaN treatment size', 'proportion', prop(1000, 100), Number.NaN],
  ])('null when %s', (_name, kind, control, nT) => {
    expect(minimumDetectableEffect(kind, control, nT)).toBeNull();
  });

  it('rejects bad options', () => {
    expect(() => minimumDetectableEffect('proportion', prop(1000, 100), 1000, { power: 1 })).toThrow(RangeError);
    expect(() => minimumDetectableEffect('proportion', prop(1000, 100), 1000, { alpha: 0 })).toThrow(RangeError);
  });
});

describe('verdictFor', () => {
  const design = compareToControl('proportion', prop(1000, 100), prop(1000, 130)); // p = 0.0656
  const worse = compareToControl('proportion', prop(2000, 300), prop(2100, 250)); // p = 0.00112
  const strong = compareToControl('proportion', prop(5000, 500), prop(5000, 650)); // p = 3.8e-5

  it.each<[string, Comparison, number | null, number | undefined, string, string]>([
    ['p ≥ alpha', design, null, undefined, 'no_detectable_difference', 'No detectable difference between variant b and control (+30.0%, p=0.066)'],
    ['Holm-adjusted p decides', design, 0.004, undefined, 'better', 'Variant b is better than control (+30.0%, p=0.004)'],
    ['alpha 0.1', design, null, 0.1, 'better', 'Variant b is better than control (+30.0%, p=0.066)'],
    ['worse', worse, null, undefined, 'worse', 'Variant b is worse than control (-20.6%, p=0.001)'],
    ['adjusted p above alpha', worse, 0.08, undefined, 'no_detectable_difference', 'No detectable difference between variant b and control (-20.6%, p=0.08)'],
    ['very small p', strong, null, undefined, 'better', 'Variant b is better than control (+30.0%, p<0.001)'],
  ])('%s', (_name, c, adjustedP, alpha, verdict, text) => {
    expect(verdictFor(c, adjustedP, alpha, { variant: 'b' })).toEqual({ verdict, text });
  });

  it('not enough data, with the reason in plain words', () => {
    const c = compareToControl('proportion', prop(1, 0), prop(0, 0));
    expect(verdictFor(c, null)).toEqual({
      verdict: 'not_enough_data',
      text: 'Not enough data to compare the variant with control (not enough data: each variant needs at least 2 users)',
    });
    const zero = compareToControl('mean', { n: 10, sum: 0, sumSquares: 10 }, { n: 10, sum: 5, sumSquares: 15 });
    expect(verdictFor(zero, 0.01, 0.05, { variant: 'v2', control: 'control (v1)' })).toEqual({
      verdict: 'not_enough_data',
      text: 'Not enough data to compare variant v2 with control (v1) (control mean is 0: relative lift undefined)',
    });
  });

  it('uses the sequential p-value when sequential inference is on', () => {
    const seq = compareToControl('proportion', prop(1000, 100), prop(1000, 140), { sequential: true });
    expect(primaryPValue(seq)).toBe(seq.sequential!.pValue);
    expect(seq.relative.pValue!).toBeLessThan(0.05); // fixed-horizon would call it
    expect(verdictFor(seq, null).verdict).toBe('no_detectable_difference'); // always-valid does not
    expect(primaryPValue(design)).toBe(design.relative.pValue);
  });

  it('works end to end with Holm across variants', () => {
    const comparisons = [design, worse, strong];
    const adjusted = holmAdjust(comparisons.map(primaryPValue));
    const verdicts = comparisons.map((c, i) => verdictFor(c, adjusted[i]!).verdict);
    expect(verdicts).toEqual(['no_detectable_difference', 'worse', 'better']);
  });
});
