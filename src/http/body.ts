import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decodePythonJson } from './pythonJson.js';
import type { ErrorItem } from './pydanticValidator.js';

export type BodyResult =
  | { kind: 'missing' }
  | { kind: 'value'; value: unknown }
  | { kind: 'undecodable' }
  | { kind: 'json_invalid'; item: ErrorItem };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Every body is read as raw bytes; decoding happens in `readBody` so FastAPI's rules apply, not Fastify's. */
export function registerRawBodyParser(app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));
}

/** FastAPI treats `application/json`, `application/*+json` and a missing Content-Type as JSON. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return true;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** Step 2 of contract.md §2: empty → missing; bad UTF-8 → 400; JSON errors → one json_invalid item. */
export function readBody(req: FastifyRequest): BodyResult {
  const raw = req.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) return { kind: 'missing' };
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return { kind: 'undecodable' };
  }
  if (!isJsonContentType(req.headers['content-type'])) return { kind: 'value', value: text };
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const decoded = decodePythonJson(text);
  if (decoded.ok) return { kind: 'value', value: decoded.value };
  // Python itself would fail outside JSON syntax (nesting or integer-size limits): FastAPI's 400.
  if (decoded.fatal) return { kind: 'undecodable' };
  return {
    kind: 'json_invalid',
    item: { type: 'json_invalid', loc: ['body', decoded.pos], msg: 'JSON decode error', input: {}, ctx: { error: decoded.msg } },
  };
}
