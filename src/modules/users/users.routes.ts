import type { FastifyInstance } from 'fastify';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { ForgottenSchema, UserParams } from './users.schemas.js';
import type { UserService } from './users.service.js';
import { actorOf } from '../changes/changeLog.js';

export function registerUserRoutes(app: FastifyInstance, access: AccessCheck, users: UserService): void {
  registerRoute(app, access, {
    method: 'DELETE',
    url: '/users/:external_user_id',
    operationId: 'eraseUser',
    summary: "Erase a user: their runs' text, their outcomes' free text and metadata; numbers and assignments stay under a random alias",
    description:
      "Erases a user's personal data (their runs' text, their outcomes' free text and metadata); their numbers and experiment assignments stay under a random alias, so results count the same users.",
    tags: ['users'],
    role: 'admin',
    strict: true,
    params: UserParams,
    response: { 200: ForgottenSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await users.forget(auth.projectId, params.external_user_id, actorOf(auth)) }),
  });
}
