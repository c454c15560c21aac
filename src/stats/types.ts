/** Shared types of the statistics engine. Inputs are per-variant sufficient statistics. */

export type MetricKind = 'proportion' | 'mean';

/** Which way a metric improves: 'higher' (e.g. conversion) or 'lower' (e.g. latency, cost). */
export type Direction = 'higher' | 'lower';

/**
 * Sufficient statistics of one variant for one metric, aggregated per user (the unit of
 * randomisation): n users exposed, Σy and Σy² over those users. For a proportion metric y is 0/1,
 * so sum = sumSquares = number of users with a success.
 */
export interface Suff {
  n: number;
  sum: number;
  sumSquares: number;
}

export interface Moments {
  mean: number;
  /** Per-user variance σ²: μ(1−μ) for proportions, the n−1 sample variance for means. */
  variance: number;
}

type Interval = [number, number];

export interface CompareOptions {
  /** Bayesian prior on the relative lift: flat (default) or proper N(0, priorStdDev²). */
  prior?: 'flat' | 'proper';
  /** Standard deviation of the proper prior on the relative lift (default 0.3, GrowthBook's). */
  priorStdDev?: number;
  /** Also compute always-valid (sequential) intervals and p-value on the relative lift. */
  sequential?: boolean;
  /** Tuning parameter N* of the confidence sequence (default 5000, GrowthBook's). */
  sequentialTuning?: number;
  /** Two-sided significance level; intervals are (1 − alpha). Default 0.05. */
  alpha?: number;
  /**
   * The per-user values cannot be negative (rates, latency, cost), so the metric cannot fall by more
   * than 100%: relative lower bounds below −1 are clipped. Default: true for proportions only.
   */
  nonNegative?: boolean;
  /**
   * Every per-user value lies in [0, 1] (a share of calls, say): a mean metric without variation in an
   * arm is then decided as two proportions at the edge are, instead of "not enough data". Default false.
   */
  unitInterval?: boolean;
}

/** Welch t-test result. Every number is null when it is undefined for the data (never NaN). */
export interface FrequentistResult {
  lift: number | null;
  se: number | null;
  ci: Interval | null;
  pValue: number | null;
  df: number | null;
}

export interface BayesianResult {
  chanceToWin: number | null;
  ci: Interval | null;
  /** Posterior mean and standard deviation of the relative lift. */
  mean: number | null;
  sd: number | null;
}

export interface SequentialResult {
  ci: Interval | null;
  pValue: number | null;
}

export interface Comparison {
  enoughData: boolean;
  /** Plain-language reason when enoughData is false. */
  reason?: string;
  /** Difference of means μT − μC. */
  absolute: FrequentistResult;
  /** (μT − μC)/|μC| with delta-method standard error. */
  relative: FrequentistResult;
  /** Gaussian effect model on the relative lift. */
  bayes: BayesianResult;
  /** Present only when options.sequential is true. */
  sequential?: SequentialResult;
}

export type Verdict = 'not_enough_data' | 'no_detectable_difference' | 'better' | 'worse';
