import type { Sql } from '../../db/sql.js';

/** One period of a bandit's allocation history (migrations/0023), its JSON columns decoded. */
export interface AllocationRecord {
  period: number;
  started_at: string;
  /** Variant key → the weight new users followed from started_at. */
  weights: Record<string, number>;
  /** Variant key → P(best) the check computed; null for period 0 (the starting weights). */
  p_best: Record<string, number> | null;
  /** Arms dropped for a failed guardrail by then. */
  dropped: string[];
}

interface AllocationRow {
  period: number;
  started_at: string;
  weights: string;
  p_best: string | null;
  dropped: string;
}

export async function listAllocations(db: Sql, projectId: string, experimentId: string): Promise<AllocationRecord[]> {
  const rows = await db.all<AllocationRow>(
    'SELECT period, started_at, weights, p_best, dropped FROM bandit_allocations WHERE project_id = ? AND experiment_id = ? ORDER BY period',
    [projectId, experimentId],
  );
  return rows.map((r) => ({
    period: r.period,
    started_at: r.started_at,
    weights: JSON.parse(r.weights) as Record<string, number>,
    p_best: r.p_best === null ? null : (JSON.parse(r.p_best) as Record<string, number>),
    dropped: JSON.parse(r.dropped) as string[],
  }));
}

/** Fails on the primary key when the period is already written (another replica's check got there first). */
export async function insertAllocation(db: Sql, projectId: string, experimentId: string, record: AllocationRecord): Promise<void> {
  await db.run(
    `INSERT INTO bandit_allocations (project_id, experiment_id, period, started_at, weights, p_best, dropped)
    VALUES (@project, @experiment, @period, @started_at, @weights, @p_best, @dropped)`,
    {
      project: projectId,
      experiment: experimentId,
      period: record.period,
      started_at: record.started_at,
      weights: JSON.stringify(record.weights),
      p_best: record.p_best === null ? null : JSON.stringify(record.p_best),
      dropped: JSON.stringify(record.dropped),
    },
  );
}

/** One arm in one period: its users (by first assignment) and their outcome sums for one event type. */
export interface PeriodCellRow {
  variant: string;
  period: number;
  /** Users first assigned this arm during the period. */
  n: number;
  /** Of them, users with at least one is_success = true. */
  successes: number;
  /** Σ over them of each user's Σ numeric_value (0 without one), and Σ of its square. */
  sum: number;
  sum_squares: number;
}

/**
 * Every exposed user's period (the last one started at or before their first assignment; period 0
 * before any check) and their value of one outcome event type, summed per arm and period. Users
 * without an outcome count with 0, as in the results (the denominator is exposed users).
 */
export function periodCells(db: Sql, projectId: string, experimentId: string, eventType: string): Promise<PeriodCellRow[]> {
  return db.all<PeriodCellRow>(
    `SELECT variant, period, count(*) AS n, coalesce(sum(success), 0) AS successes,
      coalesce(sum(total), 0) AS sum, coalesce(sum(total * total), 0) AS sum_squares
    FROM (
      SELECT a.variant,
        coalesce((SELECT max(p.period) FROM bandit_allocations p
          WHERE p.project_id = a.project_id AND p.experiment_id = a.experiment_id AND p.started_at <= a.first_seen), 0) AS period,
        coalesce(o.success, 0) AS success, coalesce(o.total, 0) AS total
      FROM assignments a
      LEFT JOIN (
        SELECT attributed_user AS unit, max(is_success) AS success, sum(numeric_value) AS total FROM outcomes
        WHERE project_id = @project AND experiment_id = @experiment AND event_type = @eventType AND attributed_user IS NOT NULL
        GROUP BY attributed_user) o ON o.unit = a.external_user_id
      WHERE a.project_id = @project AND a.experiment_id = @experiment) AS per_user
    GROUP BY variant, period ORDER BY period, variant`,
    { project: projectId, experiment: experimentId, eventType },
  );
}
