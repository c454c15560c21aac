import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { DB_FILE_NAME } from '../../db/open.js';
import type { Store } from '../../db/store.js';
import { systemClock } from '../../lib/clock.js';
import { HttpError } from '../../http/httpError.js';
import { createResultsService } from './results.service.js';
import type { ResultsRequest, ResultsResponse } from './resultsRunner.js';

/**
 * Computes experiment results off the main thread, on its own read-only connection: at a million
 * outcomes a report takes most of a second of SQLite work, which must not stall the runtime
 * endpoints. WAL lets this reader see every committed write while the writer goes on.
 */
const db = new Database(path.join((workerData as { dataDir: string }).dataDir, DB_FILE_NAME), { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const service = createResultsService({ db, clock: systemClock } as Pick<Store, 'db' | 'clock'> as Store);

parentPort!.on('message', (request: ResultsRequest) => {
  let response: ResultsResponse;
  try {
    response = { id: request.id, ok: true, report: service.results(request.projectId, request.experimentId, request.options) };
  } catch (error) {
    response = error instanceof HttpError
      ? { id: request.id, ok: false, statusCode: error.statusCode, detail: error.detail }
      : { id: request.id, ok: false, statusCode: 500, detail: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort!.postMessage(response);
});
