import type { Config } from './config.js';
import { redactPassword } from './db/databaseUrl.js';
import { codeOf } from './db/storageErrors.js';

/** Why PostgreSQL refused to start with us, by error code: what an operator changes in the URL or on the server. */
const POSTGRES_START_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections at that host and port (is PostgreSQL running?)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  ETIMEDOUT: 'the server did not answer in time',
  EHOSTUNREACH: 'the host cannot be reached',
  '28P01': 'the password was refused',
  '28000': 'the server refused this user',
  '3D000': 'that database does not exist (create it first)',
  '42501': 'this user may not create the schema (grant it CREATE on the database)',
};

/**
 * The one line an operator needs when the service cannot start for a reason of theirs (a port in
 * use, a data directory it cannot write): which variable to change, not a stack trace. Null for
 * anything else, which is a bug and keeps its stack.
 */
export function describeStartupError(error: unknown, config: Config): string | null {
  const code = codeOf(error);
  if (config.databaseUrl !== null) {
    const reason = POSTGRES_START_ERRORS[String(code)];
    if (reason !== undefined) return `PROMPTLINE_DATABASE_URL=${redactPassword(config.databaseUrl)}: ${reason} (${String(code)})`;
  }
  const metricsPort = (error as { variable?: unknown } | null)?.variable === 'PROMPTLINE_METRICS_PORT';
  const where = metricsPort ? `PROMPTLINE_METRICS_PORT=${config.metrics.port} on HOST=${config.host}` : `PORT=${config.port} on HOST=${config.host}`;
  switch (code) {
    case 'EADDRINUSE':
      return `cannot listen: ${where} is already in use (choose another ${metricsPort ? 'PROMPTLINE_METRICS_PORT' : 'PORT'}, or stop what listens there)`;
    case 'EADDRNOTAVAIL':
      return `cannot listen: HOST=${config.host} is not an address of this machine`;
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
    case 'ENOTDIR':
    case 'EEXIST':
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_READONLY':
    case 'SQLITE_NOTADB': {
      const syscall = (error as { syscall?: unknown }).syscall;
      if (syscall === 'listen') return `cannot listen: ${where}: permission denied (ports below 1024 need privileges)`;
      return `PROMPTLINE_DATA_DIR=${config.dataDir} cannot hold the database (${String(code)}: ${(error as Error).message})`;
    }
    default:
      return null;
  }
}
