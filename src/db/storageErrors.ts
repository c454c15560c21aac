/**
 * SQLite's answer when the disk (or the database's page limit) is full: writes fail, reads go on,
 * and freeing space lets the next commit succeed without a restart.
 */
export function isStorageFull(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'SQLITE_FULL';
}

/** Errors that say the storage itself refuses writes (full, or failing I/O), as opposed to a bad statement. */
export function isStorageFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || (typeof code === 'string' && code.startsWith('SQLITE_IOERR'));
}

/** A second row with the primary key of one already in `table` (SQLite's constraint error, PostgreSQL's unique_violation). */
export function isDuplicatePrimaryKey(error: unknown, table: string): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || (code === '23505' && constraint === `${table}_pkey`);
}
