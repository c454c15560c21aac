import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { codeOf, isDatabaseUnavailable, isStorageFailure, isStorageFull, isUnstorableValue } from '../db/storageErrors.js';
import { sendDomainError } from './domainErrors.js';
import { requestParts } from './route.js';
import { sendDetail } from './send.js';

/** The client went away mid-request (an aborted upload): nothing to answer, nothing worth an error line. */
function clientAborted(error: FastifyError, req: FastifyRequest): boolean {
  return req.raw.aborted || req.raw.socket?.destroyed === true || error.code === 'ECONNRESET' || error.code === 'ECONNABORTED';
}

/**
 * Maps thrown errors to answers. Domain errors get FastAPI's shapes (domainErrors.ts); a full disk is 507 (reads
 * go on, and the next commit after space is freed succeeds); anything unexpected is FastAPI's
 * plain-text 500, with the cause logged and never sent.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, req, reply) => {
    if (sendDomainError(error, req, reply, requestParts(req))) return reply;
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendDetail(reply, 413, 'Request body too large');
    if (error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      return sendDetail(reply, 400, 'There was an error parsing the body');
    }
    if (isStorageFull(error)) {
      req.log.warn({ err: error }, 'write refused: storage full');
      return sendDetail(reply, 507, 'Storage full: the database cannot grow, so this write was not stored; reads still work');
    }
    if (isDatabaseUnavailable(error)) {
      req.log.error({ err: error }, 'database unavailable');
      return sendDetail(reply, 503, 'Database unavailable: try again (a write cut off during its commit may still have been stored)');
    }
    if (isStorageFailure(error)) {
      req.log.error({ err: error }, 'write refused: storage failing');
      return sendDetail(reply, 503, 'Storage unavailable: this write was not stored');
    }
    if (isUnstorableValue(error)) {
      // The client's value, not a fault of the service: one line without a stack, nothing stored.
      req.log.warn({ code: codeOf(error), reason: error.message }, 'value refused by the database');
      return sendDetail(reply, 422, 'A value in this request cannot be stored (the database refused it); nothing was stored');
    }
    if (clientAborted(error, req)) {
      req.log.debug({ code: error.code }, 'client aborted the request');
      return reply.code(400).send();
    }
    req.log.error({ err: error }, 'unhandled error');
    return reply.code(500).header('content-type', 'text/plain; charset=utf-8').send('Internal Server Error');
  });
}
