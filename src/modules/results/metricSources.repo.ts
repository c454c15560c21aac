import { jsonRows, prepared } from '../../db/prepared.js';
import type { Db } from '../../db/open.js';
import type { RunKind } from '../experiments/metrics.js';

/**
 * The SQL behind declared metrics beyond plain outcome aggregates: per-user run metrics (latency,
 * cost, errors, tokens) and CUPED's pre-exposure values.
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
  return jsonRows<[number]>(
    db,
    'value',
    `SELECT ${RUN_VALUE[kind]} AS value FROM runs INDEXED BY runs_experiment_user
    WHERE project_id = @project AND experiment_id = @experiment AND variant IS NOT NULL AND external_user_id IS NOT NULL
    GROUP BY variant, external_user_id`,
    { project: projectId, experiment: experimentId },
  ).map(([value]) => value);
}

/** One user's pre-exposure values: [user, variant, then max(is_success) and Σ numeric_value per event type asked]. */
export type PreRow = [user: string, variant: string, ...values: Array<number | null>];

/**
 * CUPED's covariate for every assigned user with any outcome of the given event types in the `days`
 * before first exposure. One seek per assigned user on outcomes_person, whose key puts each
 * person's outcomes in time order: the seek reads exactly the pre-exposure window, for every event
 * type at once. A person is the experiment's unit (attributed_user) or, for outcomes attributed to
 * no experiment, external_user_id: an outcome before exposure cannot belong to this experiment.
 * The GROUP BY follows the primary key, so assignments come in user order and the seeks walk
 * outcomes_person forward: in any other order (assignments_variant_day, say) they cost three times as much.
 */
export function preExposureRows(db: Db, projectId: string, experimentId: string, eventTypes: readonly string[], days: number): PreRow[] {
  const values = eventTypes.map((_, i) => `s${i}, n${i}`).join(', ');
  const columns = eventTypes
    .map((_, i) => `max(h.is_success) FILTER (WHERE h.event_type = @t${i}) AS s${i}, sum(h.numeric_value) FILTER (WHERE h.event_type = @t${i}) AS n${i}`)
    .join(', ');
  const types = Object.fromEntries(eventTypes.map((t, i) => [`t${i}`, t]));
  // The unary + keeps TEXT affinity off the indexed expression's comparison, or SQLite cannot seek on it.
  // first_seen is always an ISO-8601 instant from toISOString (YYYY-MM-DDTHH:MM:SS.sssZ), so the
  // window starts at the same time of day `days` dates earlier: date() on the 10-character date is
  // about four times cheaper than strftime() on the whole instant, once per assigned user
  // (test/integration/results/preExposureWindow.test.ts holds the two to the same rows).
  return jsonRows<PreRow>(
    db,
    `user, variant, ${values}`,
    `SELECT a.external_user_id AS user, a.variant AS variant, ${columns}
    FROM assignments a JOIN outcomes h INDEXED BY outcomes_person
      ON h.project_id = a.project_id AND coalesce(h.attributed_user, h.external_user_id) = +a.external_user_id
        AND h.created_at >= date(substr(a.first_seen, 1, 10), @window) || substr(a.first_seen, 11) AND h.created_at < a.first_seen
        AND h.event_type IN (${eventTypes.map((_, i) => `@t${i}`).join(', ')})
    WHERE a.project_id = @project AND a.experiment_id = @experiment
    GROUP BY a.external_user_id`,
    { project: projectId, experiment: experimentId, window: `-${days} days`, ...types },
  );
}
