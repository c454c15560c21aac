import type { Db } from './open.js';

/**
 * Notices commits made by another process (the CLI) on the same file, so in-memory caches never
 * outlive a change. SQLite's `data_version` moves only on other connections' commits. Reading it
 * costs a statement, so it is read at most once per `minIntervalMs`: another process's change is
 * seen by the first request at least that long after it.
 */
export function createExternalChangeWatcher(db: Db, onChange: () => void, minIntervalMs = 1): () => void {
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let seen = dataVersion.get();
  let checkedAt = performance.now();
  return () => {
    const now = performance.now();
    if (now - checkedAt < minIntervalMs) return;
    checkedAt = now;
    const current = dataVersion.get();
    if (current !== seen) {
      seen = current;
      onChange();
    }
  };
}
