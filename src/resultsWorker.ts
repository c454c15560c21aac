import { parentPort, workerData } from 'node:worker_threads';
import { openReadOnlyDatabase } from './db/open.js';
import { openPool } from './db/postgres.js';
import { codeOf } from './db/storageErrors.js';
import { postgresSnapshot, type ReadSnapshot, sqliteSnapshot } from './db/snapshot.js';
import { NotFound } from './lib/errors.js';
import type { ResultsRequest, ResultsResponse, ResultsSource } from './modules/results/resultsRunner.js';
import { createReportServices } from './services.js';

/**
 * Computes experiment results off the main thread, on its own read-only connection: at a million
 * outcomes a report is most of a second of database work and of JavaScript over per-user rows,
 * which must not stall the runtime endpoints. On SQLite, WAL lets this reader see every committed
 * write while the writer goes on; on PostgreSQL the report holds two pooled connections of its own.
 */
function snapshotOf(source: ResultsSource): ReadSnapshot {
  if (source.databaseUrl === null) return sqliteSnapshot(openReadOnlyDatabase(source.dataDir));
  return postgresSnapshot(openPool(source.databaseUrl, REPORT_CONNECTIONS, { timeoutMs: source.timeoutMs }), REPORT_CONNECTIONS);
}

/**
 * A report's statements run on two connections sharing one snapshot (postgresSnapshot), so
 * per-variant scans go side by side: on PostgreSQL a statement uses one core.
 */
const REPORT_CONNECTIONS = 2;

const readSnapshot = snapshotOf(workerData as ResultsSource);

parentPort!.on('message', async (request: ResultsRequest) => {
  let response: ResultsResponse;
  try {
    const { results } = createReportServices({ readSnapshot, clock: { now: () => new Date(request.now) } });
    response = { id: request.id, ok: true, report: await results.results(request.projectId, request.experimentId, request.options) };
  } catch (error) {
    const code = codeOf(error);
    response =
      error instanceof NotFound
        ? { id: request.id, ok: false, notFound: true, message: error.message }
        : {
            id: request.id,
            ok: false,
            notFound: false,
            message: error instanceof Error ? (error.stack ?? error.message) : String(error),
            ...(typeof code === 'string' ? { code } : {}),
          };
  }
  parentPort!.postMessage(response);
});
