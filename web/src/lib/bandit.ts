import type { AllocationPeriod } from './types.js';

/** A bandit's allocation history as chart series: one x per period (its start, epoch seconds), one series per arm. */
export interface BanditSeries {
  keys: string[];
  x: number[];
  /** Share of new users per arm per period, in percent. */
  weights: number[][];
  /** P(best) per arm per period, in percent; null for period 0 (the starting weights, no check yet). */
  pBest: Array<Array<number | null>>;
}

export function banditSeries(keys: readonly string[], history: readonly AllocationPeriod[]): BanditSeries {
  return {
    keys: [...keys],
    x: history.map((h) => Date.parse(h.started_at) / 1000),
    weights: keys.map((k) => history.map((h) => (h.weights[k] ?? 0) * 100)),
    pBest: keys.map((k) => history.map((h) => (h.p_best === null ? null : (h.p_best[k] ?? 0) * 100))),
  };
}
