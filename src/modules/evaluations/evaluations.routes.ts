import type { FastifyInstance } from 'fastify';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { eventStreamAnswer, sseFrame, wantsEventStream } from '../../http/sse.js';
import { progressFrames } from './progressEvents.js';
import type { EvaluationService } from './evaluations.service.js';
import {
  CreateEvaluationBody,
  CreatedEvaluationSchema,
  EvaluationIdParams,
  EvaluationItemPageSchema,
  EvaluationItemsQuery,
  EvaluationPageSchema,
  EvaluationSchema,
  ListEvaluationsQuery,
} from './evaluations.schemas.js';

const PROGRESS_EVENTS =
  'Sent when the request says Accept: text/event-stream: server-sent events, each an `event:` line and one `data:` line of JSON. `progress`: {"status", "progress": {"done", "total", "cost_usd", "eta_seconds"}}, at once and then whenever it changes (checked twice a second); the stream ends with one `end`: the whole Evaluation, once it has ended (completed, cancelled, budget_exhausted or failed).';

export function registerEvaluationRoutes(app: FastifyInstance, access: AccessCheck, evaluations: EvaluationService, shuttingDown: AbortSignal): void {
  const admin = { tags: ['evaluations'], role: 'admin' as const, strict: true };
  const read = { tags: ['evaluations'], role: 'read' as const, strict: true };

  registerRoute(app, access, {
    ...admin,
    method: 'POST',
    url: '/evaluations',
    operationId: 'createEvaluation',
    summary: 'Start an evaluation: two versions of a prompt scored on a dataset version, in the background',
    description:
      "Resolves the versions (numbers or labels), the dataset version (default its latest) and each evaluator's latest version, queues one work item per dataset item and version, and answers 202 at once; the evaluation runs in the background (GET /evaluations/{id} for its progress and results). Model calls are stored as runs of source `evaluation`.",
    body: CreateEvaluationBody,
    response: { 202: CreatedEvaluationSchema, ...AUTH_ERRORS },
    handler: async ({ body, auth }) => ({ status: 202, body: await evaluations.create(auth.projectId, body) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/evaluations',
    operationId: 'listEvaluations',
    summary: 'List evaluations, newest first',
    description: 'Lists the evaluations of the project (optionally of one prompt) a page at a time, with their status and progress.',
    query: ListEvaluationsQuery,
    response: { 200: EvaluationPageSchema, ...AUTH_ERRORS },
    handler: async ({ query, auth }) => ({ status: 200, body: await evaluations.list(auth.projectId, query) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/evaluations/:evaluation_id',
    operationId: 'getEvaluation',
    summary: 'One evaluation: status, progress, and per evaluator the paired comparison',
    description:
      'Answers the status, the progress (done, total, cost so far, ETA) and, per evaluator, the paired comparison of the candidate with the baseline over the items both were scored on so far.',
    params: EvaluationIdParams,
    response: { 200: EvaluationSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await evaluations.get(auth.projectId, params.evaluation_id) }),
  });

  registerRoute(app, access, {
    ...admin,
    method: 'POST',
    url: '/evaluations/:evaluation_id/cancel',
    operationId: 'cancelEvaluation',
    summary: 'Cancel an evaluation: no further item is started',
    description:
      'Stops the evaluation: items not started are skipped, calls in flight finish and are recorded. Answers the evaluation; cancelling one that has ended changes nothing.',
    params: EvaluationIdParams,
    response: { 200: EvaluationSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await evaluations.cancel(auth.projectId, params.evaluation_id) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/evaluations/:evaluation_id/items',
    operationId: 'listEvaluationItems',
    summary: "An evaluation's items side by side",
    description:
      "Each item's inputs, expected value, both versions' outputs, scores (with a judge's reasoning) and run ids, in the dataset's order, a page at a time.",
    params: EvaluationIdParams,
    query: EvaluationItemsQuery,
    response: { 200: EvaluationItemPageSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, query, auth }) => ({ status: 200, body: await evaluations.items(auth.projectId, params.evaluation_id, query) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/evaluations/:evaluation_id/events',
    operationId: 'evaluationEvents',
    summary: "An evaluation's progress as server-sent events",
    description:
      'With Accept: text/event-stream, the progress as it changes until the evaluation ends; otherwise the evaluation as GET /evaluations/{id} answers it.',
    params: EvaluationIdParams,
    response: { 200: EvaluationSchema, 404: Detail, ...AUTH_ERRORS },
    eventStream: PROGRESS_EVENTS,
    handler: async ({ params, auth, req, reply }) => {
      const first = await evaluations.get(auth.projectId, params.evaluation_id);
      if (!wantsEventStream(req.headers.accept)) return { status: 200, body: first };
      const closed = new AbortController();
      reply.raw.on('close', () => closed.abort());
      shuttingDown.addEventListener('abort', () => closed.abort(), { once: true });
      const events = progressFrames(() => evaluations.get(auth.projectId, params.evaluation_id), first, closed.signal);
      return eventStreamAnswer(
        (async function* () {
          for await (const e of events) yield sseFrame(e.event, e.data);
        })(),
      );
    },
  });
}
