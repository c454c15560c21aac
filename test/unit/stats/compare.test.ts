import { describe, expect, it } from 'vitest';
import {
  compareToControl,
  moments,
  REASON_CONTROL_MEAN_ZERO,
  REASON_TOO_FEW_USERS,
  type CompareOptions,
  type Comparison,
  type MetricKind,
  type Suff,
} from '../../../src/stats/index.js';
import { close, expectAllFinite, prop } from './helpers.js';
import { gbControl, gbTreatment, referenceCases } from './referenceCases.js';

describe('moments', () => {
  it.each<[string, MetricKind, Suff, number, number]>([
    // Proportion: Bernoulli variance μ(1−μ) with divisor n (gbstats ProportionStatistic).
    ['proportion 100/1000', 'proportion', prop(1000, 100), 0.1, 0.09],
    ['proportion 14/28', 'proportion', prop(28, 14), 0.5, 0.25],
    ['proportion all successes', 'proportion', prop(50, 50), 1, 0],
    // Mean: unbiased sample variance with n−1 (gbstats SampleMeanStatistic).
    ['mean gbstats Bayesian case', 'mean', { n: 10, sum: 100, sumSquares: 1002.25 }, 10, 0.25],
    ['mean values 1,2,3,4', 'mean', { n: 4, sum: 10, sumSquares: 30 }, 2.5, 5 / 3],
    ['mean negative values', 'mean', { n: 3, sum: -6, sumSquares: 14 }, -2, 1],
  ])('%s', (_name, kind, s, mean, variance) => {
    const m = moments(kind, s);
    close(m?.mean, mean, 1e-12);
    close(m?.variance, variance, 1e-12);
  });

  it('uses μ(1−μ), not the n−1 sample variance, for proportions', () => {
    // With n−1 the variance of 100/1000 would be 0.09·1000/999 = 0.09009...
    expect(moments('proportion', prop(1000, 100))?.variance).toBeCloseTo(0.09, 15);
  });

  it.each<[string, MetricKind, Suff]>([
    ['n = 0', 'mean', { n: 0, sum: 0, sumSquares: 0 }],
    ['n = 1', 'mean', { n: 1, sum: 5, sumSquares: 25 }],
    ['proportion n = 1', 'proportion', prop(1, 1)],
    ['successes > users', 'proportion', prop(10, 11)],
    ['negative successes', 'proportion', prop(10, -1)],
    ['Σy² < (Σy)²/n', 'mean', { n: 4, sum: 10, sumSquares: 20 }],
    ['NaN sum', 'mean', { n: 4, sum: Number.NaN, sumSquares: 20 }],
    ['infinite sum of squares', 'mean', { n: 4, sum: 1, sumSquares: Number.POSITIVE_INFINITY }],
  ])('null for %s', (_name, kind, s) => {
    expect(moments(kind, s)).toBeNull();
  });

  it('treats floating-point cancellation on constant values as zero variance', () => {
    // Three users with value 0.1: Σy = 0.30000000000000004, Σy² = 0.030000000000000006.
    const s: Suff = { n: 3, sum: 0.1 + 0.1 + 0.1, sumSquares: 0.1 * 0.1 + 0.1 * 0.1 + 0.1 * 0.1 };
    expect(moments('mean', s)?.variance).toBe(0);
  });
});

