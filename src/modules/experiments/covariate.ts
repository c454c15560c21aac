import type { Dialect } from '../../db/dialect.js';
import type { MetricDef } from './metrics.js';

/**
 * CUPED's covariate: each user's outcomes of the declared event types in the `cuped_days` before
 * their first exposure. Outcomes are timestamped by the server when they are stored, so by the time
 * a user's first assignment is written every outcome of their window is already stored and none can
 * be added later: the covariate is captured once, in the assignment's row (migrations/0011), and
 * results read it back instead of seeking each user's window in outcomes_person. This module holds
 * the SQL both sides share, so a captured value is exactly what the seek computes.
 */

/** What a capture is computed for: the window in days and the event types, in the order of its values. */
export interface Covariate {
  days: number;
  /** Distinct event types, sorted: the order of the captured values. */
  types: string[];
  /** [days, types] as JSON: stored with the capture, which results use only when it matches theirs. */
  key: string;
}

/** The covariate of a window and some event types (their order and repeats do not matter), or null without any type. */
export function covariate(days: number, eventTypes: readonly string[]): Covariate | null {
  const types = [...new Set(eventTypes)].sort();
  return types.length === 0 ? null : { days, types, key: JSON.stringify([days, types]) };
}

/** The covariate an experiment captures at first assignment: CUPED on and at least one declared outcome metric; else null. */
export function capturedCovariate(e: { cuped: boolean; cuped_days: number; metrics: readonly MetricDef[] }): Covariate | null {
  if (!e.cuped) return null;
  return covariate(
    e.cuped_days,
    e.metrics.flatMap((m) => (m.source === 'outcomes' && m.event_type !== null ? [m.event_type] : [])),
  );
}

/** Named parameters of covariateSql: the window (a SQLite date modifier, which PostgreSQL reads as an interval) and the event types (@t0, @t1, …). */
export function covariateParams(c: Covariate): Record<string, string> {
  return { window: `-${c.days} days`, ...Object.fromEntries(c.types.map((t, i) => [`t${i}`, t])) };
}

/**
 * One person's covariate as the text of a JSON array [max(is_success), Σ numeric_value] per event
 * type of the covariate (in its order), or NULL when their window holds no outcome of those types:
 * a scalar subquery seeking outcomes_person, whose key puts each person's outcomes in time order, so
 * the seek reads exactly the window. A person is the experiment's unit (attributed_user) or, for
 * outcomes attributed to no experiment, external_user_id: coalesce(attributed_user,
 * external_user_id), the expression outcomes_person is built on. `project` and `person` are SQL
 * expressions, `firstSeen` the ISO-8601 instant of first exposure (YYYY-MM-DDTHH:MM:SS.sssZ, from
 * toISOString): the window starts at the same time of day `days` dates earlier, and shifting the
 * 10-character date is about four times cheaper than formatting the whole instant on SQLite
 * (test/integration/results/preExposureWindow.test.ts holds the two to the same rows).
 */
export function covariateSql(dialect: Dialect, c: Covariate, project: string, person: string, firstSeen: string): string {
  const values = c.types.flatMap((_, i) => [
    `max(h.is_success) FILTER (WHERE h.event_type = @t${i})`,
    `sum(h.numeric_value) FILTER (WHERE h.event_type = @t${i})`,
  ]);
  return `(SELECT CASE WHEN count(*) = 0 THEN NULL ELSE ${dialect.jsonText(dialect.jsonArray(values))} END
    FROM outcomes h INDEXED BY outcomes_person
    WHERE h.project_id = ${project} AND coalesce(h.attributed_user, h.external_user_id) = ${person}
      AND h.created_at >= ${dialect.dateShifted(`substr(${firstSeen}, 1, 10)`, '@window')} || substr(${firstSeen}, 11) AND h.created_at < ${firstSeen}
      AND h.event_type IN (${c.types.map((_, i) => `@t${i}`).join(', ')}))`;
}
