import { jsonColumns, jsonRows } from '../../db/jsonColumns.js';
import type { Sql } from '../../db/sql.js';
import type { EvaluatorMetricKind, RunKind } from '../experiments/metrics.js';
import { covariateParams, covariateSql, type Covariate } from '../experiments/covariate.js';

/**
 * The SQL behind declared metrics beyond plain outcome aggregates: per-user run metrics (latency,
 * cost, errors (with the calls that failed to render), tokens) and CUPED's pre-exposure values.
 */

/** Sufficient statistics of one variant: n users and Σy, Σy² over them. */
export interface UserSums {
  users: number;
  sum: number;
  sum_squares: number;
}

/**
 * Each user's value of a runs metric: a mean per run of what the run measured, as a double on both
 * backends (PostgreSQL's avg of an integer is an exact decimal; DOUBLE PRECISION has REAL affinity
 * in SQLite).
 */
const asDouble = (expr: string) => `avg(CAST(${expr} AS DOUBLE PRECISION))`;
const RUN_VALUE: Record<RunKind, string> = {
  latency_ms: asDouble('latency_ms'),
  ttft_ms: asDouble('ttft_ms'),
  cost_usd: `${asDouble('cost_nano_usd')} / 1e9`,
  error_rate: asDouble("CASE WHEN status = 'error' THEN 1 ELSE 0 END"),
  total_tokens: asDouble('total_tokens'),
  schema_valid_rate: asDouble('output_valid'),
};
/**
 * The runs a kind reads (a user with none has no value): ttft_ms only streamed runs (only they have a
 * time to first token), schema_valid_rate only those whose output was checked.
 */
const RUN_FILTER: Partial<Record<RunKind, string>> = {
  ttft_ms: ' AND ttft_ms IS NOT NULL',
  schema_valid_rate: ' AND output_valid IS NOT NULL',
};

const capped = (expr: string) => `CASE WHEN CAST(@cap AS DOUBLE PRECISION) IS NOT NULL AND ${expr} > @cap THEN @cap ELSE ${expr} END`;

/**
 * One runs metric in one variant, over the users with at least one run: the per-user groups stream
 * out of runs_experiment_user in order, so the outer aggregate needs no sort.
 */
export async function runsMetric(db: Sql, projectId: string, experimentId: string, variant: string, kind: RunKind, cap: number | null): Promise<UserSums> {
  if (kind === 'error_rate' && (await hasRenderFailures(db, projectId, experimentId, variant)))
    return errorRateWithRenderFailures(db, projectId, experimentId, variant);
  return (await db.get<UserSums>(
    `SELECT count(*) AS users, coalesce(sum(y), 0) AS sum, coalesce(sum(y * y), 0) AS sum_squares FROM (
      SELECT ${capped(RUN_VALUE[kind])} AS y FROM runs INDEXED BY runs_experiment_user
      WHERE project_id = @project AND experiment_id = @experiment AND variant = @variant AND external_user_id IS NOT NULL${RUN_FILTER[kind] ?? ''}
      GROUP BY external_user_id) AS per_user`,
    { project: projectId, experiment: experimentId, variant, cap },
  ))!;
}

/**
 * An evaluator metric in one variant, over the users with at least one scored run: each user's
 * mean score (or share of passes) over their runs the evaluator scored online. Runs it could not
 * score (an error) are left out, as in an evaluation: an error is never a fail.
 */
export async function evaluatorMetric(
  db: Sql,
  projectId: string,
  experimentId: string,
  variant: string,
  evaluatorId: string,
  kind: EvaluatorMetricKind,
): Promise<UserSums> {
  const value = kind === 'pass_rate' ? asDouble('s.passed') : asDouble('s.score');
  return (await db.get<UserSums>(
    `SELECT count(*) AS users, coalesce(sum(y), 0) AS sum, coalesce(sum(y * y), 0) AS sum_squares FROM (
      SELECT ${value} AS y FROM runs r
      JOIN run_scores s ON s.project_id = r.project_id AND s.run_id = r.id AND s.evaluator_id = @evaluator
      WHERE r.project_id = @project AND r.experiment_id = @experiment AND r.variant = @variant AND r.external_user_id IS NOT NULL
        AND s.score IS NOT NULL${kind === 'pass_rate' ? ' AND s.passed IS NOT NULL' : ''}
      GROUP BY r.external_user_id) AS per_user`,
    { project: projectId, experiment: experimentId, variant, evaluator: evaluatorId },
  ))!;
}

/** Whether any user of the variant had a call that failed to render (one probe of a partial index: migrations/0013). */
async function hasRenderFailures(db: Sql, projectId: string, experimentId: string, variant: string): Promise<boolean> {
  const found = await db.value<number>('SELECT 1 FROM assignments WHERE project_id = ? AND experiment_id = ? AND variant = ? AND render_failures > 0 LIMIT 1', [
    projectId,
    experimentId,
    variant,
  ]);
  return found !== undefined;
}

