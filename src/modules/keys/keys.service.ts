import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { isUniqueViolation } from '../../db/storageErrors.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuthContext } from './access.js';
import { invalid, notFound } from '../../lib/errors.js';
import { generateKey, hashesEqual, hashKey, keyPrefix } from './keyMaterial.js';
import { findKey, findKeyByHash, insertKey, listKeys, revokeKey, revokeOtherBootstrapKeys, updateKey, type KeyRow } from './keys.repo.js';
import type { CreatedKey, KeyInput, KeyPatch, PublicKey } from './keys.schemas.js';
import { noTelemetry, type Telemetry } from '../../lib/telemetry.js';
import { SYSTEM_ACTOR, type Actor, type ChangeLog } from '../changes/changeLog.js';

function toPublic(row: KeyRow): PublicKey {
  return {
    key_id: row.id,
    name: row.name,
    role: row.role,
    key_prefix: row.key_prefix,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    rate_limit_per_minute: row.rate_limit_per_minute,
  };
}

interface CachedKey {
  auth: AuthContext;
  expiresAt: number;
}

/**
 * `trusted`: whether the key cache may be used at all. On PostgreSQL it says no while this replica
 * cannot be sure it has heard other replicas' changes (a revocation among them): every key is then
 * looked up in the database, and nothing is cached until trust returns.
 */
/**
 * What the bootstrap needs of projects, inside its own write: whether the database is new, and the
 * `default` project (created when `create(isNewDatabase)` says so).
 */
type DefaultProject = (
  db: Sql,
  at: string,
  create: (isNewDatabase: boolean) => boolean,
) => Promise<{ isNewDatabase: boolean; project: { id: string } | undefined }>;

