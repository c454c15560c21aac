import type { Db } from './open.js';
import { isStorageFailure } from './storageErrors.js';
import { noTelemetry, type Telemetry } from '../lib/telemetry.js';

export type WriteOp<T> = (db: Db) => T;

interface Pending {
  op: WriteOp<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitWriter {
  /** Runs `op` inside the next group transaction; resolves only once that transaction committed. */
  write<T>(op: WriteOp<T>): Promise<T>;
  /** Commits whatever is queued now (used at shutdown). */
  flush(): void;
  readonly batches: number;
  /** The storage error of the last batch (a full disk), or null once a batch commits cleanly again. */
  readonly storageFailure: Error | null;
}

/**
 * Group commit (design.md §2): every write arriving in the same turn of the event loop joins one
 * transaction, so one fsync acknowledges hundreds of requests. Each op runs in its own savepoint:
 * an op that throws rolls back alone and rejects its own caller; the others still commit — unless
 * the storage itself failed, which fails the whole batch.
 */
export function createGroupCommitWriter(db: Db, options: { maxBatch?: number; telemetry?: Telemetry } = {}): GroupCommitWriter {
  const maxBatch = options.maxBatch ?? 1000;
  const telemetry = options.telemetry ?? noTelemetry;
  let queue: Pending[] = [];
  let scheduled = false;
  let batches = 0;
  let storageFailure: Error | null = null;

  const runBatch = db.transaction((batch: Pending[], results: Array<{ ok: boolean; value: unknown }>) => {
    for (const item of batch) {
      try {
        results.push({ ok: true, value: db.transaction(item.op)(db) });
      } catch (error) {
        // A full disk (or failing I/O) makes SQLite roll back the whole transaction, not just this
        // op's savepoint: nothing of the batch will commit, so every caller gets this error.
        if (isStorageFailure(error) || !db.inTransaction) throw error;
        results.push({ ok: false, value: error });
      }
    }
  });

  function flush(): void {
    scheduled = false;
    while (queue.length > 0) {
      const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
      if (batch === queue) queue = [];
      const results: Array<{ ok: boolean; value: unknown }> = [];
      const started = performance.now();
      try {
        runBatch(batch, results);
        batches += 1;
        telemetry.commit(batch.length, (performance.now() - started) / 1000);
      } catch (commitError) {
        if (isStorageFailure(commitError)) storageFailure = commitError as Error;
        for (const item of batch) item.reject(commitError);
        continue;
      }
      storageFailure = null;
      batch.forEach((item, i) => {
        const result = results[i]!;
        if (result.ok) item.resolve(result.value);
        else item.reject(result.value);
      });
    }
  }

  return {
    write<T>(op: WriteOp<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ op, resolve: resolve as (v: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    flush,
    get batches() {
      return batches;
    },
    get storageFailure() {
      return storageFailure;
    },
  };
}
