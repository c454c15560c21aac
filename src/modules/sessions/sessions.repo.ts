import type { Sql } from '../../db/sql.js';

export interface SessionRow {
  id: string;
  project_id: string;
  key_id: string;
  role: 'read' | 'admin';
  token_hash: string;
  created_at: string;
  expires_at: string;
  ended_at: string | null;
}

const COLUMNS = 'id, project_id, key_id, role, token_hash, created_at, expires_at, ended_at';

/** The one lookup not scoped by project: it is how a console request finds its project, as a key's hash does. */
export async function findSessionByHash(db: Sql, tokenHash: string): Promise<SessionRow | undefined> {
  return db.get<SessionRow>(`SELECT ${COLUMNS} FROM console_sessions WHERE token_hash = ?`, [tokenHash]);
}

export async function insertSession(db: Sql, row: SessionRow): Promise<void> {
  await db.run(`INSERT INTO console_sessions (${COLUMNS}) VALUES (@id, @project_id, @key_id, @role, @token_hash, @created_at, @expires_at, @ended_at)`, {
    ...row,
  });
}

export async function endSession(db: Sql, projectId: string, sessionId: string, at: string): Promise<boolean> {
  return (
    (await db.run('UPDATE console_sessions SET ended_at = ? WHERE project_id = ? AND id = ? AND ended_at IS NULL', [at, projectId, sessionId])).changes > 0
  );
}

/** Sessions that expired before `before` are of no use to anyone: forgotten, so the table stays the size of recent sign-ins. */
export async function deleteExpiredSessions(db: Sql, projectId: string, before: string): Promise<void> {
  await db.run('DELETE FROM console_sessions WHERE project_id = ? AND expires_at < ?', [projectId, before]);
}
