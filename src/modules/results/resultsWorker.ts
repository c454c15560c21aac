import { parentPort, workerData } from 'node:worker_threads';
import { openReadOnlyDatabase } from '../../db/open.js';
import { NotFound } from '../../lib/errors.js';
import { createResultsService } from './results.service.js';
import type { ResultsRequest, ResultsResponse } from './resultsRunner.js';

/**
 * Computes experiment results off the main thread, on its own read-only connection: at a million
 * outcomes a report takes most of a second of SQLite work, which must not stall the runtime
 * endpoints. WAL lets this reader see every committed write while the writer goes on.
 */
const db = openReadOnlyDatabase((workerData as { dataDir: string }).dataDir);

parentPort!.on('message', (request: ResultsRequest) => {
  let response: ResultsResponse;
  try {
    const service = createResultsService({ db, clock: { now: () => new Date(request.now) } });
    response = { id: request.id, ok: true, report: service.results(request.projectId, request.experimentId, request.options) };
  } catch (error) {
    response =
      error instanceof NotFound
        ? { id: request.id, ok: false, notFound: true, message: error.message }
        : { id: request.id, ok: false, notFound: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort!.postMessage(response);
});
