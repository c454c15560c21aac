import { describe, expect, it } from 'vitest';
import { holmAdjust, sampleRatioMismatch } from '../../../src/stats/index.js';

function close(actual: number | null | undefined, expected: number, tol: number): void {
  expect(actual).toBeTypeOf('number');
  if (Math.abs((actual as number) - expected) > tol) {
    throw new Error(`expected ${actual} to be within ${tol} of ${expected}`);
  }
}

describe('holmAdjust', () => {
  it.each<[string, Array<number | null | undefined>, Array<number | null>]>([
    // Wikipedia "Holm–Bonferroni method" example: H1..H4 with p = 0.01, 0.04, 0.03, 0.005.
    // Sorted 0.005, 0.01, 0.03, 0.04 → ×4, ×3, ×2, ×1 = 0.02, 0.03, 0.06, 0.04 → running max.
    ['textbook example', [0.01, 0.04, 0.03, 0.005], [0.03, 0.06, 0.06, 0.02]],
    ['running maximum keeps order', [0.01, 0.02, 0.03], [0.03, 0.04, 0.04]],
    ['capped at 1', [0.5, 0.6], [1, 1]],
    ['single test is unchanged', [0.03], [0.03]],
    ['empty', [], []],
    ['ties', [0.02, 0.02], [0.04, 0.04]],
    ['zero stays zero', [0, 0.5], [0, 0.5]],
    ['all ones', [1, 1, 1], [1, 1, 1]],
    // Missing tests pass through as null and do not count in m (R p.adjust convention).
    ['null and NaN pass through, m = 2', [0.04, null, Number.NaN, 0.01], [0.04, null, null, 0.02]],
    ['undefined and infinities pass through', [undefined, 0.2, Number.POSITIVE_INFINITY], [null, 0.2, null]],
    ['out-of-range values are not p-values', [1.5, -0.1, 0.2], [null, null, 0.2]],
    ['six comparisons (3 variants × 2 metrics)', [0.001, 0.2, 0.012, 0.04, 0.5, 0.009], [0.006, 0.4, 0.048, 0.12, 0.5, 0.045]],
  ])('%s', (_name, input, expected) => {
    const out = holmAdjust(input);
    expect(out).toHaveLength(expected.length);
    out.forEach((v, i) => {
      const e = expected[i]!;
      if (e === null) expect(v).toBeNull();
      else close(v, e, 1e-12);
    });
  });

  it('never lowers a p-value and preserves the order of raw p-values', () => {
    const raw = [0.3, 0.001, 0.04, 0.02, 0.7, 0.049, 0.0001];
    const adj = holmAdjust(raw) as number[];
    for (const [i, p] of raw.entries()) expect(adj[i]!).toBeGreaterThanOrEqual(p);
    for (let i = 0; i < raw.length; i++) {
      for (let j = 0; j < raw.length; j++) {
        if (raw[i]! < raw[j]!) expect(adj[i]!).toBeLessThanOrEqual(adj[j]!);
      }
    }
  });

  it('does not modify its input', () => {
    const raw = [0.04, 0.01];
    holmAdjust(raw);
    expect(raw).toEqual([0.04, 0.01]);
  });
});

describe('sampleRatioMismatch', () => {
  it.each<[string, number[], number[], number, number, number, boolean, boolean]>([
    // GrowthBook gbstats reference.
    ['5050 vs 4950 at 50/50', [5050, 4950], [0.5, 0.5], 1, 1, 0.3173105, false, true],
    // Expected values below: SciPy stats.chisquare.
    ['3 variants, uneven weights', [2100, 2950, 4950], [0.2, 0.3, 0.5], 6.333333333333333, 2, 0.042143843509276406, false, true],
    ['weights normalised (1:2:3)', [1000, 2100, 2900], [1, 2, 3], 8.333333333333334, 2, 0.015503853599009307, false, true],
    ['clear mismatch is flagged', [5300, 4700], [0.5, 0.5], 36, 1, 1.9731752900753933e-9, true, true],
    ['8 users per variant is enough to check', [12, 9], [0.5, 0.5], 0.42857142857142855, 1, 0.5126907602619235, false, true],
    ['7 users in a variant: not checked', [7, 20], [0.5, 0.5], 6.2592592592592595, 1, 0.01235458501787193, false, false],
  ])('%s', (_name, observed, weights, chiSquare, df, pValue, flagged, checked) => {
    const r = sampleRatioMismatch(observed, weights);
    close(r.chiSquare, chiSquare, 1e-9);
    expect(r.df).toBe(df);
    close(r.pValue, pValue, Math.max(1e-7, pValue * 1e-6));
    expect(r.flagged).toBe(flagged);
    expect(r.checked).toBe(checked);
  });

  it('does not flag a huge mismatch before every variant has 8 users', () => {
    const r = sampleRatioMismatch([0, 40], [0.5, 0.5]);
    expect(r.pValue).toBeLessThan(0.001);
    expect(r.checked).toBe(false);
    expect(r.flagged).toBe(false);
  });

  it('flags exactly when p < 0.001', () => {
    // X² = (o−e)²/e·2 with e = 5000; p = 0.001 at X² ≈ 10.83.
    expect(sampleRatioMismatch([5160, 4840], [0.5, 0.5]).flagged).toBe(false); // X² = 10.24
    expect(sampleRatioMismatch([5170, 4830], [0.5, 0.5]).flagged).toBe(true); // X² = 11.56
  });

  it('no users: nothing to test', () => {
    expect(sampleRatioMismatch([0, 0], [0.5, 0.5])).toEqual({ chiSquare: 0, df: 1, pValue: 1, flagged: false, checked: false });
  });

  it('a single variant cannot mismatch', () => {
    expect(sampleRatioMismatch([100], [1])).toEqual({ chiSquare: 0, df: 0, pValue: 1, flagged: false, checked: false });
  });

  it('leaves zero-weight variants out of the test', () => {
    const r = sampleRatioMismatch([500, 37, 500], [0.5, 0, 0.5]);
    expect(r.chiSquare).toBe(0);
    expect(r.df).toBe(1);
    expect(r.pValue).toBe(1);
    expect(r.checked).toBe(true);
  });

  it('throws on programming errors', () => {
    expect(() => sampleRatioMismatch([1, 2], [1])).toThrow(RangeError);
    expect(() => sampleRatioMismatch([1, -2], [0.5, 0.5])).toThrow(RangeError);
    expect(() => sampleRatioMismatch([1, Number.NaN], [0.5, 0.5])).toThrow(RangeError);
  });
});
