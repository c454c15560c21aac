import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Readable } from 'node:stream';
import { withEventStream } from './openapi.js';
import type { Static, TSchema } from '@sinclair/typebox';
import { readBody, withContentTypeHint } from './body.js';
import { sendDetail, sendJson } from './send.js';
import { type EventStream, writeEventStream } from './sse.js';
import { validateValue, type ErrorItem } from './fastapi/pydanticValidator.js';
import type { RequestParts } from './domainErrors.js';
import { type AccessCheck, type AccessDecision, type AuthContext, type Role, type SessionContext, crossSiteRefused, denied } from './access.js';
import { sessionTokenOf } from './sessionCookie.js';

export type { AccessCheck } from './access.js';

interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Keys whose values are pydantic floats, written `0.0` rather than `0`. */
  floatKeys?: ReadonlySet<string>;
  /** A non-JSON answer (e.g. CSV), sent as is instead of `body`; a stream is written as it comes (server-sent events). */
  raw?: { contentType: string; text: string | Buffer | Readable };
  /** Server-sent events read from a model: written as the client takes them, within the request deadline (sse.ts). */
  events?: EventStream;
}

interface HandlerContext<B, Q, P> {
  body: B;
  /** The body as decoded, before coercion and defaults: what FastAPI echoes as an error's `input`. */
  rawBody: unknown;
  query: Q;
  params: P;
  auth: AuthContext;
  /** The console session that authenticated the request; null when it carried X-API-Key. */
  session: SessionContext | null;
  req: FastifyRequest;
  reply: FastifyReply;
}

type StaticOr<T, D> = T extends TSchema ? Static<T> : D;

export interface RouteSpec<B extends TSchema | undefined, Q extends TSchema | undefined, P extends TSchema | undefined> {
  method: HTTPMethods;
  url: string;
  /** The operation's name in /openapi.json and in clients generated from it: camelCase, unique, never renamed. */
  operationId: string;
  summary: string;
  /** What the operation does, in a sentence or two; the role it needs is added from `role`. */
  description: string;
  tags: string[];
  /** Minimum role; `runtime` routes accept every role, `read` accepts read and admin. */
  role: Role;
  /**
   * Whether the console's session cookie may stand for X-API-Key. Read and admin routes accept it
   * unless this says false; runtime routes only where this says true (the two the console's
   * playground calls): applications always send their key.
   */
  session?: boolean;
  /** Management routes forbid unknown fields (`extra_forbidden`); runtime routes ignore them. */
  strict: boolean;
  body?: B;
  bodyOptional?: boolean;
  query?: Q;
  params?: P;
  response: Record<number, TSchema>;
  /**
   * The 200 may also be server-sent events (`text/event-stream`, docs/streaming.md): documented
   * beside the JSON answer, whose schema stays as it is. The text says what the events are.
   */
  eventStream?: string;
  /** Runs after validation and authentication; may throw domain errors (src/lib/errors.ts). */
  handler: (
    ctx: HandlerContext<StaticOr<B, undefined>, StaticOr<Q, Record<string, never>>, StaticOr<P, Record<string, never>>>,
  ) => Promise<RouteResult> | RouteResult;
}

const ROLE_RANK: Record<Role, number> = { runtime: 0, read: 1, admin: 2 };

/** The sentence each operation's description ends with, made from the role the key check enforces. */
const ROLE_SENTENCE: Record<Role, string> = {
  runtime: 'Any key may call it (runtime, read or admin).',
  read: 'Needs a read or admin key.',
  admin: 'Needs an admin key.',
};

const MISSING_KEY: ErrorItem = { type: 'missing', loc: ['header', 'x-api-key'], msg: 'Field required', input: null };
interface Validated {
  body: unknown;
  rawBody: unknown;
  query: unknown;
  params: unknown;
  auth: AuthContext | null;
  /** The session cookie's token when the request carries no X-API-Key and the route accepts sessions. */
  sessionToken: string | undefined;
  session: SessionContext | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    promptline?: Validated;
  }
}

