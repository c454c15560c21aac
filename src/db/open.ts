import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type Durability = 'full' | 'normal';
export type Db = Database.Database;

const DB_FILE_NAME = 'promptline.db';

/** Where the database of a data directory lives. */
export function databasePath(dataDir: string): string {
  return path.join(dataDir, DB_FILE_NAME);
}

/**
 * The most of the file SQLite maps into memory (its compile-time ceiling, 2 GiB): pages are then
 * read in place from the OS page cache instead of copied by one read() each. A results report
 * walks about 100 MB of index pages, through a 16 MB page cache: the copies cost it about 0.23 s
 * of kernel time of its 0.85 s of CPU, mapped about 0.14 s (more, and more saved, when the machine
 * is busy); and a mapping costs the process no memory of its own (the pages are the OS's cache).
 * Writes are unchanged: they go to the WAL file, and checkpoints write with write(). The price is
 * SQLite's own caveat: an I/O error while reading a mapped page crashes the process (SIGBUS)
 * instead of failing the one query.
 */
const MMAP_BYTES = 2_147_418_112;

/**
 * Opens the SQLite file with the pragmas of docs/design-decisions.md, "Storage". WAL lets readers run beside the writer;
 * synchronous=FULL fsyncs every commit so an acknowledged write survives power loss
 * (`normal` only risks the last commits on power loss, never on a process crash). Memory-mapped
 * (MMAP_BYTES): the CLI's results and every long read on this connection read pages in place.
 */
export function openDatabase(dataDir: string, durability: Durability): Db {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(databasePath(dataDir));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma(`mmap_size = ${MMAP_BYTES}`);
  return db;
}

/**
 * A second, read-only connection to the same file (WAL lets it read while the writer goes on),
 * for the long reads of results reports, memory-mapped as the first. Pages written since the last
 * checkpoint are still read from the WAL file.
 */
export function openReadOnlyDatabase(dataDir: string): Db {
  const db = new Database(databasePath(dataDir), { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma(`mmap_size = ${MMAP_BYTES}`);
  return db;
}