describe('compareToControl: reference numbers', () => {
  it.each(referenceCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const r = compareToControl(c.kind, c.control, c.treatment, c.opts);
    expect(r.enoughData).toBe(true);
    expect(r.reason).toBeUndefined();
    for (const key of ['absolute', 'relative'] as const) {
      const want = c[key];
      if (!want) continue;
      const got = r[key];
      close(got.lift, want.lift, c.tol);
      close(got.se, want.se, c.tol);
      close(got.ci?.[0], want.ci[0], c.tol);
      close(got.ci?.[1], want.ci[1], c.tol);
      close(got.pValue, want.pValue, c.tol);
    }
    if (c.df !== undefined) {
      close(r.absolute.df, c.df, 1e-6);
      close(r.relative.df, c.df, 1e-6);
    }
    if (c.bayes) {
      close(r.bayes.chanceToWin, c.bayes.chanceToWin, c.tol);
      if (c.bayes.ci) {
        close(r.bayes.ci?.[0], c.bayes.ci[0], c.tol);
        close(r.bayes.ci?.[1], c.bayes.ci[1], c.tol);
      }
      if (c.bayes.mean !== undefined) close(r.bayes.mean, c.bayes.mean, c.tol);
      if (c.bayes.sd !== undefined) close(r.bayes.sd, c.bayes.sd, c.tol);
    }
    expect(r.sequential).toBeUndefined();
    expectAllFinite(r);
  });

  it('the flat-prior posterior is N(Δ, SE²) of the relative lift', () => {
    const r = compareToControl('proportion', prop(1000, 100), prop(1000, 130));
    expect(r.bayes.mean).toBe(r.relative.lift);
    expect(r.bayes.sd).toBe(r.relative.se);
  });

  it('a proper prior always pulls the lift towards 0 and narrows the interval', () => {
    const flat = compareToControl('mean', gbControl, gbTreatment);
    const proper = compareToControl('mean', gbControl, gbTreatment, { prior: 'proper' });
    expect(Math.abs(proper.bayes.mean!)).toBeLessThan(Math.abs(flat.bayes.mean!));
    expect(proper.bayes.sd!).toBeLessThan(flat.bayes.sd!);
  });

  it('a wider prior (priorStdDev) shrinks less', () => {
    const narrow = compareToControl('mean', gbControl, gbTreatment, { prior: 'proper', priorStdDev: 0.1 });
    const wide = compareToControl('mean', gbControl, gbTreatment, { prior: 'proper', priorStdDev: 10 });
    expect(narrow.bayes.mean!).toBeLessThan(wide.bayes.mean!);
    close(wide.bayes.mean, 0.7073170731707317, 1e-2);
  });

  it('alpha sets the interval level', () => {
    const r90 = compareToControl('proportion', prop(1000, 100), prop(1000, 130), { alpha: 0.1 });
    const r95 = compareToControl('proportion', prop(1000, 100), prop(1000, 130));
    expect(r90.relative.ci![1] - r90.relative.ci![0]).toBeLessThan(r95.relative.ci![1] - r95.relative.ci![0]);
    expect(r90.relative.pValue).toBe(r95.relative.pValue);
  });

  it('swapping arms flips the sign of the absolute difference, same p-value', () => {
    const ab = compareToControl('mean', gbControl, gbTreatment);
    const ba = compareToControl('mean', gbTreatment, gbControl);
    close(ba.absolute.lift, -ab.absolute.lift!, 1e-12);
    close(ba.absolute.pValue, ab.absolute.pValue!, 1e-12);
    close(ba.absolute.df, ab.absolute.df!, 1e-9);
  });
});

