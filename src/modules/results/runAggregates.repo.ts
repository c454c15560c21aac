import type { Sql } from '../../db/sql.js';

/** What experiment results read of the variants' runs (and of the calls that failed to render): results.repo.ts reads their outcomes. */

export interface RunAgg {
  variant: string;
  runs: number;
  errored: number;
  /** Calls that failed to render the variant's version (no run: nothing reached a model). */
  render_failures: number;
  /** Users with at least one such failure. */
  render_failed_users: number;
  ok: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_nano_usd: number;
}

/**
 * Runs, tokens and cost per variant, and the calls that failed to render. Grouped by variant and status, the order of runs_experiment,
 * so the status counts come from the grouping instead of two expressions evaluated on every run
 * (a fifth of the query); the statuses are then added up per variant (integers: exact).
 */
export async function runAggregates(db: Sql, projectId: string, experimentId: string): Promise<RunAgg[]> {
  const rows = await db.all<Omit<RunAgg, 'errored' | 'ok'> & { status: string }>(
    `SELECT variant, status, count(*) AS runs, coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
      coalesce(sum(completion_tokens), 0) AS completion_tokens, coalesce(sum(total_tokens), 0) AS total_tokens,
      coalesce(sum(cost_nano_usd), 0) AS cost_nano_usd
    FROM runs WHERE project_id = ? AND experiment_id = ? AND variant IS NOT NULL
    GROUP BY variant, status`,
    [projectId, experimentId],
  );
  const byVariant = new Map<string, RunAgg>();
  for (const { variant, status, runs, ...sums } of rows) {
    const agg = byVariant.get(variant) ?? noRuns(variant);
    byVariant.set(variant, agg);
    agg.runs += runs;
    if (status === 'error') agg.errored += runs;
    if (status === 'ok') agg.ok += runs;
    agg.prompt_tokens += sums.prompt_tokens;
    agg.completion_tokens += sums.completion_tokens;
    agg.total_tokens += sums.total_tokens;
    agg.cost_nano_usd += sums.cost_nano_usd;
  }
  // Calls that failed to render are counted on the assigned user's row (migrations/0013), read on its partial index.
  const failures = await db.all<{ variant: string; failures: number; users: number }>(
    `SELECT variant, sum(render_failures) AS failures, count(*) AS users FROM assignments
    WHERE project_id = ? AND experiment_id = ? AND render_failures > 0 GROUP BY variant`,
    [projectId, experimentId],
  );
  for (const { variant, failures: n, users } of failures) {
    const agg = byVariant.get(variant) ?? noRuns(variant);
    byVariant.set(variant, agg);
    agg.render_failures = n;
    agg.render_failed_users = users;
  }
  return [...byVariant.values()];
}

const noRuns = (variant: string): RunAgg => ({
  variant,
  runs: 0,
  errored: 0,
  render_failures: 0,
  render_failed_users: 0,
  ok: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  cost_nano_usd: 0,
});

/**
 * Latency of the successful run at 0-based rank `offset` in latency order, of the variant's `ok`
 * successful runs (counted in the same snapshot): a walk along runs_experiment, from whichever end
 * is nearer. The walk costs one index entry per rank skipped, so a 95th percentile is read as rank
 * ok − 1 − offset in descending order, the same value, for a twentieth of the walk.
 */
export async function okLatencyAtRank(db: Sql, projectId: string, experimentId: string, variant: string, offset: number, ok: number): Promise<number | null> {
  const fromTop = offset > (ok - 1) / 2;
  const value = await db.value<number>(
    `SELECT latency_ms FROM runs
    WHERE project_id = ? AND experiment_id = ? AND variant = ? AND status = 'ok'
    ORDER BY latency_ms ${fromTop ? 'DESC' : 'ASC'} LIMIT 1 OFFSET ?`,
    [projectId, experimentId, variant, fromTop ? ok - 1 - offset : offset],
  );
  return value ?? null;
}

/** How finely the results' time series counts: by UTC hour while an experiment is young, else by UTC day. */
