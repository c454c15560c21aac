import type { FastifyInstance } from 'fastify';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import type { OutcomeService } from './outcomes.service.js';
import { idempotencyClaim } from '../idempotency/idempotency.js';
import { ListOutcomesQuery, OutcomePageSchema, TrackOutcomeRequest, TrackOutcomeResponse } from './outcomes.schemas.js';

export function registerOutcomeRoutes(app: FastifyInstance, access: AccessCheck, outcomes: OutcomeService): void {
  registerRoute(app, access, {
    method: 'POST',
    url: '/track_outcome',
    operationId: 'trackOutcome',
    summary: 'Track Outcome',
    description:
      "Records what happened after a prompt was served (an event, a value, a success), attributed to the run's or the user's experiment variant. Retry safely with an Idempotency-Key.",
    tags: ['runtime'],
    role: 'runtime',
    strict: false,
    body: TrackOutcomeRequest,
    response: { 200: TrackOutcomeResponse, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ body, rawBody, auth, req }) => ({
      status: 200,
      body: await outcomes.track(auth.projectId, body, idempotencyClaim(req.headers['idempotency-key'], 'track_outcome', rawBody)),
    }),
  });
  registerRoute(app, access, {
    method: 'GET',
    url: '/outcomes',
    operationId: 'listOutcomes',
    summary: 'List outcomes, newest first',
    description: 'Lists stored outcomes a page at a time, filtered by prompt, experiment, variant, user, time, event type and run.',
    tags: ['outcomes'],
    role: 'read',
    strict: true,
    query: ListOutcomesQuery,
    response: { 200: OutcomePageSchema, ...AUTH_ERRORS },
    handler: async ({ query, auth }) => ({ status: 200, body: await outcomes.list(auth.projectId, query) }),
  });
}
