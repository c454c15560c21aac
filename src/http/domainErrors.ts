import type { FastifyReply, FastifyRequest } from 'fastify';
import { Conflict, Invalid, NotFound, type Issue } from '../lib/errors.js';
import { ModelCallError } from '../providers/errors.js';
import type { ErrorItem } from './fastapi/pydanticValidator.js';
import { sendDetail } from './send.js';

/** What a route kept of its request: the parts as sent, and as validated (coerced, defaults filled). */
export interface RequestParts {
  body: { raw: unknown; validated: unknown };
  query: { raw: unknown; validated: unknown };
  path: { raw: unknown; validated: unknown };
  header: { raw: unknown; validated: unknown };
}

function at(value: unknown, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/**
 * An issue as pydantic reports it. Its `input` is what FastAPI would echo: the value at the loc for
 * a wrong value, the enclosing object for a missing one; taken from the request as sent, or, where
 * the client sent nothing there, as validated (a defaulted `inputs: {}`).
 */
function toErrorItem(issue: Issue, parts: RequestParts): ErrorItem {
  const loc = [issue.part, ...issue.path];
  const where = issue.kind === 'missing' ? issue.path.slice(0, -1) : issue.path;
  const source = parts[issue.part];
  let input = at(source.raw, where);
  if (input === undefined) input = at(source.validated, where);
  if (input === undefined) input = null;
  if (issue.kind === 'missing') {
    return { type: 'missing', loc, msg: 'Field required', input, ...(issue.context ? { ctx: { ...issue.context } } : {}) };
  }
  if (issue.kind === 'constraint') {
    return { type: issue.type ?? 'value_error', loc, msg: issue.reason, input, ...(issue.ctx ? { ctx: { ...issue.ctx } } : {}) };
  }
  return { type: 'value_error', loc, msg: `Value error, ${issue.reason}`, input, ctx: { error: issue.reason } };
}

const MODEL_STATUS = { failed: 502, busy: 503, timeout: 504 } as const;

/**
 * Answers a domain error the way the FastAPI original would, or returns false for anything else.
 * `parts` is absent for routes that take no input (nothing there can be Invalid).
 */
export function sendDomainError(error: unknown, req: FastifyRequest, reply: FastifyReply, parts: RequestParts | undefined): boolean {
  if (error instanceof NotFound) sendDetail(reply, 404, error.message);
  else if (error instanceof Conflict) {
    if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
    sendDetail(reply, 409, error.message);
  } else if (error instanceof Invalid) {
    const empty = { raw: undefined, validated: undefined };
    const known = parts ?? { body: empty, query: empty, path: empty, header: { raw: req.headers, validated: undefined } };
    sendDetail(
      reply,
      422,
      error.issues.map((issue) => toErrorItem(issue, known)),
    );
  } else if (error instanceof ModelCallError) {
    if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
    sendDetail(reply, MODEL_STATUS[error.kind], error.message);
  } else return false;
  return true;
}
