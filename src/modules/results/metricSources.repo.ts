import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/open.js';
import type { OutcomeKind, RunKind } from '../experiments/metrics.js';

/**
 * The SQL behind declared metrics beyond plain outcome aggregates: per-user run metrics (latency,
 * cost, errors, tokens) and CUPED's pre-exposure sums. Like results.repo.ts, every query returns
 * sufficient statistics, never a row per user (except the per-user values a percentile cap needs).
 */

/** Sufficient statistics of one variant: n users and Σy, Σy² over them. */
export interface UserSums {
  users: number;
  sum: number;
  sum_squares: number;
}

/** Each user's value of a runs metric: a mean per run of what the run measured. */
const RUN_VALUE: Record<RunKind, string> = {
  latency_ms: 'avg(latency_ms)',
  cost_usd: 'avg(cost_nano_usd) / 1e9',
  error_rate: "avg(status = 'error')",
  total_tokens: 'avg(total_tokens)',
};

const capped = (expr: string) => `CASE WHEN @cap IS NOT NULL AND ${expr} > @cap THEN @cap ELSE ${expr} END`;

/**
 * One runs metric in one variant, over the users with at least one run: the per-user groups stream
 * out of runs_experiment_user in order, so the outer aggregate needs no sort.
 */
export function runsMetric(db: Db, projectId: string, experimentId: string, variant: string, kind: RunKind, cap: number | null): UserSums {
  return prepared(
    db,
    `SELECT count(*) AS users, coalesce(sum(y), 0) AS sum, coalesce(sum(y * y), 0) AS sum_squares FROM (
      SELECT ${capped(RUN_VALUE[kind])} AS y FROM runs INDEXED BY runs_experiment_user
      WHERE project_id = @project AND experiment_id = @experiment AND variant = @variant AND external_user_id IS NOT NULL
      GROUP BY external_user_id)`,
  ).get({ project: projectId, experiment: experimentId, variant, cap }) as UserSums;
}

/** Every user's value of a runs metric over all variants: what a percentile cap is taken from. */
export function runsUserValues(db: Db, projectId: string, experimentId: string, kind: RunKind): number[] {
  return prepared(
    db,
    `SELECT ${RUN_VALUE[kind]} FROM runs INDEXED BY runs_experiment_user
    WHERE project_id = ? AND experiment_id = ? AND variant IS NOT NULL AND external_user_id IS NOT NULL
    GROUP BY variant, external_user_id`,
  )
    .pluck()
    .all(projectId, experimentId) as number[];
}

/** CUPED's sums over one variant's users with a pre-exposure value x (y: the same user's value after exposure, 0 without one). */
export interface CupedSums {
  users_with_pre: number;
  sum_x: number;
  sum_x2: number;
  sum_xy: number;
}

/** A user's value of an outcome metric over a set of outcome rows, as metricAggregate computes it. */
const OUTCOME_VALUE: Record<OutcomeKind, (alias: string) => string> = {
  success_rate: (t) => `max(${t}.is_success)`,
  mean: (t) => capped(`sum(${t}.numeric_value)`),
};

/**
 * For each user assigned to the variant: x, the user's value of the metric over their outcomes of
 * the event type in the `days` before first exposure (matched by external_user_id; an outcome before
 * exposure cannot be attributed to the experiment), and y, the value after. One seek per assigned
 * user on outcomes_user_history, and one more on outcomes_experiment for the users that have an x.
 */
export function cupedSums(
  db: Db,
  projectId: string,
  experimentId: string,
  variant: string,
  metric: { eventType: string; kind: OutcomeKind; cap: number | null; days: number },
): CupedSums {
  const x = OUTCOME_VALUE[metric.kind]('h');
  const y = OUTCOME_VALUE[metric.kind]('o');
  return prepared(
    db,
    `SELECT count(*) AS users_with_pre, coalesce(sum(x), 0) AS sum_x, coalesce(sum(x * x), 0) AS sum_x2,
      coalesce(sum(x * coalesce((SELECT ${y} FROM outcomes o
        WHERE o.project_id = @project AND o.experiment_id = @experiment AND o.event_type = @eventType AND o.variant = @variant
          AND o.attributed_user = u.user), 0)), 0) AS sum_xy
    FROM (SELECT a.external_user_id AS user,
            (SELECT ${x} FROM outcomes h INDEXED BY outcomes_user_history
             WHERE h.project_id = @project AND h.external_user_id = a.external_user_id AND h.event_type = @eventType
               AND h.created_at >= strftime('%Y-%m-%dT%H:%M:%fZ', a.first_seen, @window) AND h.created_at < a.first_seen) AS x
          FROM assignments a WHERE a.project_id = @project AND a.experiment_id = @experiment AND a.variant = @variant) u
    WHERE x IS NOT NULL`,
  ).get({
    project: projectId,
    experiment: experimentId,
    variant,
    eventType: metric.eventType,
    cap: metric.cap,
    window: `-${metric.days} days`,
  }) as CupedSums;
}
