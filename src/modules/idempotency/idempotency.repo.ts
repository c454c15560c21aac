import type { Sql } from '../../db/sql.js';

export interface IdempotencyRow {
  endpoint: string;
  key: string;
  request_hash: string;
  status_code: number;
  response: string;
  created_at: string;
}

export async function findIdempotencyRecord(db: Sql, projectId: string, endpoint: string, key: string): Promise<IdempotencyRow | undefined> {
  return db.get<IdempotencyRow>(
    `SELECT endpoint, key, request_hash, status_code, response, created_at FROM idempotency_keys
    WHERE project_id = ? AND endpoint = ? AND key = ?`,
    [projectId, endpoint, key],
  );
}

export async function insertIdempotencyRecord(db: Sql, projectId: string, row: IdempotencyRow): Promise<void> {
  await db.run(
    `INSERT INTO idempotency_keys (project_id, endpoint, key, request_hash, status_code, response, created_at)
    VALUES (@project_id, @endpoint, @key, @request_hash, @status_code, @response, @created_at)`,
    { ...row, project_id: projectId },
  );
}

/** Deletes up to `limit` stored answers of the project recorded before `before`; answers how many. */
export async function deleteIdempotencyRecordsBefore(db: Sql, projectId: string, before: string, limit: number): Promise<number> {
  return (
    await db.run(
      `DELETE FROM idempotency_keys WHERE ${db.dialect.rowId} IN (
      SELECT ${db.dialect.rowId} FROM idempotency_keys INDEXED BY idempotency_created WHERE project_id = ? AND created_at < ? LIMIT ?)`,
      [projectId, before, limit],
    )
  ).changes;
}
