import type { FastifyReply } from 'fastify';
import { boundDetail, boundString } from './errorBounds.js';
import type { ErrorItem } from './pydanticScalars.js';

/**
 * FastAPI answers compact JSON with exactly `content-type: application/json` (no charset) and
 * non-ASCII as is. Fastify appends a charset to any JSON content-type of a string payload, so the
 * body goes out as bytes, which Fastify leaves alone.
 */
export function sendJson(reply: FastifyReply, statusCode: number, body: unknown, floatKeys?: ReadonlySet<string>): FastifyReply {
  const text = floatKeys ? stringifyWithFloats(body, floatKeys) : JSON.stringify(body);
  return reply.code(statusCode).header('content-type', 'application/json').send(Buffer.from(text, 'utf8'));
}

const FLOAT_MARK = '\u0000pyfloat:';
const FLOAT_MARKED = /"\\u0000pyfloat:(-?\d+)"/g;

/**
 * pydantic writes a `float` field with a fraction even when it is whole (`0.0`, not `0`); JSON.stringify
 * cannot, so whole values of the named keys are marked, then rewritten in the text.
 */
function stringifyWithFloats(body: unknown, floatKeys: ReadonlySet<string>): string {
  let marked = false;
  const text = JSON.stringify(body, (key, value: unknown) => {
    if (typeof value === 'number' && Number.isInteger(value) && floatKeys.has(key) && Math.abs(value) < 1e16) {
      marked = true;
      return `${FLOAT_MARK}${value}`;
    }
    return value;
  });
  return marked ? text.replace(FLOAT_MARKED, '$1.0') : text;
}

/** An error answer, `{"detail": …}`: every one goes through here, so every one is bounded (errorBounds.ts). */
export function sendDetail(reply: FastifyReply, statusCode: number, detail: string | readonly ErrorItem[]): FastifyReply {
  return sendJson(reply, statusCode, { detail: typeof detail === 'string' ? boundString(detail) : boundDetail(detail) });
}
