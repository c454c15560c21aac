import type { FastifyInstance } from 'fastify';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import { ServerShutdown } from '../../providers/gateway.js';
import type { RunService } from './runs.service.js';
import type { RunStream, RunStreamEnd } from './runStream.js';
import { type EventStream, sseFrame, wantsEventStream } from '../../http/sse.js';
import { idempotencyClaim } from '../idempotency/idempotency.js';
import {
  ListRunsQuery,
  PlaygroundRunBody,
  PromptStatsSchema,
  RunIdParams,
  RunPageSchema,
  RunPromptRequest,
  RunPromptResponse,
  RunSchema,
  StatsQuery,
} from './runs.schemas.js';
import { PromptIdParams, VersionParams } from '../prompts/prompts.schemas.js';

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

/** What /openapi.json says of the streamed answer (docs/streaming.md). */
const EVENT_STREAM =
  'Sent instead of the JSON answer when the request says Accept: text/event-stream, once the first token arrived: server-sent events, each an `event:` line and one `data:` line of JSON. `delta`: {"text": "..."} or {"tool_call": {"index", "id"?, "name"?, "arguments"?}}, as the model generates; then exactly one of `run`: the RunPromptResponse, the run stored; or `error`: {"detail", "status": "error", "run_id"}, the model failed after the first token, the run stored as failed. A failure before the first token answers JSON with the status it has without streaming. The events are read from the model as the client takes them; a client still not taking them at the request deadline has its connection closed, the run stored cancelled.';

/** RunPromptResponse.token_cost_usd is a pydantic float. */
const FLOAT_KEYS: ReadonlySet<string> = new Set(['token_cost_usd']);
const STATS_FLOAT_KEYS: ReadonlySet<string> = new Set(['error_rate', 'cost_usd']);

/**
 * A streamed run as server-sent events (docs/streaming.md, "Events"): a `delta` per piece, then one
 * `run` (the answer /run_prompt gives without streaming) or `error` (the run is stored failed).
 * The run is stored whether or not the client stays to read the end.
 */
async function* runFrames(stream: RunStream): AsyncGenerator<string> {
  let end: RunStreamEnd;
  try {
    for await (const event of stream.events) yield sseFrame('delta', event.type === 'text' ? { text: event.text } : { tool_call: event.delta });
  } finally {
    end = await stream.end;
  }
  yield end.ok ? sseFrame('run', end.answer, FLOAT_KEYS) : sseFrame('error', { detail: end.detail, status: end.status, run_id: end.runId });
}

/** A streamed run's answer: its frames, written as the client takes them until the request's deadline. */
function runEvents(stream: RunStream): { status: 200; events: EventStream } {
  return { status: 200, events: { frames: runFrames(stream), deadlineAt: stream.deadlineAt } };
}

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
    eventStream: EVENT_STREAM,
    handler: async ({ body, rawBody, auth, req, reply }) => {
      const abort = abortedWhenConnectionCloses(reply, shuttingDown);
      if (wantsEventStream(req.headers.accept)) return runEvents(await runs.stream(auth.projectId, body, abort));
      const claim = idempotencyClaim(req.headers['idempotency-key'], 'run_prompt', rawBody);
      return { status: 200, body: await runs.run(auth.projectId, body, abort, claim), floatKeys: FLOAT_KEYS };
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
  registerRoute(app, access, {
    method: 'POST',
    url: '/prompts/:prompt_id/versions/:version/run',
    operationId: 'runVersion',
    summary: 'Run any version, maybe on another model, as a playground run',
    description:
      "Renders and runs one version of a live prompt, whatever its labels, on its model or the body's `model`, and stores it as a run with source 'playground': never part of an experiment, not counted in the prompt's stats. Costs what a run costs.",
    tags: ['runs'],
    role: 'admin',
    strict: true,
    params: VersionParams,
    body: PlaygroundRunBody,
    response: { 200: RunPromptResponse, 404: Detail, 502: Detail, 503: Detail, 504: Detail, ...AUTH_ERRORS },
    eventStream: EVENT_STREAM,
    handler: async ({ params, body, auth, req, reply }) => {
      const abort = abortedWhenConnectionCloses(reply, shuttingDown);
      if (wantsEventStream(req.headers.accept)) {
        return runEvents(await runs.streamChosen(auth.projectId, params.prompt_id, params.version, body, abort));
      }
      return { status: 200, body: await runs.runChosen(auth.projectId, params.prompt_id, params.version, body, abort), floatKeys: FLOAT_KEYS };
    },
  });
  registerRoute(app, access, {
    method: 'GET',
    url: '/prompts/:prompt_id/stats',
    operationId: 'promptStats',
    summary: "A prompt's numbers per version over a window",
    description:
      'Per version with served runs in [since, until) (default the last 7 days, at most 90): runs, errors, error rate, nearest-rank latency p50/p95 of the runs that succeeded, tokens and cost. Playground runs are not counted.',
    tags: ['runs'],
    role: 'read',
    strict: true,
    params: PromptIdParams,
    query: StatsQuery,
    response: { 200: PromptStatsSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, query, auth }) => ({
      status: 200,
      body: await runs.stats(auth.projectId, params.prompt_id, query),
      floatKeys: STATS_FLOAT_KEYS,
    }),
  });
}
