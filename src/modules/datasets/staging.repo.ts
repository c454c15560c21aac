import type { Sql } from '../../db/sql.js';

/**
 * The SQL of a dataset version written in slices (versioning.ts): the dataset's staging columns
 * (migrations/0030_sliced_writes.sql), and the slices of item rows it writes or takes back.
 */

/** A version being written in slices (migrations/0030_sliced_writes.sql): its number, its writer, until when its writer holds it. */
export interface Staging {
  version: number;
  owner: string;
  until: string;
}

export async function stagingOf(db: Sql, projectId: string, datasetId: string): Promise<Staging | undefined> {
  const row = await db.get<{ version: number; owner: string; until: string }>(
    'SELECT staging_version AS version, staging_owner AS owner, staged_until AS until FROM datasets WHERE project_id = ? AND dataset_id = ? AND staged_until IS NOT NULL',
    [projectId, datasetId],
  );
  return row === undefined ? undefined : { ...row, version: Number(row.version) };
}

/** Takes `version` for a write in slices (the dataset locked, no staging there): no other version is made until it ends. */
export async function beginStaging(db: Sql, projectId: string, datasetId: string, staging: Staging): Promise<void> {
  await db.run(
    'UPDATE datasets SET staging_version = ?, staging_owner = ?, staged_until = ? WHERE project_id = ? AND dataset_id = ? AND staged_until IS NULL',
    [staging.version, staging.owner, staging.until, projectId, datasetId],
  );
}

/**
 * Keeps the staging `owner` holds until `until`: false once its hold ran out at `now` (then anyone
 * may take it over, to take its rows back) or another took it.
 */
export async function renewStaging(db: Sql, projectId: string, datasetId: string, owner: string, now: string, until: string): Promise<boolean> {
  const { changes } = await db.run('UPDATE datasets SET staged_until = ? WHERE project_id = ? AND dataset_id = ? AND staging_owner = ? AND staged_until > ?', [
    until,
    projectId,
    datasetId,
    owner,
    now,
  ]);
  return changes === 1;
}

/** Takes over a staging whose hold ran out (its writer died), or `from`'s (its writer gave up), to take its rows back; false when there is none such. */
export async function takeOverStaging(
  db: Sql,
  projectId: string,
  datasetId: string,
  owner: string,
  now: string,
  until: string,
  from: string | null,
): Promise<boolean> {
  const { changes } = await db.run(
    'UPDATE datasets SET staging_owner = ?, staged_until = ? WHERE project_id = ? AND dataset_id = ? AND staged_until IS NOT NULL AND (staged_until <= ? OR staging_owner = ?)',
    [owner, until, projectId, datasetId, now, from],
  );
  return changes === 1;
}

export async function endStaging(db: Sql, projectId: string, datasetId: string, owner: string): Promise<void> {
  await db.run(
    'UPDATE datasets SET staging_version = NULL, staging_owner = NULL, staged_until = NULL WHERE project_id = ? AND dataset_id = ? AND staging_owner = ?',
    [projectId, datasetId, owner],
  );
}

/** Datasets (any project) whose staging's hold ran out before `now`. Housekeeping. */
export async function abandonedStagings(db: Sql, now: string): Promise<Array<{ project_id: string; dataset_id: string }>> {
  return db.all('SELECT project_id, dataset_id FROM datasets WHERE staged_until IS NOT NULL AND staged_until <= ? ORDER BY staged_until LIMIT 100', [now]);
}

/** The place of the `limit`-th item after `afterSeq`, bounding a slice; undefined when fewer are left. */
async function sliceBound(db: Sql, projectId: string, datasetId: string, afterSeq: number, limit: number): Promise<number | undefined> {
  const seq = await db.value<number>('SELECT seq FROM dataset_items WHERE project_id = ? AND dataset_id = ? AND seq > ? ORDER BY seq LIMIT 1 OFFSET ?', [
    projectId,
    datasetId,
    afterSeq,
    limit - 1,
  ]);
  return seq === undefined ? undefined : Number(seq);
}

/**
 * One slice of a replace: the items present at places after `afterSeq`, up to `limit` of them,
 * removed from `version` on. Answers how many, and the place to go on from (null: none left).
 */
export async function removeItemsSlice(
  db: Sql,
  projectId: string,
  datasetId: string,
  version: number,
  afterSeq: number,
  limit: number,
): Promise<{ removed: number; next: number | null }> {
  const bound = await sliceBound(db, projectId, datasetId, afterSeq, limit);
  const { changes } = await db.run(
    `UPDATE dataset_items SET removed_in = ? WHERE project_id = ? AND dataset_id = ? AND removed_in IS NULL AND added_in < ? AND seq > ?${bound === undefined ? '' : ' AND seq <= ?'}`,
    [version, projectId, datasetId, version, afterSeq, ...(bound === undefined ? [] : [bound])],
  );
  return { removed: changes, next: bound ?? null };
}

/**
 * One slice of taking back a version that was never made: up to `limit` of the items it added
 * deleted. They hold the last places (nothing else was added meanwhile), so the slice is found
 * from the end; true while some are left.
 */
export async function unaddSlice(db: Sql, projectId: string, datasetId: string, version: number, limit: number): Promise<boolean> {
  const last = await db.get<{ seq: number; added_in: number }>(
    'SELECT seq, added_in FROM dataset_items WHERE project_id = ? AND dataset_id = ? ORDER BY seq DESC LIMIT 1',
    [projectId, datasetId],
  );
  if (last === undefined || Number(last.added_in) !== version) return false;
  await db.run('DELETE FROM dataset_items WHERE project_id = ? AND dataset_id = ? AND added_in = ? AND seq > ?', [
    projectId,
    datasetId,
    version,
    Number(last.seq) - limit,
  ]);
  return true;
}

/** The other half: the items it removed, at places after `afterSeq` (up to `limit` places), present again. Answers where to go on, or null. */
export async function unremoveSlice(db: Sql, projectId: string, datasetId: string, version: number, afterSeq: number, limit: number): Promise<number | null> {
  const bound = await sliceBound(db, projectId, datasetId, afterSeq, limit);
  await db.run(
    `UPDATE dataset_items SET removed_in = NULL WHERE project_id = ? AND dataset_id = ? AND removed_in = ? AND seq > ?${bound === undefined ? '' : ' AND seq <= ?'}`,
    [projectId, datasetId, version, afterSeq, ...(bound === undefined ? [] : [bound])],
  );
  return bound ?? null;
}
