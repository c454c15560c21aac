import type { Sql } from '../../db/sql.js';

/** One experiment's place in the schedule (migrations/0022). */
export interface ScheduleRow {
  project_id: string;
  experiment_id: string;
  due_at: string;
  lease_owner: string | null;
  lease_until: string | null;
}

export async function listSchedule(db: Sql): Promise<ScheduleRow[]> {
  return db.all<ScheduleRow>(
    'SELECT project_id, experiment_id, due_at, lease_owner, lease_until FROM experiment_schedule ORDER BY due_at, project_id, experiment_id',
  );
}

/** Puts an experiment on the schedule (a replica that got there first wins: its due time stays). */
export async function schedule(db: Sql, projectId: string, experimentId: string, dueAt: string): Promise<void> {
  await db.run('INSERT INTO experiment_schedule (project_id, experiment_id, due_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [projectId, experimentId, dueAt]);
}

export async function unschedule(db: Sql, projectId: string, experimentId: string): Promise<void> {
  await db.run('DELETE FROM experiment_schedule WHERE project_id = ? AND experiment_id = ?', [projectId, experimentId]);
}

/**
 * Takes the lease of one experiment's check: a compare-and-set, so of two replicas claiming the
 * same check only one changes the row. `dueAt`: a scheduled check claims the due time it read (a
 * check that already settled moved it on); null: a check asked for, which only needs the lease free.
 * `takeOver`: the owner of a lease whose process is known to have died, taken as free (only while
 * that owner still holds it). On PostgreSQL the second UPDATE waits for the first's row lock and
 * then sees its new values.
 */
export async function claim(
  db: Sql,
  projectId: string,
  experimentId: string,
  c: { dueAt: string | null; owner: string; now: string; leaseUntil: string; takeOver?: string | null },
): Promise<boolean> {
  const result = await db.run(
    `UPDATE experiment_schedule SET lease_owner = @owner, lease_until = @until
     WHERE project_id = @project AND experiment_id = @experiment
       AND (lease_until IS NULL OR lease_until <= @now OR lease_owner = CAST(@dead AS TEXT))
       AND (CAST(@due AS TEXT) IS NULL OR due_at = @due)`,
    {
      owner: c.owner,
      until: c.leaseUntil,
      project: projectId,
      experiment: experimentId,
      now: c.now,
      due: c.dueAt,
      dead: c.takeOver ?? null,
    },
  );
  return result.changes === 1;
}

/** Who holds an experiment's check now, and until when (both null when nobody does); undefined when it is not on the schedule. */
export async function leaseOf(db: Sql, projectId: string, experimentId: string): Promise<Pick<ScheduleRow, 'lease_owner' | 'lease_until'> | undefined> {
  return db.get<Pick<ScheduleRow, 'lease_owner' | 'lease_until'>>(
    'SELECT lease_owner, lease_until FROM experiment_schedule WHERE project_id = ? AND experiment_id = ?',
    [projectId, experimentId],
  );
}

/** Gives the lease back and sets the next due time, if this owner still holds it; false when another process took it over. */
export async function settle(db: Sql, projectId: string, experimentId: string, owner: string, nextDueAt: string | null): Promise<boolean> {
  const result = await db.run(
    `UPDATE experiment_schedule SET lease_owner = NULL, lease_until = NULL, due_at = coalesce(@next, due_at)
     WHERE project_id = @project AND experiment_id = @experiment AND lease_owner = @owner`,
    { next: nextDueAt, project: projectId, experiment: experimentId, owner },
  );
  return result.changes === 1;
}

/** A check that failed gives its lease back: the same due time is tried again on a later pass. */
export async function release(db: Sql, projectId: string, experimentId: string, owner: string): Promise<void> {
  await db.run('UPDATE experiment_schedule SET lease_owner = NULL, lease_until = NULL WHERE project_id = ? AND experiment_id = ? AND lease_owner = ?', [
    projectId,
    experimentId,
    owner,
  ]);
}

/** One check as recorded (the timeline of a rollout or bandit). */
export interface CheckRecord {
  id: string;
  experiment_id: string;
  checked_at: string;
  scheduled_at: string | null;
  trigger: 'scheduled' | 'manual';
  action: string;
  reason: string;
  step: number | null;
  percent: number | null;
  figures: unknown;
}

const CHECK_COLUMNS = 'id, experiment_id, checked_at, scheduled_at, trigger, action, reason, step, percent, figures';

export async function insertCheck(db: Sql, projectId: string, check: CheckRecord): Promise<void> {
  await db.run(
    `INSERT INTO experiment_checks (project_id, ${CHECK_COLUMNS}) VALUES (@project_id, @id, @experiment_id, @checked_at, @scheduled_at, @trigger, @action, @reason, @step, @percent, @figures)`,
    { ...check, project_id: projectId, figures: JSON.stringify(check.figures ?? null) },
  );
}

/** The latest `limit` checks of an experiment, oldest first. */
export async function listChecks(db: Sql, projectId: string, experimentId: string, limit: number): Promise<CheckRecord[]> {
  const rows = await db.all<Omit<CheckRecord, 'figures'> & { figures: string }>(
    `SELECT ${CHECK_COLUMNS} FROM experiment_checks WHERE project_id = ? AND experiment_id = ? ORDER BY checked_at DESC, id DESC LIMIT ?`,
    [projectId, experimentId, limit],
  );
  return rows.reverse().map((r) => ({ ...r, figures: JSON.parse(r.figures) as unknown }));
}
