import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import type { KeyService } from './keys.service.js';
import { CreateKeyBody, CreatedKeySchema, KeyIdParams, PatchKeyBody, PublicKeySchema } from './keys.schemas.js';
import { actorOf } from '../changes/changeLog.js';

export function registerKeyRoutes(app: FastifyInstance, access: AccessCheck, keys: KeyService): void {
  registerRoute(app, access, {
    method: 'POST',
    url: '/keys',
    operationId: 'createKey',
    summary: 'Create an API key (the key is shown only in this answer)',
    description: 'Creates an API key of a role in the project, with an optional expiry and rate limit; the key itself is in this answer only.',
    tags: ['keys'],
    role: 'admin',
    strict: true,
    body: CreateKeyBody,
    response: { 201: CreatedKeySchema, ...AUTH_ERRORS },
    handler: async ({ body, auth }) => ({ status: 201, body: await keys.create(auth.projectId, body, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    method: 'PATCH',
    url: '/keys/:key_id',
    operationId: 'updateKey',
    summary: 'Rename a key or change its rate limit (effective on the next request)',
    description: 'Changes the name or the rate limit of a key.',
    tags: ['keys'],
    role: 'admin',
    strict: true,
    params: KeyIdParams,
    body: PatchKeyBody,
    response: { 200: PublicKeySchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({ status: 200, body: await keys.update(auth.projectId, params.key_id, body, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    method: 'GET',
    url: '/keys',
    operationId: 'listKeys',
    summary: 'List the API keys of the project (no secrets)',
    description: 'Lists the keys of the project with their role, prefix, expiry, revocation and rate limit, never the keys themselves.',
    tags: ['keys'],
    role: 'admin',
    strict: true,
    response: { 200: Type.Object({ data: Type.Array(PublicKeySchema) }), ...AUTH_ERRORS },
    handler: async ({ auth }) => ({ status: 200, body: { data: await keys.list(auth.projectId) } }),
  });

  registerRoute(app, access, {
    method: 'DELETE',
    url: '/keys/:key_id',
    operationId: 'revokeKey',
    summary: 'Revoke an API key, effective on the next request',
    description: 'Revokes a key: every request with it answers 401 from the next one on.',
    tags: ['keys'],
    role: 'admin',
    strict: true,
    params: KeyIdParams,
    response: { 204: Type.Null(), 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => {
      await keys.revoke(auth.projectId, params.key_id, actorOf(auth));
      return { status: 204 };
    },
  });
}
