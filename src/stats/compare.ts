import { gaussianPosterior, undefinedPosterior } from './bayesian.js';
import { tTest, undefinedTest, welchDf } from './frequentist.js';
import { checkSuff } from './moments.js';
import { betaChanceToWin, edgeTest, newcombeInterval, rateSequencePValue } from './proportionEdges.js';
import { sequentialTest } from './sequential.js';
import type { CompareOptions, Comparison, FrequentistResult, MetricKind, Moments, Suff } from './types.js';

export const DEFAULT_ALPHA = 0.05;
const DEFAULT_PRIOR_STD_DEV = 0.3;
const DEFAULT_SEQUENTIAL_TUNING = 5000;

export const REASON_TOO_FEW_USERS = 'not enough data: each variant needs at least 2 users';
export const REASON_CONTROL_MEAN_ZERO = 'control mean is 0: relative lift undefined';

interface ResolvedOptions {
  alpha: number;
  prior: 'flat' | 'proper';
  priorStdDev: number;
  sequential: boolean;
  tuning: number;
}

/** Options are configuration, not data: a bad value is a programming error and throws. */
function resolveOptions(opts: CompareOptions): ResolvedOptions {
  const alpha = opts.alpha ?? DEFAULT_ALPHA;
  const priorStdDev = opts.priorStdDev ?? DEFAULT_PRIOR_STD_DEV;
  const tuning = opts.sequentialTuning ?? DEFAULT_SEQUENTIAL_TUNING;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  if (!(priorStdDev > 0 && Number.isFinite(priorStdDev))) {
    throw new RangeError(`priorStdDev must be a positive number, got ${priorStdDev}`);
  }
  if (!(tuning > 0 && Number.isFinite(tuning))) {
    throw new RangeError(`sequentialTuning must be a positive number, got ${tuning}`);
  }
  return { alpha, prior: opts.prior ?? 'flat', priorStdDev, sequential: opts.sequential ?? false, tuning };
}

function notEnough(reason: string, o: ResolvedOptions, absolute: FrequentistResult = undefinedTest(), relativeLift: number | null = null): Comparison {
  const c: Comparison = {
    enoughData: false,
    reason,
    absolute,
    relative: undefinedTest(relativeLift),
    bayes: undefinedPosterior(),
  };
  if (o.sequential) c.sequential = { ci: null, pValue: null };
  return c;
}

function zeroVarianceReason(control: Moments, treatment: Moments): string | null {
  const c = control.variance === 0;
  const t = treatment.variance === 0;
  if (c && t) return 'no variation in either variant: every user has the same value';
  if (c) return 'no variation in control: every user has the same value';
  if (t) return 'no variation in treatment: every user has the same value';
  return null;
}

function isFiniteResult(c: Comparison): boolean {
  const nums: Array<number | null> = [
    c.absolute.lift,
    c.absolute.se,
    c.absolute.pValue,
    c.absolute.df,
    ...(c.absolute.ci ?? []),
    c.relative.lift,
    c.relative.se,
    c.relative.pValue,
    c.relative.df,
    ...(c.relative.ci ?? []),
    c.bayes.chanceToWin,
    c.bayes.mean,
    c.bayes.sd,
    ...(c.bayes.ci ?? []),
    c.sequential?.pValue ?? null,
    ...(c.sequential?.ci ?? []),
  ];
  return nums.every((x) => x === null || Number.isFinite(x));
}

/**
 * A rate (or any non-negative value) cannot fall by more than 100%, but a normal approximation of
 * its relative change can reach below −1 when the control's value is small: such lower bounds are
 * clipped at −1.
 */
function clipRelativeIntervals(result: Comparison): void {
  for (const interval of [result.relative.ci, result.bayes.ci, result.sequential?.ci]) {
    if (interval && interval[0] < -1) interval[0] = -1;
  }
}

/**
 * Two proportions, one or both without variation (0/n or n/n): Welch's test is undefined there, so the
 * difference is decided by the pooled two-proportion z-test (Fisher's exact test for tiny tables), its interval is Newcombe's hybrid score
 * interval, and the chance to win comes from Beta posteriors (proportionEdges.ts). The relative lift
 * is given when the control's rate is not 0, without a test of its own (its standard error would be 0).
 */
