/** The `code` a driver error carries (SQLite's name, PostgreSQL's SQLSTATE, a socket's errno name), if any. */
export const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

/**
 * The answer when the disk (or SQLite's page limit) is full: writes fail, reads go on, and freeing
 * space lets the next commit succeed without a restart. PostgreSQL says 53100 (disk_full).
 */
export function isStorageFull(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'SQLITE_FULL' || code === '53100';
}

/**
 * The database server cannot be reached or went away (PostgreSQL; an SQLite file is in process):
 * connection exceptions (08…), the server shutting down (57P…), too many connections or out of
 * resources (53…), a connection refused or timed out, one that ended mid-query, or one that did
 * not answer within its deadline (the server's statement_timeout, 57014, or the client's own
 * query_timeout: a connection black-holed on the way).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = codeOf(error);
  if (typeof code === 'string') {
    return (
      code.startsWith('08') ||
      code.startsWith('53') ||
      code.startsWith('57P') ||
      code === '57014' ||
      // Only the socket errors of opening a connection: a reset or a broken pipe is as often the
      // client's own request going away, and a server lost mid-query says 'Connection terminated'.
      ['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(code)
    );
  }
  return (
    error instanceof Error &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i.test(error.message)
  );
}

/** Errors that say the storage itself refuses writes (full, failing I/O, gone), as opposed to a bad statement. */
export function isStorageFailure(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'SQLITE_FULL' || (typeof code === 'string' && code.startsWith('SQLITE_IOERR')) || isDatabaseUnavailable(error);
}

/** A second row with the primary key of one already in `table` (SQLite's constraint error, PostgreSQL's unique_violation). */
export function isDuplicatePrimaryKey(error: unknown, table: string): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || (code === '23505' && constraint === `${table}_pkey`);
}

/** Any unique constraint refused the row: another process wrote the same thing first. */
export function isUniqueViolation(error: unknown): boolean {
  const code = codeOf(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * A value the database refused to hold, which request validation should have caught (PostgreSQL:
 * a NUL in text 22021, an unsupported Unicode escape in JSON 22P05, a number out of a column's
 * range 22003, text that is not the column's type 22P02). SQLite stores all of these.
 */
export function isUnstorableValue(error: unknown): boolean {
  const code = codeOf(error);
  return code === '22021' || code === '22P05' || code === '22003' || code === '22P02';
}
