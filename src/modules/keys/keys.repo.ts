import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/open.js';
import type { Role } from './access.js';

export interface KeyRow {
  id: string;
  project_id: string;
  name: string;
  role: Role;
  key_hash: string;
  key_prefix: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  rate_limit_per_minute: number | null;
}

const COLUMNS = 'id, project_id, name, role, key_hash, key_prefix, created_at, expires_at, revoked_at, rate_limit_per_minute';

/** The one lookup not scoped by project: it is how a request finds its project. */
export function findKeyByHash(db: Db, keyHash: string): KeyRow | undefined {
  return prepared(db, `SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ?`).get(keyHash) as KeyRow | undefined;
}

export function insertKey(db: Db, projectId: string, row: Omit<KeyRow, 'project_id'>): void {
  prepared(
    db,
    `INSERT INTO api_keys (${COLUMNS}) VALUES (@id, @project_id, @name, @role, @key_hash, @key_prefix, @created_at, @expires_at, @revoked_at, @rate_limit_per_minute)`,
  ).run({ ...row, project_id: projectId });
}

export function listKeys(db: Db, projectId: string): KeyRow[] {
  return prepared(db, `SELECT ${COLUMNS} FROM api_keys WHERE project_id = ? ORDER BY created_at DESC, id DESC`).all(projectId) as KeyRow[];
}

export function revokeKey(db: Db, projectId: string, keyId: string, at: string): boolean {
  return prepared(db, 'UPDATE api_keys SET revoked_at = ? WHERE project_id = ? AND id = ? AND revoked_at IS NULL').run(at, projectId, keyId).changes > 0;
}

export function findKey(db: Db, projectId: string, keyId: string): KeyRow | undefined {
  return prepared(db, `SELECT ${COLUMNS} FROM api_keys WHERE project_id = ? AND id = ?`).get(projectId, keyId) as KeyRow | undefined;
}

export function updateKey(db: Db, projectId: string, keyId: string, changes: { name: string; rate_limit_per_minute: number | null }): void {
  prepared(db, 'UPDATE api_keys SET name = ?, rate_limit_per_minute = ? WHERE project_id = ? AND id = ?').run(
    changes.name,
    changes.rate_limit_per_minute,
    projectId,
    keyId,
  );
}

/** Revokes earlier bootstrap keys once the operator configures a different one. */
export function revokeOtherBootstrapKeys(db: Db, projectId: string, keepHash: string, at: string): void {
  prepared(db, "UPDATE api_keys SET revoked_at = ? WHERE project_id = ? AND name = 'bootstrap' AND key_hash <> ? AND revoked_at IS NULL").run(
    at,
    projectId,
    keepHash,
  );
}
