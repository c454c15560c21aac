import type { Config } from './config.js';

/**
 * The one line an operator needs when the service cannot start for a reason of theirs (a port in
 * use, a data directory it cannot write): which variable to change, not a stack trace. Null for
 * anything else, which is a bug and keeps its stack.
 */
export function describeStartupError(error: unknown, config: Config): string | null {
  const code = (error as { code?: unknown } | null)?.code;
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