// Proportions with no variation in an arm are decided since issue 40: test/unit/stats/proportionEdges.test.ts.
describe('compareToControl: not enough data and degenerate inputs', () => {
  interface EdgeCase {
    name: string;
    kind: MetricKind;
    control: Suff;
    treatment: Suff;
    reason: string;
    absoluteLift: number | null;
    relativeLift: number | null;
    absoluteTested?: boolean;
  }
  const edgeCases: EdgeCase[] = [
    {
      name: 'both variants empty',
      kind: 'proportion',
      control: prop(0, 0),
      treatment: prop(0, 0),
      reason: REASON_TOO_FEW_USERS,
      absoluteLift: null,
      relativeLift: null,
    },
    {
      name: 'one user in treatment',
      kind: 'mean',
      control: { n: 50, sum: 100, sumSquares: 400 },
      treatment: { n: 1, sum: 3, sumSquares: 9 },
      reason: REASON_TOO_FEW_USERS,
      absoluteLift: null,
      relativeLift: null,
    },
    {
      name: 'one user in control',
      kind: 'proportion',
      control: prop(1, 1),
      treatment: prop(100, 10),
      reason: REASON_TOO_FEW_USERS,
      absoluteLift: null,
      relativeLift: null,
    },
    {
      name: 'constant numeric values in both variants',
      kind: 'mean',
      control: { n: 3, sum: 0.1 + 0.1 + 0.1, sumSquares: 0.1 * 0.1 * 3 },
      treatment: { n: 4, sum: 0.8, sumSquares: 0.16 },
      reason: 'no variation in either variant: every user has the same value',
      absoluteLift: 0.1,
      relativeLift: 1,
    },
    {
      name: 'control mean 0 with spread: absolute test still reported',
      kind: 'mean',
      control: { n: 10, sum: 0, sumSquares: 10 },
      treatment: { n: 10, sum: 5, sumSquares: 15 },
      reason: REASON_CONTROL_MEAN_ZERO,
      absoluteLift: 0.5,
      relativeLift: null,
      absoluteTested: true,
    },
    {
      name: 'more successes than users',
      kind: 'proportion',
      control: prop(10, 12),
      treatment: prop(10, 5),
      reason: 'invalid statistics for control: counts or sums are inconsistent',
      absoluteLift: null,
      relativeLift: null,
    },
    {
      name: 'sum of squares too small for the sum',
      kind: 'mean',
      control: { n: 10, sum: 10, sumSquares: 20 },
      treatment: { n: 10, sum: 10, sumSquares: 5 },
      reason: 'invalid statistics for treatment: counts or sums are inconsistent',
      absoluteLift: null,
      relativeLift: null,
    },
    {
      name: 'overflowing sums',
      kind: 'mean',
      control: { n: 10, sum: 1e200, sumSquares: 1e300 * 1e300 },
      treatment: { n: 10, sum: 1e200, sumSquares: 1e300 * 1e300 },
      reason: 'invalid statistics for control: counts or sums are inconsistent',
      absoluteLift: null,
      relativeLift: null,
    },
  ];

  it.each(edgeCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    for (const opts of [{}, { sequential: true, prior: 'proper' as const }]) {
      const r = compareToControl(c.kind, c.control, c.treatment, opts);
      expect(r.enoughData).toBe(false);
      expect(r.reason).toBe(c.reason);
      if (c.absoluteLift === null) expect(r.absolute.lift).toBeNull();
      else close(r.absolute.lift, c.absoluteLift, 1e-12);
      if (c.relativeLift === null) expect(r.relative.lift).toBeNull();
      else close(r.relative.lift, c.relativeLift, 1e-12);
      expect(r.relative).toMatchObject({ se: null, ci: null, pValue: null, df: null });
      expect(r.bayes).toEqual({ chanceToWin: null, ci: null, mean: null, sd: null });
      if (!c.absoluteTested) expect(r.absolute).toMatchObject({ se: null, ci: null, pValue: null, df: null });
      if ('sequential' in opts) expect(r.sequential).toEqual({ ci: null, pValue: null });
      else expect(r.sequential).toBeUndefined();
      expectAllFinite(r);
      expect(JSON.stringify(r)).not.toMatch(/NaN|Infinity/);
    }
  });

  it('control mean 0: the absolute Welch test is complete and correct (SciPy)', () => {
    const r = compareToControl('mean', { n: 10, sum: 0, sumSquares: 10 }, { n: 10, sum: 5, sumSquares: 15 });
    close(r.absolute.se, 0.5, 1e-12);
    close(r.absolute.df, 17.78048780487805, 1e-9);
    close(r.absolute.ci?.[0], -0.5513913785265221, 1e-9);
    close(r.absolute.ci?.[1], 1.551391378526522, 1e-9);
    close(r.absolute.pValue, 0.33072619093392724, 1e-9);
  });

  it('a tiny but real spread is not mistaken for zero variance', () => {
    const r = compareToControl('mean', { n: 4, sum: 10, sumSquares: 25.0001 }, { n: 4, sum: 12, sumSquares: 36.0001 });
    expect(r.enoughData).toBe(true);
    expectAllFinite(r);
  });

  it('extreme but finite data never yields NaN or Infinity', () => {
    const cases: Array<[MetricKind, Suff, Suff]> = [
      ['proportion', prop(1e9, 1), prop(1e9, 2)],
      ['proportion', prop(2, 1), prop(2, 1)],
      ['proportion', prop(1e6, 999_999), prop(1e6, 1)],
      ['mean', { n: 2, sum: 1e-300, sumSquares: 1e-300 }, { n: 2, sum: 2e-300, sumSquares: 3e-300 }],
      ['mean', { n: 1e9, sum: 1e12, sumSquares: 1e16 }, { n: 1e9, sum: 1.1e12, sumSquares: 1.2e16 }],
      ['mean', { n: 3, sum: 1e150, sumSquares: 1e300 }, { n: 3, sum: 2e150, sumSquares: 3e300 }],
    ];
    for (const [kind, c, t] of cases) {
      const r = compareToControl(kind, c, t, { sequential: true, prior: 'proper' });
      expectAllFinite(r);
      if (r.enoughData) {
        expect(r.relative.pValue!).toBeGreaterThanOrEqual(0);
        expect(r.relative.pValue!).toBeLessThanOrEqual(1);
        expect(r.bayes.chanceToWin!).toBeGreaterThanOrEqual(0);
        expect(r.bayes.chanceToWin!).toBeLessThanOrEqual(1);
      } else {
        expect(r.reason).toBeTruthy();
      }
    }
  });

  it('identical variants: lift 0, p = 1, chance to win 0.5', () => {
    const r = compareToControl('proportion', prop(500, 50), prop(500, 50), { sequential: true });
    expect(r.relative.lift).toBe(0);
    close(r.relative.pValue, 1, 1e-12);
    close(r.bayes.chanceToWin, 0.5, 1e-12);
    close(r.sequential?.pValue, 1, 1e-12);
  });

  it.each<[string, CompareOptions]>([
    ['alpha 0', { alpha: 0 }],
    ['alpha 1', { alpha: 1 }],
    ['alpha NaN', { alpha: Number.NaN }],
    ['priorStdDev 0', { prior: 'proper', priorStdDev: 0 }],
    ['sequentialTuning -1', { sequential: true, sequentialTuning: -1 }],
  ])('rejects a bad option: %s', (_name, opts) => {
    expect(() => compareToControl('proportion', prop(100, 10), prop(100, 12), opts)).toThrow(RangeError);
  });
});

