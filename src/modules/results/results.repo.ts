import { jsonColumns } from '../../db/jsonColumns.js';
import type { Sql } from '../../db/sql.js';

/**
 * SQL aggregation for experiment results. Every statistic is built from sufficient statistics
 * (n, Σ, Σ²): first per user (the unit of randomisation), then per variant. Most queries return
 * those sums; no query returns a row per outcome, and only the metrics that need each user's value
 * (the one event type checked against assignments, a percentile cap, CUPED) get a row per user,
 * summed in perUser.ts. SQLite has no hash aggregation, so a GROUP BY that does not follow an index
 * sorts every row: the per-user grouping therefore follows outcomes_experiment and the queries go
 * variant by variant, so that outer aggregates need no sort at all. The same statements run on
 * PostgreSQL (its planner ignores the hints and picks its own way).
 */

/** One variant × event_type: per-user values aggregated over the users who have the event. */
export interface MetricAgg {
  /** Users with at least one outcome of the event_type. */
  users_with_event: number;
  /** Users with at least one non-null is_success. */
  users_with_success_data: number;
  /** Users with at least one is_success = true. */
  successes: number;
  /** Users with at least one non-null numeric_value. */
  users_with_numeric: number;
  /** Σ over users of each user's Σ numeric_value, and Σ of its square. */
  sum: number;
  sum_squares: number;
}

/** One event_type in one variant, checked against the users' assignments (aggregated from JoinedColumns). */
export interface JoinedAgg {
  /** Over every user with the event, as metricAggregate. */
  totals: MetricAgg;
  /** The same split by UTC hour (YYYY-MM-DDTHH) of first exposure; users without an assignment left out. */
  hours: Array<MetricAgg & { hour: string }>;
  /** Users with outcomes in this variant whose assignment names another variant. */
  mismatched: string[];
}

const PER_USER_TOTALS = `count(*) AS users_with_event, count(success) AS users_with_success_data,
  coalesce(sum(success), 0) AS successes, count(total) AS users_with_numeric,
  coalesce(sum(total), 0) AS sum, coalesce(sum(total * total), 0) AS sum_squares`;

/**
 * Distinct event types of the experiment's outcomes by a loose index scan: one index seek per
 * event type instead of reading every outcome.
 */
export function eventTypes(db: Sql, projectId: string, experimentId: string): Promise<string[]> {
  return db.column<string>(
    `WITH RECURSIVE seen(event_type) AS (
      SELECT min(event_type) FROM outcomes WHERE project_id = @project AND experiment_id = @experiment
      UNION ALL
      SELECT (SELECT min(event_type) FROM outcomes
              WHERE project_id = @project AND experiment_id = @experiment AND event_type > seen.event_type)
      FROM seen WHERE seen.event_type IS NOT NULL)
    SELECT event_type FROM seen WHERE event_type IS NOT NULL`,
    { project: projectId, experiment: experimentId },
  );
}

/**
 * A user's value of a mean metric: the sum of their numeric values, clamped at @cap when one is
 * given (capping, so one whale cannot decide the experiment). NULL for users without numeric values.
 * The CAST gives PostgreSQL the parameter's type where nothing else does (a NULL cap).
 */
const USER_TOTAL = `CASE WHEN CAST(@cap AS DOUBLE PRECISION) IS NOT NULL AND sum(numeric_value) > @cap THEN @cap ELSE sum(numeric_value) END`;

/**
 * One event_type in one variant. The inner GROUP BY follows outcomes_experiment, so per-user rows
 * stream into the outer aggregate, which has no GROUP BY and so needs no sort: querying variant by
 * variant is what keeps this a single pass.
 */
export async function metricAggregate(
  db: Sql,
  projectId: string,
  experimentId: string,
  eventType: string,
  variant: string,
  cap: number | null = null,
): Promise<MetricAgg> {
  return (await db.get<MetricAgg>(
    `SELECT ${PER_USER_TOTALS} FROM (
      SELECT max(is_success) AS success, ${USER_TOTAL} AS total FROM outcomes
      WHERE project_id = @project AND experiment_id = @experiment AND event_type = @eventType AND variant = @variant
        AND attributed_user IS NOT NULL
      GROUP BY attributed_user) AS per_user`,
    { project: projectId, experiment: experimentId, eventType, variant, cap },
  ))!;
}

/**
 * One event type's per-user values in one variant, column by column (position i is one user):
 * max(is_success) and Σ numeric_value (nulls: no data).
 */
export interface UserColumns {
  user: string[];
  success: Array<number | null>;
  total: Array<number | null>;
}
/**
 * UserColumns checked against each user's assignment: UTC hour of first exposure (YYYY-MM-DDTHH, which
 * the charts add up by day when they are daily) and assigned variant (nulls: no assignment).
 */
export interface JoinedColumns extends UserColumns {
  hour: Array<string | null>;
  assigned: Array<string | null>;
}

const USER_COLUMNS = { user: 'unit', success: 'success', total: 'total' };