/**
 * error_rate where calls failed to render: each failed render is a failed call of that user with
 * no run, so a user's value is (failed runs + failed renders) / (runs + failed renders), over the
 * users with either. Only read when the variant has such failures: the plain runs query is cheaper.
 * error_rate is a rate, never capped.
 */
async function errorRateWithRenderFailures(db: Sql, projectId: string, experimentId: string, variant: string): Promise<UserSums> {
  return (await db.get<UserSums>(
    `SELECT count(*) AS users, coalesce(sum(y), 0) AS sum, coalesce(sum(y * y), 0) AS sum_squares FROM (
      SELECT CAST(sum(failed) AS DOUBLE PRECISION) / CAST(sum(calls) AS DOUBLE PRECISION) AS y FROM (
        SELECT external_user_id AS unit, count(*) AS calls, sum(CASE WHEN status = 'error' THEN 1 ELSE 0 END) AS failed
        FROM runs INDEXED BY runs_experiment_user
        WHERE project_id = @project AND experiment_id = @experiment AND variant = @variant AND external_user_id IS NOT NULL
        GROUP BY external_user_id
        UNION ALL
        SELECT external_user_id AS unit, render_failures AS calls, render_failures AS failed FROM assignments
        WHERE project_id = @project AND experiment_id = @experiment AND variant = @variant AND render_failures > 0
      ) AS parts GROUP BY unit) AS per_user`,
    { project: projectId, experiment: experimentId, variant },
  ))!;
}

/** Every user's value of a runs metric over all variants: what a percentile cap is taken from. */
export async function runsUserValues(db: Sql, projectId: string, experimentId: string, kind: RunKind): Promise<number[]> {
  const rows = await jsonRows<[number]>(
    db,
    ['value'],
    `SELECT ${RUN_VALUE[kind]} AS value FROM runs INDEXED BY runs_experiment_user
    WHERE project_id = @project AND experiment_id = @experiment AND variant IS NOT NULL AND external_user_id IS NOT NULL${RUN_FILTER[kind] ?? ''}
    GROUP BY variant, external_user_id`,
    { project: projectId, experiment: experimentId },
  );
  return rows.map(([value]) => value);
}

/** One user's pre-exposure values: [user, variant, [max(is_success), Σ numeric_value] per event type of the covariate]. */
export type PreRow = [user: string, variant: string, values: Array<number | null>];

/**
 * Every assignment with its covariate, column by column (position i is one assignment): user,
 * variant, UTC hour of first exposure (YYYY-MM-DDTHH), and values as in PreRow or null (no pre-exposure outcome).
 */
export interface AssignedColumns {
  user: string[];
  variant: string[];
  hour: string[];
  pre: Array<Array<number | null> | null>;
}

/**
 * Every assignment of the experiment in user order, with CUPED's covariate: the results read the
 * assignments once, for both CUPED and the check of outcomes against assignments (merged with the
 * per-user rows in perUser.ts instead of one primary-key seek per user, which cost as much as the
 * scan of the outcomes itself). A user whose assignment captured this very covariate (pre_key,
 * written with the assignment: experiments/covariate.ts) costs nothing but their row; every other user
 * (assigned before the capture existed, or while CUPED was off, or before the window or the
 * declared event types changed) costs one seek on outcomes_person, as every user did before.
 * The scan follows the primary key, so assignments come in user order and the seeks walk
 * outcomes_person forward: in any other order (assignments_variant_day, say) they cost three times
 * as much. The captured JSON is handed over as it was written, so its numbers reach JavaScript
 * exactly as a seek's would.
 */
export function assignedRows(db: Sql, projectId: string, experimentId: string, c: Covariate): Promise<AssignedColumns> {
  // The unary + keeps TEXT affinity off the indexed expression's comparison, or SQLite cannot seek on it.
  return jsonColumns<AssignedColumns>(
    db,
    { user: 'unit', variant: 'variant', hour: 'hour', pre: db.dialect.jsonOf('pre') },
    `SELECT a.external_user_id AS unit, a.variant AS variant, substr(a.first_seen, 1, 13) AS hour,
      CASE WHEN a.pre_key = @key THEN a.pre ELSE ${covariateSql(db.dialect, c, 'a.project_id', '+a.external_user_id', 'a.first_seen')} END AS pre
    FROM assignments a
    WHERE a.project_id = @project AND a.experiment_id = @experiment
    ORDER BY a.external_user_id`,
    { project: projectId, experiment: experimentId, key: c.key, ...covariateParams(c) },
  );
}

/** CUPED's covariate of the assigned users with any outcome of its event types in the window before first exposure, in user order. */
function preRows(assigned: AssignedColumns): PreRow[] {
  const rows: PreRow[] = [];
  for (let i = 0; i < assigned.user.length; i++) {
    const values = assigned.pre[i] ?? null;
    if (values !== null) rows.push([assigned.user[i]!, assigned.variant[i]!, values]);
  }
  return rows;
}

/** preRows of assignedRows. */
export async function preExposureRows(db: Sql, projectId: string, experimentId: string, c: Covariate): Promise<PreRow[]> {
  return preRows(await assignedRows(db, projectId, experimentId, c));
}
