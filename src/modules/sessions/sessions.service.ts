import { createHash, randomBytes } from 'node:crypto';
import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuthContext, SessionAuthenticator, SessionContext } from '../keys/access.js';
import { deleteExpiredSessions, endSession, findSessionByHash, insertSession } from './sessions.repo.js';
import type { WhoAmI } from './sessions.schemas.js';

/**
 * How long a console session lasts from sign-in: a working day, so a browser left signed in
 * overnight asks for the key again. Never longer than the key's own expiry.
 */
export const SESSION_LIFETIME_HOURS = 12;
/** Expired sessions are kept this long (nothing reads them), then deleted at a later sign-in of the project. */
const EXPIRED_KEPT_MS = 7 * 24 * 3600_000;

/** What sessions need of a key, read through the port the composition root wires (keys.repo's findKey). */
export interface SessionKey {
  name: string;
  role: AuthContext['role'];
  key_prefix: string;
  expires_at: string | null;
  revoked_at: string | null;
  rate_limit_per_minute: number | null;
}
export type FindSessionKey = (db: Sql, projectId: string, keyId: string) => Promise<SessionKey | undefined>;

/** 256 random bits, prefixed like a Promptline secret so log redaction and secret scanners know it for one. */
function newToken(): string {
  return `pl_s_${randomBytes(32).toString('base64url')}`;
}

/** Tokens carry 256 random bits: a fast unsalted hash makes a stolen table useless, as for keys. */
function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Console sessions (docs/console.md, "Signing in"): a read or admin key exchanged once for a random
 * token the browser keeps in an HttpOnly cookie. Only the token's hash is stored. A session holds
 * no authority of its own: every request it authenticates reads its key again, so revoking or
 * expiring the key ends the session on the next request.
 */
export function createSessionService(store: Store, findKey: FindSessionKey) {
  const alive = (key: SessionKey | undefined, at: number): key is SessionKey =>
    key !== undefined && key.revoked_at === null && (key.expires_at === null || Date.parse(key.expires_at) > at);

  const service = {
    /** Signs `auth`'s key in: the token (for the cookie, never stored) and the session as GET /session shows it. */
    async create(auth: AuthContext): Promise<{ token: string; whoAmI: WhoAmI; maxAgeSeconds: number }> {
      const token = newToken();
      const result = await store.writer.write(async (db) => {
        const now = store.clock.now().getTime();
        const key = await findKey(db, auth.projectId, auth.keyId);
        if (!alive(key, now) || key.role === 'runtime') throw new Error('the key that authenticated this request is gone');
        const lifetimeEnd = now + SESSION_LIFETIME_HOURS * 3600_000;
        const expiresAt = key.expires_at === null ? lifetimeEnd : Math.min(lifetimeEnd, Date.parse(key.expires_at));
        await deleteExpiredSessions(db, auth.projectId, new Date(now - EXPIRED_KEPT_MS).toISOString());
        await insertSession(db, {
          id: newId('ses'),
          project_id: auth.projectId,
          key_id: auth.keyId,
          role: key.role,
          token_hash: hashToken(token),
          created_at: isoNow(store.clock),
          expires_at: new Date(expiresAt).toISOString(),
          ended_at: null,
        });
        return { key, expiresAt, now };
      });
      return {
        token,
        maxAgeSeconds: (result.expiresAt - result.now) / 1000,
        whoAmI: {
          project_id: auth.projectId,
          key_id: auth.keyId,
          key_name: result.key.name,
          key_prefix: result.key.key_prefix,
          role: result.key.role,
          authenticated_by: 'session',
          expires_at: new Date(result.expiresAt).toISOString(),
        },
      };
    },

    /** The session a token opens, with its key's authority as of now; null when ended, expired, or its key is revoked or expired. */
    async authenticate(token: string): Promise<{ auth: AuthContext; session: SessionContext } | null> {
      const row = await findSessionByHash(store.sql, hashToken(token));
      const now = store.clock.now().getTime();
      if (row === undefined || row.ended_at !== null || Date.parse(row.expires_at) <= now) return null;
      const key = await findKey(store.sql, row.project_id, row.key_id);
      if (!alive(key, now)) return null;
      return {
        auth: Object.freeze({ keyId: row.key_id, keyName: key.name, projectId: row.project_id, role: row.role, rateLimitPerMinute: key.rate_limit_per_minute }),
        session: { sessionId: row.id, expiresAt: row.expires_at },
      };
    },

    /** Who a request is signed in as: by its session, or by the key it sent. */
    async whoAmI(auth: AuthContext, session: SessionContext | null): Promise<WhoAmI> {
      const key = await findKey(store.sql, auth.projectId, auth.keyId);
      return {
        project_id: auth.projectId,
        key_id: auth.keyId,
        key_name: auth.keyName,
        key_prefix: key?.key_prefix ?? '',
        role: auth.role,
        authenticated_by: session === null ? 'api_key' : 'session',
        expires_at: session === null ? (key?.expires_at ?? null) : session.expiresAt,
      };
    },

    /** Sign-out: the session stops working on every replica from the next request (sessions are never cached). */
    async end(projectId: string, session: SessionContext): Promise<void> {
      await store.writer.write((db) => endSession(db, projectId, session.sessionId, isoNow(store.clock)));
    },
  };
  return service satisfies SessionAuthenticator;
}

export type SessionService = ReturnType<typeof createSessionService>;
