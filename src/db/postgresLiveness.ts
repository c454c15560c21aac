import { createHash } from 'node:crypto';
import pg from 'pg';
import { deadCache, isProcessId, newProcessId, type ProcessLiveness } from './liveness.js';
import { connectionConfig } from './postgres.js';
import type { Sql } from './sql.js';

/**
 * The first key of every process lock (PostgreSQL's two-key advisory locks): "plne" in ASCII, so
 * they are told apart from other advisory locks of the database (the migrations' one-key lock).
 */
const PROCESS_LOCK_CLASS = 0x706c6e65;
/** A new identity whose key another live process holds (a 1 in 2^31 clash) is made again. */
const TAKE_ATTEMPTS = 3;
/** Longest wait for the server's goodbye at close; past it the socket is destroyed (the server then drops the lock itself). */
const CLOSE_WAIT_MS = 1_000;

/** The second key of a process's lock: 31 bits of its id's SHA-256 (positive, as pg_locks shows an oid). */
function processLockKey(processId: string): number {
  return createHash('sha256').update(processId).digest().readUInt32BE(0) & 0x7fffffff;
}

function destroy(client: pg.Client): void {
  client.end().catch(() => undefined);
  client.connection.stream.destroy();
}

/**
 * The processes on one PostgreSQL database, on any machine: each holds a session advisory lock,
 * keyed by its identity, on a connection of its own for as long as it runs. PostgreSQL releases
 * it when that session ends: at once when the process dies on a running machine (its kernel closes
 * the socket), and when the server notices otherwise (a machine that vanished: TCP keepalives, or
 * in the worst case never, and the lease runs out instead). Whether a process lives is then one
 * read of pg_locks, from any connection. A lock that is lost while this process runs (the
 * connection broke) makes it take a new identity for its next lease: what it holds under the old
 * one may be taken over meanwhile, which a lease's settling finds and refuses (schedule.repo.ts).
 * The connection must be a real session (not a transaction-pooling proxy), as LISTEN's is.
 */
export function postgresLiveness(url: string, timeoutMs: number | null, sql: Sql): ProcessLiveness {
  const dead = deadCache();
  let own: { id: string; client: pg.Client } | null = null;
  let taking: Promise<string> | null = null;
  let closed = false;

  function drop(client: pg.Client): void {
    if (own?.client === client) own = null;
    destroy(client);
  }

  async function take(): Promise<string> {
    const client = new pg.Client(connectionConfig(url, timeoutMs));
    client.on('error', () => drop(client));
    client.on('end', () => drop(client));
    try {
      await client.connect();
      for (let attempt = 1; attempt <= TAKE_ATTEMPTS; attempt++) {
        const id = newProcessId();
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [PROCESS_LOCK_CLASS, processLockKey(id)]);
        if (rows[0]?.ok === true) {
          if (closed) throw new Error('process liveness closed');
          own = { id, client };
          return id;
        }
      }
      throw new Error('no free process lock key was found');
    } catch (error) {
      destroy(client);
      throw error;
    }
  }

  return {
    async identity() {
      if (closed) throw new Error('process liveness closed');
      if (own !== null) return own.id;
      taking ??= take().finally(() => {
        taking = null;
      });
      return taking;
    },
    async isDead(processId) {
      if (!isProcessId(processId)) return false;
      if (processId === own?.id) return false;
      if (dead.has(processId)) return true;
      const held = await sql.all<{ n: number }>(
        `SELECT 1 AS n FROM pg_locks
         WHERE locktype = 'advisory' AND granted AND objsubid = 2
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND CAST(classid AS bigint) = ? AND CAST(objid AS bigint) = ?`,
        [PROCESS_LOCK_CLASS, processLockKey(processId)],
      );
      if (held.length > 0) return false;
      dead.add(processId);
      return true;
    },
    async close() {
      closed = true;
      await taking?.catch(() => undefined);
      if (own === null) return;
      const { client } = own;
      own = null;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_WAIT_MS);
      });
      // Ending the session releases the lock.
      await Promise.race([client.end().catch(() => undefined), late]).finally(() => clearTimeout(timer));
      client.connection.stream.destroy();
    },
  };
}
