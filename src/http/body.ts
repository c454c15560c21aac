import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_BODY_NESTING, prescanJson } from './fastapi/jsonPrescan.js';
import { decodePythonJson, INT_MAX_STR_DIGITS } from './fastapi/pythonJson.js';
import type { ErrorItem } from './fastapi/pydanticValidator.js';

export type BodyResult =
  | { kind: 'missing' }
  | { kind: 'value'; value: unknown }
  /** A body sent under a content type that is not JSON: its text, and that type (see `withContentTypeHint`). */
  | { kind: 'text'; value: string; mediaType: string }
  | { kind: 'undecodable' }
  | { kind: 'json_invalid'; item: ErrorItem };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * From this size on, decoding and validating a body costs milliseconds (about 4 ms for 900 KB), and
 * such bodies take turns: one per event-loop turn, with the sockets polled between two of them.
 * Sixteen that finish arriving at once would otherwise run back to back in one turn, and a health
 * check or a small request that arrived meanwhile would wait behind all of them.
 */
const LARGE_BODY_BYTES = 64 * 1024;
const turns: Array<() => void> = [];

function takeTurn(work: () => void): void {
  turns.push(work);
  if (turns.length === 1) setImmediate(nextTurn);
}

function nextTurn(): void {
  // The work goes on synchronously from here (Fastify's hooks up to our validation): the turn is its own.
  turns.shift()!();
  if (turns.length > 0) setImmediate(nextTurn);
}

const originalContentType = new WeakMap<FastifyRequest, string | undefined>();

/**
 * Every body is read as raw bytes; decoding happens in `readBody` so FastAPI's rules apply, not
 * Fastify's. Fastify refuses Content-Types it cannot parse as a media type before any parser runs,
 * so the header is kept aside and every body reaches the one raw parser.
 */
export function registerRawBodyParser(app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body: Buffer, done) => {
    if (body.length < LARGE_BODY_BYTES) done(null, body);
    else takeTurn(() => done(null, body));
  });
  app.addHook('onRequest', (req, _reply, done) => {
    originalContentType.set(req, req.headers['content-type']);
    req.headers['content-type'] = 'application/octet-stream';
    done();
  });
}

/** The media type of a Content-Type header: before `;`, trimmed, lower-cased. */
function mediaTypeOf(header: string): string {
  return header.split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * FastAPI's test (via Python's email parser): no or empty Content-Type is JSON; otherwise the
 * media type before `;`, trimmed and lower-cased, must be `application/json` or
 * `application/<anything>+json`, and a type without exactly one `/` counts as text/plain.
 */
function isJsonContentType(header: string | undefined): boolean {
  if (!header || header === 'application/json') return true;
  const type = mediaTypeOf(header);
  const slash = type.indexOf('/');
  if (slash === -1 || type.indexOf('/', slash + 1) !== -1) return false;
  const subtype = type.slice(slash + 1);
  return type.slice(0, slash) === 'application' && (subtype === 'json' || subtype.endsWith('+json'));
}

/**
 * Step 2 of docs/runtime-contract.md "The order of checks": empty → missing; JSON nested deeper
 * than MAX_BODY_NESTING or bad UTF-8 → 400; JSON errors → one json_invalid item.
 */
export function readBody(req: FastifyRequest): BodyResult {
  const raw = req.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) return { kind: 'missing' };
  const json = isJsonContentType(originalContentType.get(req));
  // Before anything decodes or parses it (and before the key is looked at): refusing a hostile
  // depth must cost no more than reading the bytes. The answer is FastAPI's for a body too deep
  // for Python's parser, as is the answer for bad UTF-8, so which is found first does not matter.
  const scan = json ? prescanJson(raw, MAX_BODY_NESTING, INT_MAX_STR_DIGITS) : null;
  if (scan?.tooDeep) return { kind: 'undecodable' };
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return { kind: 'undecodable' };
  }
  if (!json) return { kind: 'text', value: text, mediaType: mediaTypeOf(originalContentType.get(req) ?? '') };
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // Nesting is within Python's limit; unless a long run of digits was seen, so are integers.
  const decoded = decodePythonJson(text, { withinPythonLimits: scan?.longDigitRun === false });
  if (decoded.ok) return { kind: 'value', value: decoded.value };
  // Python itself would fail outside JSON syntax (nesting or integer-size limits): FastAPI's 400.
  if (decoded.fatal) return { kind: 'undecodable' };
  return {
    kind: 'json_invalid',
    item: { type: 'json_invalid', loc: ['body', decoded.pos], msg: 'JSON decode error', input: {}, ctx: { error: decoded.msg } },
  };
}

/**
 * Text is never an object, so a body sent as text fails with pydantic's item at `["body"]`, whose
 * message says only that. Sending JSON without `content-type: application/json` is the usual cause
 * (`curl -d` sends `application/x-www-form-urlencoded`), so that item's message also says what the
 * body was sent as and what to send. Its type, loc and input stay FastAPI's; the message is a
 * deliberate difference (docs/runtime-contract.md, "Differences from FastAPI"), made here at the
 * edge so that the pydantic engine stays FastAPI's.
 */
export function withContentTypeHint(items: readonly ErrorItem[], mediaType: string): ErrorItem[] {
  const sentAs = mediaType === '' ? 'with a blank content-type' : `as ${mediaType}`;
  const hint = ` (the body was sent ${sentAs}; send JSON with the header content-type: application/json)`;
  return items.map((item) =>
    item.type === 'model_attributes_type' && item.loc.length === 1 && item.loc[0] === 'body' ? { ...item, msg: item.msg + hint } : item,
  );
}