/** The parts of a request that passed validation, as sent and as validated: what a 422 echoes. */
export function requestParts(req: FastifyRequest): RequestParts | undefined {
  const v = req.promptline;
  if (v === undefined) return undefined;
  return {
    body: { raw: v.rawBody, validated: v.body },
    query: { raw: req.query, validated: v.query },
    path: { raw: req.params, validated: v.params },
    header: { raw: req.headers, validated: undefined },
  };
}

/** What a registered route accepts, without its handler: the route table tests walk. */
export interface RouteEntry {
  method: HTTPMethods;
  url: string;
  role: Role;
  /** Whether the console's session cookie authenticates it (else only X-API-Key does). */
  session: boolean;
  strict: boolean;
  body: TSchema | undefined;
  bodyOptional: boolean;
  query: TSchema | undefined;
  params: TSchema | undefined;
}

const routeTables = new WeakMap<FastifyInstance, RouteEntry[]>();

/** Every route registered through `registerRoute` on this app, in registration order. */
export function routeTable(app: FastifyInstance): readonly RouteEntry[] {
  return routeTables.get(app) ?? [];
}

/** FastAPI reads the first occurrence of a repeated header; Node joins them with ", ", so look at the raw list. */
function firstApiKey(req: FastifyRequest): string | undefined {
  const raw = req.raw.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 9 && raw[i]!.toLowerCase() === 'x-api-key') return raw[i + 1];
  }
  return undefined;
}

/**
 * Registers a route with FastAPI's pipeline (docs/runtime-contract.md, "The order of checks"): body decoding errors first, then
 * path/query/header/body validation collected into one 422, then the key check (401/403) as a
 * preHandler, so a wrong key with an invalid body is a 422 and with a valid body a 401.
 */