function proportionAtTheEdge(control: Suff, treatment: Suff, why: string, o: ResolvedOptions): Comparison {
  // A mean of shares in [0, 1] may sum to a fraction in the arm that varies: the counts are rounded (the arm without variation is exact).
  const c = { n: control.n, x: Math.round(control.sum) };
  const t = { n: treatment.n, x: Math.round(treatment.sum) };
  const lift = t.x / t.n - c.x / c.n;
  const test = edgeTest(c, t);
  const relLift = c.x === 0 ? null : lift / (c.x / c.n);
  const method = test.method === 'fisher_exact' ? "Fisher's exact test" : 'the pooled two-proportion z-test';
  const result: Comparison = {
    enoughData: true,
    reason: `${why}; decided with ${method} and Newcombe's score interval`,
    absolute: { lift, se: test.se, ci: newcombeInterval(c, t, o.alpha), pValue: test.pValue, df: null },
    relative: undefinedTest(relLift),
    bayes: { chanceToWin: betaChanceToWin(c, t), ci: null, mean: null, sd: null },
  };
  if (o.sequential) result.sequential = { ci: null, pValue: rateSequencePValue(c, t) };
  return result;
}

/**
 * Compares a treatment with the control on one metric (GrowthBook gbstats conventions):
 * absolute difference and relative lift with Welch t-tests (Welch–Satterthwaite ν), a Gaussian
 * Bayesian posterior on the relative lift, and optionally always-valid sequential inference.
 *
 * Never returns NaN or ±Infinity. When inference is impossible, `enoughData` is false, `reason`
 * says why in plain words, and every undefined number is null:
 * - fewer than 2 users in a variant, or inconsistent statistics;
 * - zero variance in either variant of a mean (gbstats ZERO_NEGATIVE_VARIANCE): only the lifts are
 *   given (a proportion is decided there by proportionAtTheEdge, with enoughData true);
 * - control mean 0 (gbstats BASELINE_VARIATION_ZERO): the absolute test is still given in full.
 */
export function compareToControl(kind: MetricKind, control: Suff, treatment: Suff, opts: CompareOptions = {}): Comparison {
  const o = resolveOptions(opts);
  const cc = checkSuff(kind, control);
  const ct = checkSuff(kind, treatment);
  if (!cc.ok || !ct.ok) {
    if ((!cc.ok && cc.reason === 'invalid') || (!ct.ok && ct.reason === 'invalid')) {
      const which = !cc.ok && cc.reason === 'invalid' ? 'control' : 'treatment';
      return notEnough(`invalid statistics for ${which}: counts or sums are inconsistent`, o);
    }
    return notEnough(REASON_TOO_FEW_USERS, o);
  }
  const mc = cc.moments;
  const mt = ct.moments;
  const nC = control.n;
  const nT = treatment.n;
  const absLift = mt.mean - mc.mean;
  const relLift = mc.mean === 0 ? null : absLift / Math.abs(mc.mean);

  const zeroVar = zeroVarianceReason(mc, mt);
  if (zeroVar !== null && (kind === 'proportion' || opts.unitInterval === true)) return proportionAtTheEdge(control, treatment, zeroVar, o);
  if (zeroVar !== null) return notEnough(zeroVar, o, undefinedTest(absLift), relLift);

  const df = welchDf(mc.variance, nC, mt.variance, nT);
  const absolute = tTest(absLift, Math.sqrt(mt.variance / nT + mc.variance / nC), df, o.alpha);

  let result: Comparison;
  if (relLift === null) {
    result = notEnough(REASON_CONTROL_MEAN_ZERO, o, absolute);
  } else {
    // Delta method: σT²/(nT μC²) + σC² μT²/(nC μC⁴), factored as [σT²/nT + σC²(μT/μC)²/nC]/μC²
    // so that μC⁴ cannot underflow or overflow.
    const ratio = mt.mean / mc.mean;
    const relSe = Math.sqrt(mt.variance / nT + (mc.variance * ratio * ratio) / nC) / Math.abs(mc.mean);
    result = {
      enoughData: true,
      absolute,
      relative: tTest(relLift, relSe, df, o.alpha),
      bayes: gaussianPosterior(relLift, relSe, o.alpha, o.prior, o.priorStdDev),
    };
    if (o.sequential) result.sequential = sequentialTest(relLift, relSe, nC + nT, o.alpha, o.tuning);
    if (opts.nonNegative ?? kind === 'proportion') clipRelativeIntervals(result);
  }

  if (!isFiniteResult(result)) {
    return notEnough('values too large to analyse: a statistic overflowed', o);
  }
  return result;
}
