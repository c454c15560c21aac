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
 * The staged items into the dataset, in their upload order after its last item, as added in
 * `version`: one INSERT … SELECT, nothing read into memory. Answers how many.
 */
export async function commitStaged(db: Sql, projectId: string, datasetId: string, uploadId: string, version: number): Promise<number> {
  const last = (await db.value<number | null>('SELECT max(seq) FROM dataset_items WHERE project_id = ? AND dataset_id = ?', [projectId, datasetId])) ?? 0;
  const { changes } = await db.run(
    `INSERT INTO dataset_items (project_id, dataset_id, item_id, seq, inputs, expected, metadata, source_run_id, added_in, removed_in)
     SELECT project_id, dataset_id, item_id, seq + ?, inputs, expected, metadata, NULL, ?, NULL
     FROM dataset_upload_items WHERE project_id = ? AND dataset_id = ? AND upload_id = ?`,
    [Number(last), version, projectId, datasetId, uploadId],
  );
  return changes;
}

/** Forgets an upload and its staged items (committed or discarded); false when there was none. */
export async function deleteUpload(db: Sql, projectId: string, datasetId: string, uploadId: string): Promise<boolean> {
  await db.run('DELETE FROM dataset_upload_items WHERE project_id = ? AND dataset_id = ? AND upload_id = ?', [projectId, datasetId, uploadId]);
  const { changes } = await db.run('DELETE FROM dataset_uploads WHERE project_id = ? AND dataset_id = ? AND upload_id = ?', [projectId, datasetId, uploadId]);
  return changes > 0;
}

/** Every project's uploads expired before `now`, with their staged items: housekeeping, across projects. */
export async function deleteExpired(db: Sql, now: string): Promise<number> {
  // Mostly none: the index on expires_at answers that without touching the staged rows.
  if ((await db.value<number>('SELECT 1 FROM dataset_uploads WHERE expires_at <= ? LIMIT 1', [now])) === undefined) return 0;
  await db.run(
    `DELETE FROM dataset_upload_items WHERE EXISTS (
       SELECT 1 FROM dataset_uploads u WHERE u.project_id = dataset_upload_items.project_id AND u.dataset_id = dataset_upload_items.dataset_id
         AND u.upload_id = dataset_upload_items.upload_id AND u.expires_at <= ?)`,
    [now],
  );
  return (await db.run('DELETE FROM dataset_uploads WHERE expires_at <= ?', [now])).changes;
}
