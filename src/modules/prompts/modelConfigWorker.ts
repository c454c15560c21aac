import { parentPort } from 'node:worker_threads';
import { versionChecks, type VersionChecksRequest, type VersionChecksResponse } from './modelConfigOffLoop.js';

/**
 * The thread a new version's schemas are compiled on (modelConfigOffLoop.ts): the same check as on
 * the main thread, with the same ajv, so a version is accepted or refused exactly as it was there.
 */
parentPort!.on('message', (request: VersionChecksRequest) => {
  let response: VersionChecksResponse;
  try {
    response = { id: request.id, ok: true, result: versionChecks(request.input) };
  } catch (error) {
    response = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(response);
});
