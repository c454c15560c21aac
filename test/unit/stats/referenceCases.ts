import type { CompareOptions, MetricKind, Suff } from '../../../src/stats/index.js';
import { fromMeanSd, prop } from './helpers.js';

export interface RefCase {
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

export const gbControl = { n: 3407, sum: 1396.87, sumSquares: 52377.9767 };
export const gbTreatment = { n: 3461, sum: 2422.7, sumSquares: 134698.29 };

export const referenceCases: RefCase[] = [
  {
    name: 'proportions 100/1000 vs 130/1000',
    source: 'GrowthBook gbstats reference',
    kind: 'proportion',
    control: prop(1000, 100),
    treatment: prop(1000, 130),
    tol: 1e-6,
    relative: { lift: 0.3, se: 0.16285, ci: [-0.0193754, 0.6193754], pValue: 0.0655973 },
    bayes: { chanceToWin: 0.9672763 },
  },
  {
    name: 'proportions 100/1000 vs 130/1000, full precision',
    source: 'SciPy 1.17 (stats.t, stats.norm) on the gbstats formulas',
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
    source: 'SciPy with (μT − μC)/|μC| (gbstats relative lift)',
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
