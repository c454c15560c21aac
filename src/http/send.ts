import type { FastifyReply } from 'fastify';

/**
 * FastAPI answers compact JSON with exactly `content-type: application/json` (no charset) and
 * non-ASCII as is. Fastify appends a charset to any JSON content-type of a string payload, so the
 * body goes out as bytes, which Fastify leaves alone.
 */
export function sendJson(reply: FastifyReply, statusCode: number, body: unknown): FastifyReply {
  return reply.code(statusCode).header('content-type', 'application/json').send(Buffer.from(JSON.stringify(body), 'utf8'));
}

export function sendDetail(reply: FastifyReply, statusCode: number, detail: unknown): FastifyReply {
  return sendJson(reply, statusCode, { detail });
}
