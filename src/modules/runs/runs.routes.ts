import type { FastifyInstance } from 'fastify';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import { ServerShutdown } from '../../providers/gateway.js';
import type { RunService } from './runs.service.js';
import { idempotencyClaim } from '../idempotency/idempotency.js';
import { ListRunsQuery, RunIdParams, RunPageSchema, RunPromptRequest, RunPromptResponse, RunSchema } from './runs.schemas.js';

/**
 * The request's controller (ModelRequest.abort), aborted when its connection closes before the
 * answer was written: by the client, or by the server at its shutdown deadline (`shuttingDown` has
 * fired by then), which the stored run must tell apart.
 */
function abortedWhenConnectionCloses(
  reply: { raw: NodeJS.WritableStream & { writableFinished: boolean; on(e: 'close', f: () => void): unknown } },
  shuttingDown: AbortSignal,
): AbortController {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort(shuttingDown.aborted ? new ServerShutdown() : undefined);
  });
  return controller;
}

/** RunPromptResponse.token_cost_usd is a pydantic float. */
const FLOAT_KEYS: ReadonlySet<string> = new Set(['token_cost_usd']);

/** `shuttingDown` fires when the server cuts the connections still open at its shutdown deadline. */
export function registerRunRoutes(app: FastifyInstance, access: AccessCheck, runs: RunService, shuttingDown: AbortSignal): void {
  registerRoute(app, access, {
    method: 'POST',
    url: '/run_prompt',
    operationId: 'runPrompt',
    summary: 'Run Prompt',
    description:
      'Renders the prompt as /get_prompt does, runs it on its model (with retries and fallbacks) and stores the run, failed ones too. Retry safely with an Idempotency-Key.',
    tags: ['runtime'],
    role: 'runtime',
    // The console's playground calls it with its session cookie (docs/console.md, "Signing in").
    session: true,
    strict: false,
    body: RunPromptRequest,
    response: { 200: RunPromptResponse, 404: Detail, 502: Detail, 503: Detail, 504: Detail, ...AUTH_ERRORS },
    handler: async ({ body, rawBody, auth, req, reply }) => {
      const claim = idempotencyClaim(req.headers['idempotency-key'], 'run_prompt', rawBody);
      return { status: 200, body: await runs.run(auth.projectId, body, abortedWhenConnectionCloses(reply, shuttingDown), claim), floatKeys: FLOAT_KEYS };
    },
  });
  registerRoute(app, access, {
    method: 'GET',
    url: '/runs',
    operationId: 'listRuns',
    summary: 'List runs, newest first',
    description: 'Lists stored runs a page at a time, filtered by prompt, experiment, variant, user, status and time.',
    tags: ['runs'],
    role: 'read',
    strict: true,
    query: ListRunsQuery,
    response: { 200: RunPageSchema, ...AUTH_ERRORS },
    handler: async ({ query, auth }) => ({ status: 200, body: await runs.list(auth.projectId, query) }),
  });
  registerRoute(app, access, {
    method: 'GET',
    url: '/runs/:run_id',
    operationId: 'getRun',
    summary: 'One run: inputs, rendered prompt, output, model, tokens, cost, latency, status, error',
    description: 'Answers one stored run.',
    tags: ['runs'],
    role: 'read',
    strict: true,
    params: RunIdParams,
    response: { 200: RunSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await runs.get(auth.projectId, params.run_id) }),
  });
}
