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
} from '../../src/modules/results/stats/index.js';

function close(actual: number | null | undefined, expected: number, tol: number): void {
  expect(actual).not.toBeNull();
  expect(actual).toBeTypeOf('number');
  if (Math.abs((actual as number) - expected) > tol) {
    throw new Error(`expected ${actual} to be within ${tol} of ${expected}`);
  }
}

/** Every number anywhere in the value is finite (so JSON output can never hold NaN/Infinity). */
function expectAllFinite(value: unknown, path = '$'): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${path} is ${value}`);
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) expectAllFinite(v, `${path}[${i}]`);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) expectAllFinite(v, `${path}.${k}`);
  }
}

const prop = (n: number, successes: number): Suff => ({ n, sum: successes, sumSquares: successes });

/** Suff for a mean metric from a published mean and standard deviation. */
function fromMeanSd(n: number, mean: number, sd: number): Suff {
  const sum = mean * n;
  return { n, sum, sumSquares: (n - 1) * sd * sd + (sum * sum) / n };
}

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

interface RefCase {
  name: string;
  source: string;
  kind: MetricKind;
  control: Suff;
  treatment: Suff;
  opts?: CompareOptions;
  tol: number;
  absolute?: { lift: number; se: number; ci: [number, number]; pValue: number };
  relative?: { lift: number; se: number; ci: [number, number]; pValue: number };
  df?: number;
  bayes?: { chanceToWin: number; ci?: [number, number]; mean?: number; sd?: number };
}

const gbControl = { n: 3407, sum: 1396.87, sumSquares: 52377.9767 };
const gbTreatment = { n: 3461, sum: 2422.7, sumSquares: 134698.29 };

const referenceCases: RefCase[] = [
  {
    name: 'proportions 100/1000 vs 130/1000',
    source: 'design.md §7 (GrowthBook gbstats reference)',
    kind: 'proportion',
    control: prop(1000, 100),
    treatment: prop(1000, 130),
    tol: 1e-6,
    relative: { lift: 0.3, se: 0.16285, ci: [-0.0193754, 0.6193754], pValue: 0.0655973 },
    bayes: { chanceToWin: 0.9672763 },
  },
  {
    name: 'proportions 100/1000 vs 130/1000, full precision',
    source: 'SciPy 1.17 (stats.t, stats.norm) on the design.md §7 formulas',
    kind: 'proportion',
    control: prop(1000, 100),
    treatment: prop(1000, 130),
    tol: 1e-9,
    df: 1972.48370948912,
    absolute: {
      lift: 0.03,
      se: 0.014251315728731857,
      ci: [0.0020507842909493826, 0.057949215709050615],
      pValue: 0.03541149025749652,
    },
    relative: {
      lift: 0.3,
      se: 0.16284962388657825,
      ci: [-0.019375372265978963, 0.6193753722659789],
      pValue: 0.06559733260262472,
    },
    bayes: {
      chanceToWin: 0.9672763417294536,
      ci: [-0.019179397713587065, 0.6191793977135871],
      mean: 0.3,
      sd: 0.16284962388657825,
    },
  },
  {
    name: 'proportions 100/1000 vs 130/1000, proper prior N(0, 0.3²)',
    source: 'SciPy: prec = 1/SE² + 1/0.09, μ = (Δ/SE²)/prec, σ = 1/√prec',
    kind: 'proportion',
    control: prop(1000, 100),
    treatment: prop(1000, 130),
    opts: { prior: 'proper' },
    tol: 1e-9,
    bayes: {
      chanceToWin: 0.9472798425887837,
      ci: [-0.048794980420210354, 0.5122347332523423],
      mean: 0.23171987641606595,
      sd: 0.14312245482516092,
    },
  },
  {
    name: 'means (gbstats TwoSidedTTest fixture)',
    source: 'gbstats tests/frequentist/test_tests.py (5 decimals)',
    kind: 'mean',
    control: gbControl,
    treatment: gbTreatment,
    tol: 5e-6,
    relative: { lift: 0.70732, se: 0.37879, ci: [-0.03526, 1.44989], pValue: 0.06191 },
    absolute: { lift: 0.29, se: 0.12478, ci: [0.04538, 0.53462], pValue: 0.02016 },
  },
  {
    name: 'means (gbstats fixture), full precision',
    source: 'SciPy',
    kind: 'mean',
    control: gbControl,
    treatment: gbTreatment,
    tol: 1e-9,
    df: 5841.742032093565,
    absolute: {
      lift: 0.29,
      se: 0.12478363158758794,
      ci: [0.04537789255929012, 0.5346221074407098],
      pValue: 0.020158402643586978,
    },
    relative: {
      lift: 0.7073170731707317,
      se: 0.3787943616681428,
      ci: [-0.03526008906611777, 1.449894235407581],
      pValue: 0.0619118274561836,
    },
    bayes: { chanceToWin: 0.9690691085323815, ci: [-0.03510623324566775, 1.449740379587131] },
  },
  {
    name: 'means (gbstats fixture) given as mean ± sd',
    source: 'gbstats older test_tests.py: Statistic(value=0.41, stddev=3.9, n=3407) vs (0.7, 6.2, 3461)',
    kind: 'mean',
    control: fromMeanSd(3407, 0.41, 3.9),
    treatment: fromMeanSd(3461, 0.7, 6.2),
    tol: 5e-6,
    relative: { lift: 0.70732, se: 0.37879, ci: [-0.03526, 1.44989], pValue: 0.06191 },
    absolute: { lift: 0.29, se: 0.12478, ci: [0.04538, 0.53462], pValue: 0.02016 },
  },
  {
    name: 'proportions 14/28 vs 16/30 (small n, t not normal)',
    source: 'gbstats test_two_sided_ttest_binom (5 decimals)',
    kind: 'proportion',
    control: prop(28, 14),
    treatment: prop(30, 16),
    tol: 5e-6,
    relative: { lift: 0.06667, se: 0.2717, ci: [-0.47767, 0.61101], pValue: 0.80707 },
  },
  {
    name: 'proportions 49/100 vs 51/100, Bayesian flat',
    source: 'gbstats tests/bayesian/test_tests.py GaussianEffectABTest (5 decimals)',
    kind: 'proportion',
    control: prop(100, 49),
    treatment: prop(100, 51),
    tol: 5e-6,
    bayes: { chanceToWin: 0.60918, ci: [-0.24779, 0.32943], mean: 0.04082, sd: 0.14725 },
  },
  {
    name: 'means n=10, Bayesian flat',
    source: 'gbstats tests/bayesian/test_tests.py GaussianEffectABTest (5 decimals)',
    kind: 'mean',
    control: { n: 10, sum: 100, sumSquares: 1002.25 },
    treatment: { n: 10, sum: 105, sumSquares: 1111.5 },
    tol: 5e-6,
    bayes: { chanceToWin: 0.91923, ci: [-0.02, 0.12], mean: 0.05, sd: 0.03572 },
  },
  {
    name: 'means n=5 vs n=7 (df ≈ 9)',
    source: 'SciPy',
    kind: 'mean',
    control: { n: 5, sum: 12.5, sumSquares: 40.25 },
    treatment: { n: 7, sum: 25.9, sumSquares: 110.33 },
    tol: 1e-9,
    df: 8.97155073619591,
    absolute: {
      lift: 1.1999999999999997,
      se: 0.8917612321905989,
      ci: [-0.8182796067742921, 3.2182796067742916],
      pValue: 0.21143326684338704,
    },
    relative: {
      lift: 0.47999999999999987,
      se: 0.46146169422617866,
      ci: [-0.5644036959044979, 1.5244036959044975],
      pValue: 0.32547880596379775,
    },
    bayes: { chanceToWin: 0.8508702360183868, ci: [-0.42444830092814534, 1.384448300928145] },
  },
  {
    name: 'negative control mean: lift relative to |μC|',
    source: 'SciPy with (μT − μC)/|μC| (design.md §7)',
    kind: 'mean',
    control: { n: 40, sum: -80, sumSquares: 400 },
    treatment: { n: 50, sum: -60, sumSquares: 300 },
    tol: 1e-9,
    df: 77.7958809827826,
    absolute: {
      lift: 0.8,
      se: 0.4968977544082382,
      ci: [-0.18928832233783643, 1.7892883223378364],
      pValue: 0.11145073800919925,
    },
    relative: {
      lift: 0.4,
      se: 0.1926433491418866,
      ci: [0.016460702445550424, 0.7835392975544496],
      pValue: 0.041161579283910454,
    },
    bayes: { chanceToWin: 0.9810703990018408 },
  },
  {
    name: 'treatment worse, 300/2000 vs 250/2100',
    source: 'SciPy',
    kind: 'proportion',
    control: prop(2000, 300),
    treatment: prop(2100, 250),
    tol: 1e-9,
    df: 4012.5731358527014,
    absolute: {
      lift: -0.030952380952380953,
      se: 0.01066257994882575,
      ci: [-0.05185695932217851, -0.0100478025825834],
      pValue: 0.003717426979295376,
    },
    relative: {
      lift: -0.20634920634920637,
      se: 0.06327912137131893,
      ci: [-0.33041142752151725, -0.08228698517689546],
      pValue: 0.0011197275510062916,
    },
    bayes: { chanceToWin: 0.0005552242238345527 },
  },
  {
    name: 'treatment worse, proper prior shrinks towards 0',
    source: 'SciPy',
    kind: 'proportion',
    control: prop(2000, 300),
    treatment: prop(2100, 250),
    opts: { prior: 'proper' },
    tol: 1e-9,
    bayes: {
      chanceToWin: 0.0007095723550074205,
      ci: [-0.31891400825747696, -0.07620491720160756],
      mean: -0.19755946272954225,
      sd: 0.06191672218732786,
    },
  },
  {
    name: 'means (gbstats fixture), proper prior',
    source: 'SciPy',
    kind: 'mean',
    control: gbControl,
    treatment: gbTreatment,
    opts: { prior: 'proper' },
    tol: 1e-9,
    bayes: {
      chanceToWin: 0.8768365224575045,
      ci: [-0.18829384805880622, 0.7335836153959668],
      mean: 0.2726448836685803,
      sd: 0.23517714374509555,
    },
  },
];

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
      name: 'all successes in both variants',
      kind: 'proportion',
      control: prop(50, 50),
      treatment: prop(60, 60),
      reason: 'no variation in either variant: every user has the same value',
      absoluteLift: 0,
      relativeLift: 0,
    },
    {
      name: 'no successes in either variant (control mean 0 too)',
      kind: 'proportion',
      control: prop(50, 0),
      treatment: prop(60, 0),
      reason: 'no variation in either variant: every user has the same value',
      absoluteLift: 0,
      relativeLift: null,
    },
    {
      name: 'all successes in control only',
      kind: 'proportion',
      control: prop(100, 100),
      treatment: prop(100, 90),
      reason: 'no variation in control: every user has the same value',
      absoluteLift: -0.1,
      relativeLift: -0.1,
    },
    {
      name: 'no successes in treatment only (delta-method SE would be 0)',
      kind: 'proportion',
      control: prop(100, 10),
      treatment: prop(100, 0),
      reason: 'no variation in treatment: every user has the same value',
      absoluteLift: -0.1,
      relativeLift: -1,
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