describe('comparison shape', () => {
  it('serialises to JSON with the documented fields', () => {
    const r: Comparison = compareToControl('proportion', prop(1000, 100), prop(1000, 130), { sequential: true });
    const json = JSON.parse(JSON.stringify(r)) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(['absolute', 'bayes', 'enoughData', 'relative', 'sequential']);
    expect(Object.keys(json.absolute as object).sort()).toEqual(['ci', 'df', 'lift', 'pValue', 'se']);
    expect(Object.keys(json.bayes as object).sort()).toEqual(['chanceToWin', 'ci', 'mean', 'sd']);
    expect(Object.keys(json.sequential as object).sort()).toEqual(['ci', 'pValue']);
  });
});

describe('relative intervals of a rate are bounded', () => {
  // Control 3/20, treatment 1/20: the lift is −67% but its normal interval reaches below −100%.
  const control = prop(20, 3);
  const treatment = prop(20, 1);

  it('clips the lower bound of every relative interval of a success rate at −1', () => {
    const c = compareToControl('proportion', control, treatment, { sequential: true });
    close(c.relative.lift, -2 / 3, 1e-12);
    expect(c.relative.ci![0]).toBe(-1);
    expect(c.bayes.ci![0]).toBe(-1);
    expect(c.sequential!.ci![0]).toBe(-1);
    // The upper bounds and the tests themselves are untouched.
    expect(c.relative.ci![1]).toBeGreaterThan(c.relative.lift!);
    expect(c.relative.pValue).toBeGreaterThan(0);
  });

  it('leaves a mean metric alone: a mean can fall by more than 100%', () => {
    const c = compareToControl('mean', control, treatment, { sequential: true });
    expect(c.relative.ci![0]).toBeLessThan(-1);
  });
});
