import { formatTable } from './table.js';

/** One period of a bandit's allocation history, as GET /experiments/{id} shows it. */
interface AllocationView {
  period: number;
  started_at: string;
  weights: Record<string, number>;
  p_best: Record<string, number> | null;
  dropped: string[];
}

const percent = (x: number | undefined) => (x === undefined ? '-' : `${(x * 100).toFixed(1)}%`);

/**
 * A bandit's allocation history for `experiments show`: one row per period, each arm's weight from
 * then on and, in brackets, its probability of being best as that check computed it.
 */
export function allocationTable(keys: readonly string[], history: readonly AllocationView[]): string {
  const rows = history.map((h) => ({
    period: h.period,
    from: h.started_at,
    ...Object.fromEntries(keys.map((k) => [k, `${percent(h.weights[k] ?? 0)} (${h.p_best === null ? '-' : percent(h.p_best[k] ?? 0)})`])),
    dropped: h.dropped.join(' '),
  }));
  return `allocation history: weight of new users (probability best)\n${formatTable(rows, ['period', 'from', ...keys, 'dropped'])}`;
}

/** A bandit's settings in one line. */
export function banditSummary(b: { floor: number | null; stop_threshold: number; stop_after_minutes: number }): string {
  const floor = b.floor === null ? '1/(10·k) of new users for k arms in play' : `${percent(b.floor)} of new users`;
  return `bandit: re-weighted hourly; floor ${floor}; stops and ships an arm best with probability >= ${b.stop_threshold} for ${b.stop_after_minutes} minutes`;
}
