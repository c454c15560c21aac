import { pendingMigrations, type Migration } from '../../db/migrate.js';
import { prepared } from '../../db/prepared.js';
import { isStorageFull } from '../../db/storageErrors.js';
import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';

export type Readiness = { ready: true } | { ready: false; reason: string };

/** While writes fail, a probe write is tried at most this often, so /readyz polling stays cheap. */
const PROBE_INTERVAL_MS = 1000;

/**
 * Ready means the database answers, every migration is applied, and commits succeed. Once a commit
 * has failed for lack of space, readiness stays off until a probe write (one row, rewritten)
 * commits again: a load balancer then sends no traffic, so real writes cannot be the signal.
 */
export function createReadinessCheck(store: Store, migrations: readonly Migration[]) {
  let lastProbe = -Infinity;
  return async (): Promise<Readiness> => {
    prepared(store.db, 'SELECT 1').get();
    const pending = pendingMigrations(store.db, [...migrations]);
    if (pending > 0) return { ready: false, reason: `${pending} migrations pending` };
    if (store.writer.storageFailure !== null && performance.now() - lastProbe >= PROBE_INTERVAL_MS) {
      lastProbe = performance.now();
      await store.writer
        .write((db) => prepared(db, 'INSERT INTO storage_probe (id, checked_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at').run(isoNow(store.clock)))
        .catch(() => undefined);
    }
    const failure = store.writer.storageFailure;
    if (failure !== null) return { ready: false, reason: isStorageFull(failure) ? 'storage full: writes are failing' : 'storage failing: writes are failing' };
    return { ready: true };
  };
}
