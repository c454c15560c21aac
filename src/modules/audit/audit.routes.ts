import type { FastifyInstance } from 'fastify';
import { AUTH_ERRORS } from '../../http/commonSchemas.js';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { AuditPageSchema, ListAuditQuery } from './audit.schemas.js';
import type { AuditService } from './audit.service.js';

export function registerAuditRoutes(app: FastifyInstance, access: AccessCheck, audit: AuditService): void {
  registerRoute(app, access, {
    method: 'GET',
    url: '/audit',
    operationId: 'listAuditEvents',
    summary: 'Who changed what, newest first: every change to prompts, versions, labels, experiments, keys and users',
    description: 'Lists the audit log of the project a page at a time, filtered by action, target, key and time.',
    tags: ['audit'],
    role: 'admin',
    strict: true,
    query: ListAuditQuery,
    response: { 200: AuditPageSchema, ...AUTH_ERRORS },
    handler: async ({ query, auth }) => ({ status: 200, body: await audit.list(auth.projectId, query) }),
  });
}
