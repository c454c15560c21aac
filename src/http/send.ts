import type { FastifyReply } from 'fastify';
import { boundDetail, boundString } from './fastapi/errorBounds.js';
import { stringifyWithFloats } from './fastapi/floatJson.js';
import type { ErrorItem } from './fastapi/pydanticScalars.js';

/**
 * FastAPI answers compact JSON with exactly `content-type: application/json` (no charset) and
 * non-ASCII as is. Fastify appends a charset to any JSON content-type of a string payload, so the
 * body goes out as bytes, which Fastify leaves alone.
 */
export function sendJson(reply: FastifyReply, statusCode: number, body: unknown, floatKeys?: ReadonlySet<string>): FastifyReply {
  const text = floatKeys ? stringifyWithFloats(body, floatKeys) : JSON.stringify(body);
  return reply.code(statusCode).header('content-type', 'application/json').send(Buffer.from(text, 'utf8'));
}

/** An error answer, `{"detail": …}`: every one goes through here, so every one is bounded (errorBounds.ts). */
export function sendDetail(reply: FastifyReply, statusCode: number, detail: string | readonly ErrorItem[]): FastifyReply {
  return sendJson(reply, statusCode, { detail: typeof detail === 'string' ? boundString(detail) : boundDetail(detail) });
}
