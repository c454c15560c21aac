import type { Sql } from '../../db/sql.js';
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
export async function findKeyByHash(db: Sql, keyHash: string): Promise<KeyRow | undefined> {
  return db.get<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ?`, [keyHash]);
}

export async function insertKey(db: Sql, projectId: string, row: Omit<KeyRow, 'project_id'>): Promise<void> {
  await db.run(
    `INSERT INTO api_keys (${COLUMNS}) VALUES (@id, @project_id, @name, @role, @key_hash, @key_prefix, @created_at, @expires_at, @revoked_at, @rate_limit_per_minute)`,
    { ...row, project_id: projectId },
  );
}

export async function listKeys(db: Sql, projectId: string): Promise<KeyRow[]> {
  return db.all<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE project_id = ? ORDER BY created_at DESC, id DESC`, [projectId]);
}

export async function revokeKey(db: Sql, projectId: string, keyId: string, at: string): Promise<boolean> {
  return (await db.run('UPDATE api_keys SET revoked_at = ? WHERE project_id = ? AND id = ? AND revoked_at IS NULL', [at, projectId, keyId])).changes > 0;
}

export async function findKey(db: Sql, projectId: string, keyId: string): Promise<KeyRow | undefined> {
  return db.get<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE project_id = ? AND id = ?`, [projectId, keyId]);
}

export async function updateKey(db: Sql, projectId: string, keyId: string, changes: { name: string; rate_limit_per_minute: number | null }): Promise<void> {
  await db.run('UPDATE api_keys SET name = ?, rate_limit_per_minute = ? WHERE project_id = ? AND id = ?', [
    changes.name,
    changes.rate_limit_per_minute,
    projectId,
    keyId,
  ]);
}

/** Revokes earlier bootstrap keys once the operator configures a different one; answers their ids. */
export async function revokeOtherBootstrapKeys(db: Sql, projectId: string, keepHash: string, at: string): Promise<string[]> {
  return db.column<string>(
    "UPDATE api_keys SET revoked_at = ? WHERE project_id = ? AND name = 'bootstrap' AND key_hash <> ? AND revoked_at IS NULL RETURNING id",
    [at, projectId, keepHash],
  );
}