/**
 * Per-user values of one event type in one variant, in user order (outcomes_experiment), for the
 * metrics whose statistics need each user's value: a percentile cap, or CUPED's Σxy. The ORDER BY
 * costs SQLite nothing (its grouping follows the index) and keeps PostgreSQL's hash aggregation
 * from handing users over in an order of its own: sums in JavaScript then add in one order.
 */
export function userRows(db: Sql, projectId: string, experimentId: string, eventType: string, variant: string): Promise<UserColumns> {
  return jsonColumns<UserColumns>(
    db,
    USER_COLUMNS,
    `SELECT attributed_user AS unit, max(is_success) AS success, sum(numeric_value) AS total FROM outcomes
    WHERE project_id = @project AND experiment_id = @experiment AND event_type = @eventType AND variant = @variant AND attributed_user IS NOT NULL
    GROUP BY attributed_user ORDER BY attributed_user`,
    { project: projectId, experiment: experimentId, eventType, variant },
  );
}

/**
 * userRows with each user's assignment: one primary-key seek per user (assignments is WITHOUT ROWID,
 * so the seek lands on the row), about as much again as the scan itself, which is why the service
 * runs this for one event type only (the multiple-variant check and the daily chart).
 */
export function joinedRows(db: Sql, projectId: string, experimentId: string, eventType: string, variant: string): Promise<JoinedColumns> {
  return jsonColumns<JoinedColumns>(
    db,
    { ...USER_COLUMNS, hour: 'hour', assigned: 'assigned' },
    `SELECT g.unit, g.success, g.total, substr(a.first_seen, 1, 13) AS hour, a.variant AS assigned
    FROM (SELECT attributed_user AS unit, max(is_success) AS success, sum(numeric_value) AS total FROM outcomes
          WHERE project_id = @project AND experiment_id = @experiment AND event_type = @eventType AND variant = @variant
            AND attributed_user IS NOT NULL
          GROUP BY attributed_user ORDER BY attributed_user) g
    LEFT JOIN assignments a ON a.project_id = @project AND a.experiment_id = @experiment AND a.external_user_id = g.unit`,
    { project: projectId, experiment: experimentId, eventType, variant },
  );
}

/** Users with any is_success = true outcome, per variant (used for cost per success without a primary metric). */
export function successfulUsers(db: Sql, projectId: string, experimentId: string): Promise<Array<{ variant: string; users: number }>> {
  return db.all(
    `SELECT variant, count(*) AS users FROM (
      SELECT variant, attributed_user FROM outcomes
      WHERE project_id = ? AND experiment_id = ? AND is_success = 1 AND attributed_user IS NOT NULL
      GROUP BY variant, attributed_user) AS successful
    GROUP BY variant`,
    [projectId, experimentId],
  );
}

/**
 * Outcome counts per label of one event type, from the partial index of labelled outcomes: asked
 * only for the event types the report shows, so labelled outcomes of other types are not read.
 */
export function labelCounts(
  db: Sql,
  projectId: string,
  experimentId: string,
  eventType: string,
): Promise<Array<{ event_type: string; variant: string; label: string; n: number }>> {
  return db.all(
    `SELECT event_type, variant, label, count(*) AS n FROM outcomes
    WHERE project_id = ? AND experiment_id = ? AND event_type = ? AND label IS NOT NULL AND variant IS NOT NULL
    GROUP BY event_type, variant, label`,
    [projectId, experimentId, eventType],
  );
}

export type Granularity = 'hour' | 'day';

/** Exposures per variant and period of first exposure: a period is a UTC day (YYYY-MM-DD) or hour (YYYY-MM-DDTHH). */
export interface PeriodExposures {
  variant: string;
  period: string;
  n: number;
}

/** Exposures (stored assignments) per variant and UTC day, or hour, of first exposure. */
export function exposuresByPeriod(db: Sql, projectId: string, experimentId: string, granularity: Granularity): Promise<PeriodExposures[]> {
  if (granularity === 'hour') {
    // A young experiment only: its assignments are few enough for the sort this grouping needs.
    return db.all(
      `SELECT variant, substr(first_seen, 1, 13) AS period, count(*) AS n FROM assignments
      WHERE project_id = ? AND experiment_id = ?
      GROUP BY variant, substr(first_seen, 1, 13)`,
      [projectId, experimentId],
    );
  }
  // The GROUP BY repeats the expression of assignments_variant_day so SQLite streams it in index order.
  return db.all(
    `SELECT variant, substr(first_seen, 1, 10) AS period, count(*) AS n FROM assignments
    WHERE project_id = ? AND experiment_id = ?
    GROUP BY variant, substr(first_seen, 1, 10)`,
    [projectId, experimentId],
  );
}

/** Outcomes of the prompt recorded unattributed in [from, to), or since `from` when to is null. */
export async function unattributedOutcomes(db: Sql, projectId: string, promptId: string, from: string, to: string | null): Promise<number> {
  return (await db.value<number>(
    `SELECT count(*) FROM outcomes
    WHERE project_id = @project AND prompt_id = @prompt AND attributed_by = 'none' AND created_at >= @from
      AND (CAST(@to AS TEXT) IS NULL OR created_at < @to)`,
    { project: projectId, prompt: promptId, from, to },
  ))!;
}
