import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/open.js';

export interface IdempotencyRow {
  endpoint: string;
  key: string;
  request_hash: string;
  status_code: number;
  response: string;
  created_at: string;
}

export function findIdempotencyRecord(db: Db, projectId: string, endpoint: string, key: string): IdempotencyRow | undefined {
  return prepared(
    db,
    `SELECT endpoint, key, request_hash, status_code, response, created_at FROM idempotency_keys
    WHERE project_id = ? AND endpoint = ? AND key = ?`,
  ).get(projectId, endpoint, key) as IdempotencyRow | undefined;
}

export function insertIdempotencyRecord(db: Db, projectId: string, row: IdempotencyRow): void {
  prepared(
    db,
    `INSERT INTO idempotency_keys (project_id, endpoint, key, request_hash, status_code, response, created_at)
    VALUES (@project_id, @endpoint, @key, @request_hash, @status_code, @response, @created_at)`,
  ).run({ ...row, project_id: projectId });
}

/** Deletes up to `limit` stored answers of the project recorded before `before`; answers how many. */
export function deleteIdempotencyRecordsBefore(db: Db, projectId: string, before: string, limit: number): number {
  return prepared(
    db,
    `DELETE FROM idempotency_keys WHERE rowid IN (
      SELECT rowid FROM idempotency_keys INDEXED BY idempotency_created WHERE project_id = ? AND created_at < ? LIMIT ?)`,
  ).run(projectId, before, limit).changes;
}
