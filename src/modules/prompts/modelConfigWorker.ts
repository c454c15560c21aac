import { parentPort } from 'node:worker_threads';
import { checkModelConfig, type ModelConfigInput } from './modelConfigChecks.js';
import type { ModelConfigRequest, ModelConfigResponse } from './modelConfigOffLoop.js';

/**
 * The thread a version's schemas are compiled on (modelConfigOffLoop.ts): the same check as on the
 * main thread, with the same ajv, so a version is accepted or refused exactly as it was there.
 */
parentPort!.on('message', (request: ModelConfigRequest) => {
  let response: ModelConfigResponse;
  try {
    response = { id: request.id, ok: true, result: checkModelConfig(request.input as ModelConfigInput) };
  } catch (error) {
    response = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(response);
});
