import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuthContext, Role } from '../../http/route.js';
import { notFound } from '../../http/httpError.js';
import { findProjectByName, insertProject, countProjects } from '../projects/projects.repo.js';
import { generateKey, hashesEqual, hashKey, keyPrefix } from './keyMaterial.js';
import { findKeyByHash, insertKey, keyExists, listKeys, revokeKey, revokeOtherBootstrapKeys, type KeyRow } from './keys.repo.js';

export interface PublicKey {
  key_id: string;
  name: string;
  role: Role;
  key_prefix: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface CreatedKey extends PublicKey {
  key: string;
}

function toPublic(row: KeyRow): PublicKey {
  return {
    key_id: row.id,
    name: row.name,
    role: row.role,
    key_prefix: row.key_prefix,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
  };
}

interface CachedKey {
  auth: AuthContext;
  expiresAt: number;
}

export function createKeyService(store: Store) {
  // Valid keys only, by the key itself (held in memory only while the process runs, like any request
  // carrying it), so a warm request costs no hashing. Unknown keys are hashed and looked up every
  // time, so a flood of random keys cannot grow memory.
  const cache = new Map<string, CachedKey>();

  function insert(db: Store['db'], projectId: string, name: string, role: Role, key: string, expiresAt: string | null): KeyRow {
    const row: KeyRow = {
      id: newId('key'),
      project_id: projectId,
      name,
      role,
      key_hash: hashKey(key),
      key_prefix: keyPrefix(key),
      created_at: isoNow(store.clock),
      expires_at: expiresAt,
      revoked_at: null,
    };
    insertKey(db, projectId, row);
    return row;
  }

  return {
    /** Hot path: a memory lookup once warm. Revocation clears the cache, so it bites on the next request. */
    authenticate(apiKey: string): AuthContext | null {
      let entry = cache.get(apiKey);
      if (entry === undefined) {
        const hash = hashKey(apiKey);
        const row = findKeyByHash(store.db, hash);
        if (row === undefined || row.revoked_at !== null || !hashesEqual(row.key_hash, hash)) return null;
        entry = {
          auth: Object.freeze({ keyId: row.id, projectId: row.project_id, role: row.role }),
          expiresAt: row.expires_at === null ? Infinity : Date.parse(row.expires_at),
        };
        cache.set(apiKey, entry);
      }
      if (entry.expiresAt !== Infinity && store.clock.now().getTime() >= entry.expiresAt) return null;
      return entry.auth;
    },

    invalidate(): void {
      cache.clear();
    },

    async create(projectId: string, input: { name: string; role: Role; expires_at?: string | null }): Promise<CreatedKey> {
      const key = generateKey(input.role);
      const row = await store.writer.write((db) => insert(db, projectId, input.name, input.role, key, input.expires_at ?? null));
      return { ...toPublic(row), key };
    },

    list(projectId: string): PublicKey[] {
      return listKeys(store.db, projectId).map(toPublic);
    },

    async revoke(projectId: string, keyId: string): Promise<void> {
      await store.writer.write((db) => {
        if (!keyExists(db, projectId, keyId)) throw notFound(`API key '${keyId}' not found`);
        revokeKey(db, projectId, keyId, isoNow(store.clock));
      });
      cache.clear();
    },

    /**
     * Start-up bootstrap (management.md): the configured key becomes an admin key of project
     * `default`; without one, a brand-new database gets a generated admin key, returned once.
     */
    async bootstrap(configuredKey: string | null): Promise<{ printedKey: string | null }> {
      return store.writer.write((db) => {
        const now = isoNow(store.clock);
        const isNewDatabase = countProjects(db) === 0;
        let project = findProjectByName(db, 'default');
        if (project === undefined && (configuredKey !== null || isNewDatabase)) {
          project = { id: newId('prj'), name: 'default', created_at: now };
          insertProject(db, project);
        }
        if (configuredKey !== null) {
          const hash = hashKey(configuredKey);
          revokeOtherBootstrapKeys(db, project!.id, hash, now);
          const existing = findKeyByHash(db, hash);
          if (existing === undefined) insert(db, project!.id, 'bootstrap', 'admin', configuredKey, null);
          return { printedKey: null };
        }
        if (!isNewDatabase) return { printedKey: null };
        const key = generateKey('admin');
        insert(db, project!.id, 'initial-admin', 'admin', key, null);
        return { printedKey: key };
      });
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
