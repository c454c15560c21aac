import type { FastifyReply } from 'fastify';

/**
 * FastAPI answers compact JSON with exactly `content-type: application/json` (no charset) and
 * non-ASCII as is; Fastify's own serializer would add a charset, so bodies are sent pre-serialised.
 */
export function sendJson(reply: FastifyReply, statusCode: number, body: unknown): FastifyReply {
  return reply.code(statusCode).header('content-type', 'application/json').send(JSON.stringify(body));
}

export function sendDetail(reply: FastifyReply, statusCode: number, detail: unknown): FastifyReply {
  return sendJson(reply, statusCode, { detail });
}
