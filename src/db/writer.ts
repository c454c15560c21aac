import type { Db } from './open.js';
import { prepared } from './prepared.js';
import { type Sql, sqliteSql } from './sql.js';
import { isStorageFailure } from './storageErrors.js';
import { noTelemetry, type Telemetry } from '../lib/telemetry.js';

/** A change: runs inside a transaction on `tx`, and may read it (it sees its batch's earlier ops). */
type WriteOp<T> = (tx: Sql) => Promise<T> | T;

interface Pending {
  op: WriteOp<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitWriter {
  /** Runs `op` inside the next group transaction; resolves only once that transaction committed. */
  write<T>(op: WriteOp<T>): Promise<T>;
  /** Commits whatever is queued now (used at shutdown). */
  flush(): Promise<void>;
  readonly batches: number;
  /** The storage error of the last batch (a full disk), or null once a batch commits cleanly again. */
  readonly storageFailure: Error | null;
}

/**
 * The writer's connection: the transaction's statements (`sql`) and its control. The writer is the
 * only code that begins, savepoints and commits, so a dialect brings just these.
 */
export interface TransactionalConnection {
  readonly sql: Sql;
  begin(): Promise<void>;
  commit(): Promise<void>;
  /** Rolls the whole transaction back, if one is open. */
  rollback(): Promise<void>;
  savepoint(): Promise<void>;
  release(): Promise<void>;
  rollbackToSavepoint(): Promise<void>;
  /** False once the storage itself aborted the transaction (SQLite does on a full disk). */
  readonly inTransaction: boolean;
  isStorageFailure(error: unknown): boolean;
}

/** SQLite's transaction control on one better-sqlite3 connection (the writer's). */
export function sqliteConnection(db: Db): TransactionalConnection {
  const exec = (statement: string) => async () => {
    prepared(db, statement).run();
  };
  return {
    sql: sqliteSql(db),
    begin: exec('BEGIN'),
    commit: exec('COMMIT'),
    async rollback() {
      if (db.inTransaction) prepared(db, 'ROLLBACK').run();
    },
    savepoint: exec('SAVEPOINT op'),
    release: exec('RELEASE op'),
    async rollbackToSavepoint() {
      prepared(db, 'ROLLBACK TO op').run();
      prepared(db, 'RELEASE op').run();
    },
    get inTransaction() {
      return db.inTransaction;
    },
    isStorageFailure,
  };
}

type Outcome = { ok: boolean; value: unknown };

/**
 * Group commit: every write arriving in the same turn of the event loop joins one
 * transaction, so one commit (one fsync) acknowledges hundreds of requests. An op that throws rolls
 * back alone and rejects its own caller; the others still commit (the batch runs again with each op
 * in its own savepoint after a failure: see runBatch) — unless the storage itself failed, which
 * fails the whole batch. Ops run one after the other; writes that arrive while
 * a batch runs form the next one.
 */
export function createGroupCommitWriter(connection: TransactionalConnection, options: { maxBatch?: number; telemetry?: Telemetry } = {}): GroupCommitWriter {
  const maxBatch = options.maxBatch ?? 1000;
  const telemetry = options.telemetry ?? noTelemetry;
  let queue: Pending[] = [];
  let flushing: Promise<void> | null = null;
  let batches = 0;
  let storageFailure: Error | null = null;

  async function runOp(item: Pending): Promise<Outcome> {
    await connection.savepoint();
    try {
      const value = await item.op(connection.sql);
      await connection.release();
      return { ok: true, value };
    } catch (error) {
      // A full disk (or failing I/O) makes SQLite roll back the whole transaction, not just this
      // op's savepoint: nothing of the batch will commit, so every caller gets this error.
      if (connection.isStorageFailure(error) || !connection.inTransaction) throw error;
      await connection.rollbackToSavepoint();
      return { ok: false, value: error };
    }
  }

  /** Every op in its own savepoint: one that fails rolls back alone. */
  async function runIsolated(batch: Pending[]): Promise<Outcome[]> {
    await connection.begin();
    try {
      const outcomes: Outcome[] = [];
      for (const item of batch) outcomes.push(await runOp(item));
      await connection.commit();
      return outcomes;
    } catch (error) {
      await connection.rollback().catch(() => undefined);
      throw error;
    }
  }

  /**
   * A batch first runs without savepoints: almost every batch succeeds whole, and a savepoint and its
   * release per op were a tenth of /track_outcome's CPU on SQLite (two round trips on PostgreSQL).
   * If an op fails, the transaction rolls back (nothing was committed, so running the ops again is
   * safe) and the batch runs again isolated, where the failing op fails alone; an op alone in its
   * batch just fails.
   */
  async function runBatch(batch: Pending[]): Promise<Outcome[]> {
    await connection.begin();
    const outcomes: Outcome[] = [];
    try {
      for (const item of batch) {
        try {
          outcomes.push({ ok: true, value: await item.op(connection.sql) });
        } catch (error) {
          if (connection.isStorageFailure(error)) throw error;
          await connection.rollback();
          return batch.length === 1 ? [{ ok: false, value: error }] : runIsolated(batch);
        }
      }
      await connection.commit();
      return outcomes;
    } catch (error) {
      await connection.rollback().catch(() => undefined);
      throw error;
    }
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
      if (batch === queue) queue = [];
      const started = performance.now();
      let outcomes: Outcome[];
      try {
        outcomes = await runBatch(batch);
        batches += 1;
        telemetry.commit(batch.length, (performance.now() - started) / 1000);
      } catch (commitError) {
        if (connection.isStorageFailure(commitError)) storageFailure = commitError as Error;
        for (const item of batch) item.reject(commitError);
        continue;
      }
      storageFailure = null;
      batch.forEach((item, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) item.resolve(outcome.value);
        else item.reject(outcome.value);
      });
    }
  }

  function flush(): Promise<void> {
    flushing ??= drain().finally(() => {
      flushing = null;
      // A write that arrived after the last batch ended but before this ran found `flushing` set.
      if (queue.length > 0) setImmediate(flush);
    });
    return flushing;
  }

  return {
    write<T>(op: WriteOp<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ op, resolve: resolve as (v: unknown) => void, reject });
        // The first write of a turn schedules the batch; the rest of the turn joins it.
        if (queue.length === 1 && flushing === null) setImmediate(flush);
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