export function createKeyService(
  store: Store,
  changeLog: ChangeLog,
  defaultProject: DefaultProject,
  telemetry: Telemetry = noTelemetry,
  trusted: () => boolean = () => true,
) {
  // Valid keys only, by the key itself (held in memory only while the process runs, like any request
  // carrying it), so a warm request costs no hashing. Unknown keys are hashed and looked up every
  // time, so a flood of random keys cannot grow memory.
  const cache = new Map<string, CachedKey>();
  // Bumped whenever entries are dropped: a lookup that began before must not store what it read
  // (the key may have been revoked between its read and now).
  let generation = 0;
  const drop = () => {
    generation++;
    cache.clear();
  };
  /** Drops one key's entry (found by id: the cache is by the key itself), leaving every other key warm. */
  const forget = (keyId: string) => {
    generation++;
    for (const [apiKey, entry] of cache) if (entry.auth.keyId === keyId) cache.delete(apiKey);
  };

  async function insert(db: Sql, projectId: string, input: KeyInput, key: string): Promise<KeyRow> {
    const row: KeyRow = {
      id: newId('key'),
      project_id: projectId,
      name: input.name,
      role: input.role,
      key_hash: hashKey(key),
      key_prefix: keyPrefix(key),
      created_at: isoNow(store.clock),
      expires_at: input.expires_at ?? null,
      revoked_at: null,
      rate_limit_per_minute: input.rate_limit_per_minute ?? null,
    };
    await insertKey(db, projectId, row);
    return row;
  }

  /** Start-up bootstrap, one attempt (see bootstrap). */
  function bootstrapOnce(configuredKey: string | null): Promise<{ printedKey: string | null }> {
    return store.writer.write(async (db) => {
      const now = isoNow(store.clock);
      const { isNewDatabase, project } = await defaultProject(db, now, (isNew) => configuredKey !== null || isNew);
      if (configuredKey !== null) {
        const hash = hashKey(configuredKey);
        // Audited like any revocation, so other replicas hear of it (the change log's NOTIFY) and stop
        // accepting the old key at once rather than whenever their cache happens to be dropped.
        for (const revokedId of await revokeOtherBootstrapKeys(db, project!.id, hash, now)) {
          const after = toPublic((await findKey(db, project!.id, revokedId))!);
          await changeLog.record(db, project!.id, SYSTEM_ACTOR, {
            action: 'key.revoked',
            targetType: 'key',
            targetId: revokedId,
            before: { ...after, revoked_at: null },
            after,
          });
        }
        const existing = await findKeyByHash(db, hash);
        if (existing === undefined) await insert(db, project!.id, { name: 'bootstrap', role: 'admin' }, configuredKey);
        return { printedKey: null };
      }
      if (!isNewDatabase) return { printedKey: null };
      const key = generateKey('admin');
      await insert(db, project!.id, { name: 'initial-admin', role: 'admin' }, key);
      return { printedKey: key };
    });
  }

  return {
    /** Hot path: a memory lookup once warm. Revocation clears the cache, so it bites on the next request. */
    async authenticate(apiKey: string): Promise<AuthContext | null> {
      const useCache = trusted();
      let entry = useCache ? cache.get(apiKey) : undefined;
      if (entry === undefined) {
        const startedAt = generation;
        const hash = hashKey(apiKey);
        const row = await findKeyByHash(store.sql, hash);
        if (row === undefined || row.revoked_at !== null || !hashesEqual(row.key_hash, hash)) return null;
        entry = {
          auth: Object.freeze({ keyId: row.id, keyName: row.name, projectId: row.project_id, role: row.role, rateLimitPerMinute: row.rate_limit_per_minute }),
          expiresAt: row.expires_at === null ? Infinity : Date.parse(row.expires_at),
        };
        if (useCache && generation === startedAt) cache.set(apiKey, entry);
      }
      if (entry.expiresAt !== Infinity && store.clock.now().getTime() >= entry.expiresAt) return null;
      return entry.auth;
    },

    /**
     * Memory only: a key already proven valid, or null. Every request asks this first (a miss then
     * goes to authenticate), so this is where the key cache's hits and misses are counted.
     */
    authenticateCached(apiKey: string): AuthContext | null {
      const entry = trusted() ? cache.get(apiKey) : undefined;
      telemetry.cache('keys', entry !== undefined);
      if (entry === undefined || (entry.expiresAt !== Infinity && store.clock.now().getTime() >= entry.expiresAt)) return null;
      return entry.auth;
    },

    /** Every key dropped: another process changed something, and nothing says what. */
    invalidate(): void {
      drop();
    },

    /** One key dropped (renamed, limit changed, revoked): the others stay warm. */
    forget(keyId: string): void {
      forget(keyId);
    },

    /** `expires_at` is any ISO-8601 date-time in the future; it is stored normalised to UTC. */
    async create(projectId: string, input: KeyInput, actor: Actor = SYSTEM_ACTOR): Promise<CreatedKey> {
      let expiresAt: string | null = null;
      if (input.expires_at != null) {
        const ms = Date.parse(input.expires_at);
        if (Number.isNaN(ms)) throw invalid('body', ['expires_at'], 'expires_at must be an ISO-8601 date-time');
        if (ms <= store.clock.now().getTime()) throw invalid('body', ['expires_at'], 'expires_at must be in the future');
        expiresAt = new Date(ms).toISOString();
      }
      const key = generateKey(input.role);
      const row = await store.writer.write(async (db) => {
        const created = await insert(db, projectId, { ...input, expires_at: expiresAt }, key);
        // The public view only: the key itself is shown once, to its creator, and logged nowhere.
        await changeLog.record(db, projectId, actor, { action: 'key.created', targetType: 'key', targetId: created.id, after: toPublic(created) });
        return created;
      });
      return { ...toPublic(row), key };
    },

    async update(projectId: string, keyId: string, changes: KeyPatch, actor: Actor = SYSTEM_ACTOR): Promise<PublicKey> {
      const row = await store.writer.write(async (db) => {
        const found = await findKey(db, projectId, keyId);
        if (found === undefined) throw notFound(`API key '${keyId}' not found`);
        const updated = {
          ...found,
          name: changes.name ?? found.name,
          rate_limit_per_minute: changes.rate_limit_per_minute !== undefined ? changes.rate_limit_per_minute : found.rate_limit_per_minute,
        };
        await updateKey(db, projectId, keyId, updated);
        await changeLog.record(db, projectId, actor, {
          action: 'key.updated',
          targetType: 'key',
          targetId: keyId,
          before: toPublic(found),
          after: toPublic(updated),
        });
        return updated;
      });
      forget(keyId);
      return toPublic(row);
    },

    async list(projectId: string): Promise<PublicKey[]> {
      return (await listKeys(store.sql, projectId)).map(toPublic);
    },

    async revoke(projectId: string, keyId: string, actor: Actor = SYSTEM_ACTOR): Promise<void> {
      await store.writer.write(async (db) => {
        const found = await findKey(db, projectId, keyId);
        if (found === undefined) throw notFound(`API key '${keyId}' not found`);
        await revokeKey(db, projectId, keyId, isoNow(store.clock));
        const after = (await findKey(db, projectId, keyId))!;
        await changeLog.record(db, projectId, actor, {
          action: 'key.revoked',
          targetType: 'key',
          targetId: keyId,
          before: toPublic(found),
          after: toPublic(after),
        });
      });
      forget(keyId);
    },

    /**
     * Start-up bootstrap: the configured key becomes an admin key of project
     * `default`; without one, a brand-new database gets a generated admin key, returned once.
     */
    async bootstrap(configuredKey: string | null): Promise<{ printedKey: string | null }> {
      try {
        return await bootstrapOnce(configuredKey);
      } catch (error) {
        // Replicas starting together on one database race to create the project and the key: the
        // loser's transaction rolls back, and its second look finds what the winner made.
        if (!isUniqueViolation(error)) throw error;
        return bootstrapOnce(configuredKey);
      }
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
