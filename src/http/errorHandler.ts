import type { FastifyError, FastifyInstance } from 'fastify';
import { HttpError, ValidationFailed } from './httpError.js';
import { sendDetail } from './send.js';

/**
 * Maps thrown errors to answers. Known errors get their documented body; anything unexpected is
 * FastAPI's plain-text 500, with the cause logged and never sent.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, req, reply) => {
    if (error instanceof HttpError) {
      reply.headers(error.headers);
      return sendDetail(reply, error.statusCode, error.detail);
    }
    if (error instanceof ValidationFailed) return sendDetail(reply, 422, error.items);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendDetail(reply, 413, 'Request body too large');
    if (error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      return sendDetail(reply, 400, 'There was an error parsing the body');
    }
    req.log.error({ err: error }, 'unhandled error');
    return reply.code(500).header('content-type', 'text/plain; charset=utf-8').send('Internal Server Error');
  });
}
