import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { deadCache, isProcessId, newProcessId, type ProcessLiveness } from './liveness.js';

/** Beside the database file: one lock file per process that took an identity. */
const PROCESSES_DIR = 'processes';
/** How long taking our own lock may wait for a checker that is looking at the new file. */
const CREATE_WAIT_MS = 5_000;
/** A new file that vanished while we locked it (a checker took it for a dead one) is made again, a few times at most. */
const CREATE_ATTEMPTS = 3;

export function processesDir(dataDir: string): string {
  return path.join(dataDir, PROCESSES_DIR);
}

const isCode = (error: unknown, code: string) => (error as { code?: unknown } | null)?.code === code;

/**
 * The processes on one SQLite file: each holds an exclusive lock on a small SQLite file of its own
 * (`<data dir>/processes/<id>.lock`) for as long as it runs. The lock is SQLite's own (POSIX
 * record locks on Unix, LockFileEx on Windows), which the kernel drops when the process ends, a
 * kill -9 included; so a process whose file can be locked is dead, wherever it ran, as long as it
 * shared this folder: other containers of the same host included, where pids (a pid 1 in each)
 * and host names could not tell. Its file holds its pid, host and start for whoever looks.
 *
 * Chosen over the pid and start time of a process on the same host: that needs /proc (Linux only)
 * and says nothing across pid namespaces; a lock works wherever sharing a SQLite file is safe at all.
 */
export function sqliteLiveness(dataDir: string): ProcessLiveness {
  const dir = processesDir(dataDir);
  const dead = deadCache();
  let own: { id: string; db: Database.Database } | null = null;
  let closed = false;

  /** Takes a new identity: its file created, locked for good, and still there once locked. */
  function take(): { id: string; db: Database.Database } {
    fs.mkdirSync(dir, { recursive: true });
    for (let attempt = 1; ; attempt++) {
      const id = newProcessId();
      const file = path.join(dir, `${id}.lock`);
      const db = new Database(file);
      try {
        const created = fs.statSync(file);
        db.pragma(`busy_timeout = ${CREATE_WAIT_MS}`);
        // Exclusive locking mode: the first write takes the lock, and the commit does not give it back.
        db.pragma('locking_mode = EXCLUSIVE');
        // No journal file beside it: nothing but the lock file itself is ever left behind.
        db.pragma('journal_mode = MEMORY');
        db.exec('CREATE TABLE holder (pid INTEGER, host TEXT, started_at TEXT)');
        db.prepare('INSERT INTO holder VALUES (?, ?, ?)').run(process.pid, os.hostname(), new Date().toISOString());
        // Between its creation and the write the file was unlocked: a checker may have found it
        // "dead" and removed it. Locked now, it is ours only if it is still the file of that name.
        const now = statOrNull(file);
        if (now !== null && now.ino === created.ino && now.dev === created.dev) return { id, db };
      } catch (error) {
        db.close();
        if (attempt >= CREATE_ATTEMPTS) throw error;
        continue;
      }
      db.close();
      if (attempt >= CREATE_ATTEMPTS) throw new Error(`the lock file ${file} was removed while it was being taken`);
    }
  }

  /** Whether the file's lock is free (its process ended); removes the file of a dead one. */
  function lockIsFree(file: string): boolean {
    let db: Database.Database;
    try {
      db = new Database(file, { fileMustExist: true });
    } catch (error) {
      if (isCode(error, 'SQLITE_CANTOPEN')) return true; // gone: ended cleanly, or already found dead
      throw error;
    }
    try {
      db.pragma('busy_timeout = 0');
      try {
        db.exec('BEGIN EXCLUSIVE');
      } catch (error) {
        if (isCode(error, 'SQLITE_BUSY') || isCode(error, 'SQLITE_LOCKED')) return false;
        throw error;
      }
      db.exec('ROLLBACK');
      removeFile(file);
      return true;
    } finally {
      db.close();
    }
  }

  /** Files of processes that died, from before this one started: removed, so the folder does not grow with every crash. */
  function sweep(): void {
    for (const name of fs.readdirSync(dir)) {
      const id = name.endsWith('.lock') ? name.slice(0, -'.lock'.length) : '';
      if (isProcessId(id) && id !== own?.id) {
        try {
          if (lockIsFree(path.join(dir, name))) dead.add(id);
        } catch {
          // a file that cannot be read is left as it is: it only costs its few bytes
        }
      }
    }
  }

  return {
    async identity() {
      if (closed) throw new Error('process liveness closed');
      if (own === null) {
        own = take();
        sweep();
      }
      return own.id;
    },
    async isDead(processId) {
      if (!isProcessId(processId)) return false;
      if (processId === own?.id) return false;
      if (dead.has(processId)) return true;
      const free = lockIsFree(path.join(dir, `${processId}.lock`));
      if (free) dead.add(processId);
      return free;
    },
    async close() {
      closed = true;
      if (own === null) return;
      const { id, db } = own;
      own = null;
      // The file goes first, while still locked: no checker can find it free and half-removed.
      removeFile(path.join(dir, `${id}.lock`));
      db.close();
    },
  };
}

function statOrNull(file: string): fs.Stats | null {
  try {
    return fs.statSync(file);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return null;
    throw error;
  }
}

function removeFile(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // already gone, or (Windows) still open elsewhere: a later sweep removes it
  }
}
