import type { Freshness } from '../../db/changeFeed.js';
import { pendingMigrations, type Migration } from '../../db/migrate.js';
import { isStorageFull } from '../../db/storageErrors.js';
import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';

export type Readiness = { ready: true } | { ready: false; reason: string };

/** While writes fail, a probe write is tried at most this often, so /readyz polling stays cheap. */
const PROBE_INTERVAL_MS = 1000;
/** Room the probe needs: a tiny row could fit in a page the database already has. */
const PROBE_BYTES = 1_048_576;

/**
 * Ready means the replica knows it has heard other replicas' changes within the staleness bound
 * (PostgreSQL: `freshness`, the change feed's), the database answers, every migration is applied,
 * and commits succeed. Once a commit has failed for lack of space, readiness stays off until a
 * probe write of 1 MiB commits again (a load balancer sends a replica that is not ready no traffic,
 * so real writes cannot be the signal). A database that does not answer fails the check within
 * its statement deadline (src/db/postgres.ts), so /readyz never hangs on it.
 */
export function createReadinessCheck(store: Store, migrations: readonly Migration[], freshness: () => Freshness = () => ({ fresh: true })) {
  let lastProbe = -Infinity;
  return async (): Promise<Readiness> => {
    const feed = freshness();
    if (!feed.fresh) return { ready: false, reason: feed.reason };
    await store.sql.get('SELECT 1');
    const pending = await pendingMigrations(store.sql, migrations);
    if (pending > 0) return { ready: false, reason: `${pending} migrations pending` };
    if (store.writer.storageFailure !== null && performance.now() - lastProbe >= PROBE_INTERVAL_MS) {
      lastProbe = performance.now();
      await store.writer
        .write(async (db) => {
          await db.run(
            `INSERT INTO storage_probe (id, checked_at, room) VALUES (1, ?, ${db.dialect.zeroBlob(PROBE_BYTES)})
            ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at, room = excluded.room`,
            [isoNow(store.clock)],
          );
          await db.run('UPDATE storage_probe SET room = NULL WHERE id = 1');
        })
        .catch(() => undefined);
    }
    const failure = store.writer.storageFailure;
    if (failure !== null) return { ready: false, reason: isStorageFull(failure) ? 'storage full: writes are failing' : 'storage failing: writes are failing' };
    return { ready: true };
  };
}