export function registerRoute<B extends TSchema | undefined, Q extends TSchema | undefined, P extends TSchema | undefined>(
  app: FastifyInstance,
  access: AccessCheck,
  spec: RouteSpec<B, Q, P>,
): void {
  const table = routeTables.get(app) ?? [];
  routeTables.set(app, table);
  const acceptsSession = spec.session ?? spec.role !== 'runtime';
  table.push({
    method: spec.method,
    url: spec.url,
    role: spec.role,
    session: acceptsSession,
    strict: spec.strict,
    body: spec.body,
    bodyOptional: spec.bodyOptional ?? false,
    query: spec.query,
    params: spec.params,
  });
  const minRank = ROLE_RANK[spec.role];
  const strict = spec.strict;

  function validate(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
    const errors: ErrorItem[] = [];
    let body: unknown;
    let rawBody: unknown;
    /** The media type a body was sent as, when it was not JSON and so was read as text. */
    let sentAsText: string | undefined;
    if (spec.body) {
      const read = readBody(req);
      if (read.kind === 'undecodable') {
        sendDetail(reply, 400, 'There was an error parsing the body');
        return;
      }
      if (read.kind === 'json_invalid') {
        sendDetail(reply, 422, [read.item]);
        return;
      }
      body = read.kind === 'value' || read.kind === 'text' ? read.value : null;
      if (read.kind === 'text') sentAsText = read.mediaType;
      rawBody = body;
    }
    let params: unknown = {};
    if (spec.params) {
      const result = validateValue(spec.params, req.params, { loc: ['path'], strict: false });
      errors.push(...result.errors);
      params = result.value;
    }
    let query: unknown = {};
    if (spec.query) {
      const result = validateValue(spec.query, req.query, { loc: ['query'], strict: false });
      errors.push(...result.errors);
      query = result.value;
    }
    const operator = access.operator?.(req) ?? null;
    const apiKey = firstApiKey(req);
    // Without X-API-Key, a console session's cookie stands for it where the route accepts one.
    const sessionToken = apiKey === undefined && acceptsSession && operator === null ? sessionTokenOf(req) : undefined;
    if (apiKey === undefined && sessionToken === undefined && operator === null) errors.push(MISSING_KEY);
    if (spec.body) {
      if (body === null || body === undefined) {
        if (!spec.bodyOptional) errors.push({ type: 'missing', loc: ['body'], msg: 'Field required', input: null });
      } else {
        const result = validateValue(spec.body, body, { loc: ['body'], strict });
        errors.push(...(sentAsText === undefined ? result.errors : withContentTypeHint(result.errors, sentAsText)));
        body = result.value;
      }
    }
    if (errors.length > 0) {
      sendDetail(reply, 422, errors);
      return;
    }
    req.promptline = { body: body ?? undefined, rawBody, query, params, auth: operator, sessionToken, session: null };
    done();
  }

  function authorize(req: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    // The CLI's in-process caller was recognised in validate: an admin, without a key to check.
    if (req.promptline!.auth !== null) {
      done();
      return;
    }
    const token = req.promptline!.sessionToken;
    if (token !== undefined && crossSiteRefused(req, reply)) return;
    const decision = token === undefined ? access.check(firstApiKey(req) ?? '', req.ip) : access.checkSession(token, req.ip);
    if (decision instanceof Promise) decision.then((settled) => decide(req, reply, settled, done), done);
    else decide(req, reply, decision, done);
  }

  function decide(req: FastifyRequest, reply: FastifyReply, decision: AccessDecision, done: () => void): void {
    if (!decision.ok) {
      denied(req, reply, decision);
      return;
    }
    const auth = decision.auth;
    if (ROLE_RANK[auth.role] < minRank) {
      sendDetail(reply, 403, 'Not allowed for this API key');
      return;
    }
    req.promptline!.auth = auth;
    req.promptline!.session = decision.session ?? null;
    done();
  }

  app.route({
    method: spec.method,
    url: spec.url,
    schema: {
      operationId: spec.operationId,
      summary: spec.summary,
      description: `${spec.description} ${ROLE_SENTENCE[spec.role]}`,
      tags: spec.tags,
      // The key is the X-API-Key security scheme and nothing else: "Authorize" in /docs and the
      // headers of a generated client send it once. It is not also a header parameter (FastAPI's
      // Header() would make one), which would have Swagger UI send it twice, joined by a comma,
      // and make generated clients ask for it on every call. The 422 for a missing header comes
      // from validate above, whatever the document says.
      // Read and admin routes also accept the console's session cookie (an alternative, not both).
      // The runtime routes the playground calls with it keep the runtime contract's document: an
      // application's key only.
      security: acceptsSession && spec.role !== 'runtime' ? [{ apiKey: [] }, { sessionCookie: [] }] : [{ apiKey: [] }],
      ...(spec.body ? { body: spec.body } : {}),
      ...(spec.query ? { querystring: spec.query } : {}),
      ...(spec.params ? { params: spec.params } : {}),
      response: spec.eventStream === undefined ? spec.response : withEventStream(spec.response, spec.eventStream),
    },
    preValidation: validate,
    preHandler: authorize,
    handler: async (req, reply) => {
      const v = req.promptline!;
      const result = await spec.handler({
        body: v.body as never,
        rawBody: v.rawBody,
        query: v.query as never,
        params: v.params as never,
        auth: v.auth!,
        session: v.session,
        req,
        reply,
      });
      if (result.headers) reply.headers(result.headers);
      if (result.events) {
        // Written here rather than piped by Fastify: the writer waits for the client, and cuts it at the deadline.
        reply.hijack();
        try {
          await writeEventStream(reply.raw, result.status, reply.getHeaders(), result.events);
        } catch (error) {
          reply.log.error({ err: error }, 'an event stream failed after its headers were sent');
        }
        return;
      }
      if (result.raw) return reply.code(result.status).header('content-type', result.raw.contentType).send(result.raw.text);
      if (result.body === undefined) return reply.code(result.status).send();
      return sendJson(reply, result.status, result.body, result.floatKeys);
    },
  });
}
