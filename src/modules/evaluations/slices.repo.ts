import type { Sql } from '../../db/sql.js';

/**
 * The SQL of an evaluation's writes done in slices (evaluationWrites.ts): its work rows written
 * while it is staged (migrations/0030_sliced_writes.sql), deleted when that was cut short, and the
 * pending rows of an ended evaluation marked skipped.
 */

/**
 * The place (seq) of the `limit`-th row matching `where` in place order, bounding the next slice
 * (rows at places up to it); undefined when fewer rows are left: the slice takes them all.
 */
async function sliceBound(db: Sql, where: string, args: unknown[], limit: number): Promise<number | undefined> {
  const seq = await db.value<number>(`SELECT seq FROM evaluation_items WHERE ${where} ORDER BY seq LIMIT 1 OFFSET ?`, [...args, limit - 1]);
  return seq === undefined ? undefined : Number(seq);
}

/** Marks up to about `limit` pending rows of an ended evaluation skipped; true while some are left. */
export async function skipPendingSlice(db: Sql, projectId: string, id: string, at: string, limit: number): Promise<boolean> {
  const where = "project_id = ? AND evaluation_id = ? AND state = 'pending'";
  const bound = await sliceBound(db, where, [projectId, id], limit);
  await db.run(`UPDATE evaluation_items SET state = 'skipped', finished_at = ? WHERE ${where}${bound === undefined ? '' : ' AND seq <= ?'}`, [
    at,
    projectId,
    id,
    ...(bound === undefined ? [] : [bound]),
  ]);
  return bound !== undefined;
}

/** Ended evaluations (any project) with rows still pending: a slicing cut short by a crash, to finish. Housekeeping. */
export async function endedWithPending(db: Sql): Promise<Array<{ project_id: string; id: string; finished_at: string }>> {
  return db.all(
    `SELECT project_id, id, finished_at FROM evaluations e WHERE status NOT IN ('queued', 'running') AND staged_until IS NULL
       AND EXISTS (SELECT 1 FROM evaluation_items i WHERE i.project_id = e.project_id AND i.evaluation_id = e.id AND i.state = 'pending')`,
  );
}

/**
 * Keeps a staged evaluation's hold for its writer until `until`; false once the hold has run out
 * (at `now`): then the evaluation is abandoned for good, whoever finds it deletes it.
 */
export async function renewStaging(db: Sql, projectId: string, id: string, now: string, until: string): Promise<boolean> {
  const { changes } = await db.run('UPDATE evaluations SET staged_until = ? WHERE project_id = ? AND id = ? AND staged_until > ?', [until, projectId, id, now]);
  return changes === 1;
}

/** The last slice: the evaluation becomes visible (and runnable); false when its hold had run out. */
export async function publishStaged(db: Sql, projectId: string, id: string, now: string): Promise<boolean> {
  const { changes } = await db.run('UPDATE evaluations SET staged_until = NULL WHERE project_id = ? AND id = ? AND staged_until > ?', [projectId, id, now]);
  return changes === 1;
}

/** Staged evaluations (any project) whose writer's hold ran out before `now`: never to be finished. Housekeeping. */
export async function abandonedStaged(db: Sql, now: string): Promise<Array<{ project_id: string; id: string }>> {
  return db.all('SELECT project_id, id FROM evaluations WHERE staged_until IS NOT NULL AND staged_until <= ? ORDER BY staged_until LIMIT 100', [now]);
}

/**
 * Deletes up to about `limit` work rows of a staged evaluation, and the evaluation itself once none
 * is left; true while rows are left. Never touches a published one.
 */
export async function deleteStagedSlice(db: Sql, projectId: string, id: string, limit: number): Promise<boolean> {
  if ((await db.value('SELECT 1 FROM evaluations WHERE project_id = ? AND id = ? AND staged_until IS NOT NULL', [projectId, id])) === undefined) return false;
  const where = 'project_id = ? AND evaluation_id = ?';
  const bound = await sliceBound(db, where, [projectId, id], limit);
  await db.run(`DELETE FROM evaluation_items WHERE ${where}${bound === undefined ? '' : ' AND seq <= ?'}`, [
    projectId,
    id,
    ...(bound === undefined ? [] : [bound]),
  ]);
  if (bound !== undefined) return true;
  await db.run('DELETE FROM evaluations WHERE project_id = ? AND id = ? AND staged_until IS NOT NULL', [projectId, id]);
  return false;
}
