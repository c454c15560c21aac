/**
 * A bandit's state, pure: from its allocation history and each arm's users per period to what the
 * report shows (period-weighted estimates, P(best), per-period SRM) and what the next check sets
 * (docs/rollouts-and-bandits.md, "Bandits"). The scheduled check and the results both use it, so
 * they can never disagree.
 */
import {
  armPosterior,
  periodSampleRatioMismatch,
  periodWeightedEstimates,
  PROBABILITY_BEST_DRAWS,
  probabilityBest,
  type ArmPosterior,
  type Suff,
} from '../../stats/index.js';
import { fnv1a32 } from './assignment.js';
import type { AllocationRecord, PeriodCellRow } from './bandit.repo.js';
import type { BanditReport } from './bandit.schemas.js';
import type { VariantDef } from './experiments.schemas.js';
import type { MetricDef } from './metrics.js';

export interface BanditInputs {
  seed: string;
  variants: readonly VariantDef[];
  /** The primary metric (an outcome metric: success_rate or mean). */
  metric: MetricDef;
  /** The allocation history, by period; empty before the first check. */
  allocations: readonly AllocationRecord[];
  cells: readonly PeriodCellRow[];
  /** When period 0 began, if the history does not say (the experiment's start). */
  startedAt: string;
  /** The arms out of play; default: those the latest period names (a check passes the ones it is about to drop too). */
  dropped?: readonly string[];
}

/** What the state computes beyond the report: P(best) per arm in variant order, and which arms are still in play. */
export interface BanditState {
  report: BanditReport;
  pBest: number[];
  active: boolean[];
}

/** The history, with period 0 filled in from the variants' starting weights when no check has run yet. */
export function historyOf(inputs: Pick<BanditInputs, 'variants' | 'allocations' | 'startedAt'>): AllocationRecord[] {
  if (inputs.allocations.length > 0) return [...inputs.allocations];
  return [{ period: 0, started_at: inputs.startedAt, weights: Object.fromEntries(inputs.variants.map((v) => [v.key, v.weight])), p_best: null, dropped: [] }];
}

/** Arm i's sufficient statistics in each period: cells[p][i]. */
function periodSuffs(kind: MetricDef['kind'], keys: readonly string[], periods: number, rows: readonly PeriodCellRow[]): Suff[][] {
  const cells = Array.from({ length: periods }, () => keys.map(() => ({ n: 0, sum: 0, sumSquares: 0 })));
  for (const row of rows) {
    const i = keys.indexOf(row.variant);
    const cell = cells[Math.min(row.period, periods - 1)]?.[i];
    if (cell === undefined) continue;
    cell.n += row.n;
    if (kind === 'success_rate') {
      cell.sum += row.successes;
      cell.sumSquares += row.successes;
    } else {
      cell.sum += row.sum;
      cell.sumSquares += row.sum_squares;
    }
  }
  return cells;
}

/** The Monte Carlo seed of a check: the experiment's seed and how many periods there are, so a re-read gives the same P(best). */
function monteCarloSeed(seed: string, periods: number): number {
  return fnv1a32(`${seed}:bandit:${periods}`);
}

export function banditState(inputs: BanditInputs): BanditState {
  const kind = inputs.metric.kind === 'mean' ? 'mean' : 'success_rate';
  const keys = inputs.variants.map((v) => v.key);
  const history = historyOf(inputs);
  const dropped = new Set(inputs.dropped ?? history.at(-1)!.dropped);
  const active = keys.map((k) => !dropped.has(k));
  const cells = periodSuffs(kind, keys, history.length, inputs.cells);
  const estimates = periodWeightedEstimates(kind, cells);

  const activeIdx = keys.map((_, i) => i).filter((i) => active[i]);
  const posteriors = activeIdx.map((i) => armPosterior(kind, estimates[i]!));
  const pBest = keys.map(() => 0);
  const same = posteriors.every((p) => JSON.stringify(p) === JSON.stringify(posteriors[0]));
  if (!same && posteriors.every((p): p is ArmPosterior => p !== null)) {
    const p = probabilityBest(posteriors, { seed: monteCarloSeed(inputs.seed, history.length), direction: inputs.metric.direction });
    activeIdx.forEach((i, j) => {
      pBest[i] = p[j]!;
    });
  } else {
    // Arms that look the same (no data yet), or a mean arm with fewer than 2 users, say nothing yet:
    // every arm in play is as likely to be best (exactly, without Monte Carlo noise).
    for (const i of activeIdx) pBest[i] = 1 / activeIdx.length;
  }

  const srm = periodSampleRatioMismatch(history.map((h, p) => ({ observed: cells[p]!.map((c) => c.n), weights: keys.map((k) => h.weights[k] ?? 0) })));
  const report: BanditReport = {
    metric: { name: inputs.metric.name, kind, direction: inputs.metric.direction },
    monte_carlo_draws: PROBABILITY_BEST_DRAWS,
    arms: inputs.variants.map((v, i) => {
      const e = estimates[i]!;
      return {
        variant: v.key,
        weight: v.weight,
        dropped: !active[i],
        users: cells.reduce((s, c) => s + c[i]!.n, 0),
        estimate: e?.estimate ?? null,
        ci_lower: e?.lower ?? null,
        ci_upper: e?.upper ?? null,
        p_best: pBest[i]!,
      };
    }),
    periods: history.map((h, p) => ({
      period: h.period,
      started_at: h.started_at,
      weights: h.weights,
      users: Object.fromEntries(keys.map((k, i) => [k, cells[p]![i]!.n])),
      p_best: h.p_best,
      dropped: h.dropped,
      srm_p_value: srm.periods[p]!.checked ? srm.periods[p]!.pValue : null,
    })),
    srm: { chi_square: srm.chiSquare, df: srm.df, p_value: srm.pValue, checked: srm.checked, flagged: srm.flagged },
  };
  return { report, pBest, active };
}
