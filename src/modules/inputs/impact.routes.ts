import type { FastifyInstance } from 'fastify';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import type { ImpactService } from './impact.service.js';
import { ImpactParams, ImpactQuery, ImpactSchema } from './impact.schemas.js';

export function registerImpactRoutes(app: FastifyInstance, access: AccessCheck, impact: ImpactService): void {
  registerRoute(app, access, {
    method: 'GET',
    url: '/prompts/:prompt_id/versions/:version/impact',
    operationId: 'getVersionImpact',
    summary: 'Which recent callers a version would break on a label (advisory)',
    description:
      'Compares the version with what the label serves now: the variables it needs that the served one does not, how many calls of the last window_hours did not send them, how many sent no external_user_id, and the experiment running on the prompt. Nothing is refused because of it.',
    tags: ['prompts'],
    role: 'read',
    strict: true,
    params: ImpactParams,
    query: ImpactQuery,
    response: { 200: ImpactSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, query, auth }) => ({ status: 200, body: await impact.impact(auth.projectId, params.prompt_id, params.version, query) }),
  });
}
