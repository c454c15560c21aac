import type { Sql } from '../../db/sql.js';
import type { NewItem } from './datasets.repo.js';

export interface UploadRow {
  upload_id: string;
  item_count: number;
  created_at: string;
  expires_at: string;
}

const COLUMNS = 'upload_id, item_count, created_at, expires_at';

export async function insertUpload(db: Sql, projectId: string, datasetId: string, row: UploadRow): Promise<void> {
  await db.run(`INSERT INTO dataset_uploads (project_id, dataset_id, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`, [
    projectId,
    datasetId,
    row.upload_id,
    row.item_count,
    row.created_at,
    row.expires_at,
  ]);
}

/** An upload still open at `now` (none once committed, discarded or expired). */
export async function findUpload(db: Sql, projectId: string, datasetId: string, uploadId: string, now: string): Promise<UploadRow | undefined> {
  const row = await db.get<UploadRow>(`SELECT ${COLUMNS} FROM dataset_uploads WHERE project_id = ? AND dataset_id = ? AND upload_id = ? AND expires_at > ?`, [
    projectId,
    datasetId,
    uploadId,
    now,
  ]);
  return row === undefined ? undefined : { ...row, item_count: Number(row.item_count) };
}

/**
 * Takes `count` places in the upload and answers the place before the first: the UPDATE comes
 * first, so on PostgreSQL it holds the upload's row lock and two requests staging at once number
 * their items one after the other (SQLite's single writer already serialises them).
 */
export async function reservePlaces(db: Sql, projectId: string, datasetId: string, uploadId: string, count: number): Promise<number> {
  await db.run('UPDATE dataset_uploads SET item_count = item_count + ? WHERE project_id = ? AND dataset_id = ? AND upload_id = ?', [
    count,
    projectId,
    datasetId,
    uploadId,
  ]);
  const total = await db.value<number>('SELECT item_count FROM dataset_uploads WHERE project_id = ? AND dataset_id = ? AND upload_id = ?', [
    projectId,
    datasetId,
    uploadId,
  ]);
  return Number(total) - count;
}

/** Rows per INSERT: 8 parameters each, far below PostgreSQL's 65 535. */
const INSERT_ROWS = 500;

export async function stageItems(db: Sql, projectId: string, datasetId: string, uploadId: string, after: number, items: readonly NewItem[]): Promise<void> {
  let seq = after;
  for (let start = 0; start < items.length; start += INSERT_ROWS) {
    const chunk = items.slice(start, start + INSERT_ROWS);
    const args: unknown[] = [];
    for (const item of chunk) {
      seq += 1;
      args.push(
        projectId,
        datasetId,
        uploadId,
        seq,
        item.item_id,
        JSON.stringify(item.inputs),
        item.expected === undefined || item.expected === null ? null : JSON.stringify(item.expected),
        JSON.stringify(item.metadata),
      );
    }
    await db.run(
      `INSERT INTO dataset_upload_items (project_id, dataset_id, upload_id, seq, item_id, inputs, expected, metadata)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      args,
    );
  }
}

/**
 * Holds the upload's row until the transaction ends (PostgreSQL; SQLite's single writer serialises
 * anyway): a commit counting its items and a request staging more take turns, so no item is staged
 * after a commit counted them.
 */
export async function lockUpload(db: Sql, projectId: string, datasetId: string, uploadId: string): Promise<void> {
  await db.run('UPDATE dataset_uploads SET item_count = item_count WHERE project_id = ? AND dataset_id = ? AND upload_id = ?', [
    projectId,
    datasetId,
    uploadId,
  ]);
}

/**
 * The staged items at places (after, upTo] into the dataset, in their upload order after place
 * `base`, as added in `version`: one INSERT … SELECT, nothing read into memory. Answers how many.
 */
export async function copyStaged(
  db: Sql,
  projectId: string,
  datasetId: string,
  uploadId: string,
  version: number,
  base: number,
  after: number,
  upTo: number,
): Promise<number> {
  const { changes } = await db.run(
    `INSERT INTO dataset_items (project_id, dataset_id, item_id, seq, inputs, expected, metadata, source_run_id, added_in, removed_in)
     SELECT project_id, dataset_id, item_id, seq + ?, inputs, expected, metadata, NULL, ?, NULL
     FROM dataset_upload_items WHERE project_id = ? AND dataset_id = ? AND upload_id = ? AND seq > ? AND seq <= ?`,
    [base, version, projectId, datasetId, uploadId, after, upTo],
  );
  return changes;
}

/** Ends an upload at `at` (committed or discarded): from then on it is not found; purgeSlice deletes what it staged. */
export async function expireUpload(db: Sql, projectId: string, datasetId: string, uploadId: string, at: string): Promise<void> {
  await db.run('UPDATE dataset_uploads SET expires_at = ? WHERE project_id = ? AND dataset_id = ? AND upload_id = ?', [at, projectId, datasetId, uploadId]);
}

/**
 * Deletes up to `limit` staged items of an upload that has ended (before `now`), and the upload
 * once none is left; true while some are left.
 */
export async function purgeSlice(db: Sql, projectId: string, datasetId: string, uploadId: string, now: string, limit: number): Promise<boolean> {
  const key = [projectId, datasetId, uploadId];
  if (
    (await db.value('SELECT 1 FROM dataset_uploads WHERE project_id = ? AND dataset_id = ? AND upload_id = ? AND expires_at <= ?', [...key, now])) === undefined
  ) {
    return false;
  }
  const first = await db.value<number>('SELECT min(seq) FROM dataset_upload_items WHERE project_id = ? AND dataset_id = ? AND upload_id = ?', key);
  if (first !== undefined && first !== null) {
    await db.run('DELETE FROM dataset_upload_items WHERE project_id = ? AND dataset_id = ? AND upload_id = ? AND seq < ?', [...key, Number(first) + limit]);
    return true;
  }
  await db.run('DELETE FROM dataset_uploads WHERE project_id = ? AND dataset_id = ? AND upload_id = ?', key);
  return false;
}

/** Every project's uploads ended before `now` (expired, committed or discarded), whose rows are left to delete. Housekeeping. */
export async function endedUploads(db: Sql, now: string): Promise<Array<{ project_id: string; dataset_id: string; upload_id: string }>> {
  // Mostly none: the index on expires_at answers that without touching the staged rows.
  return db.all('SELECT project_id, dataset_id, upload_id FROM dataset_uploads WHERE expires_at <= ? ORDER BY expires_at LIMIT 100', [now]);
}
