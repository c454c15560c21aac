import type { FastifyInstance } from 'fastify';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import { sendJson } from '../../http/send.js';
import { promptFileJsonSchema } from '../../promptFiles/schema.js';
import { actorOf } from '../changes/changeLog.js';
import { SyncBody, SyncResponse } from './sync.schemas.js';
import type { SyncService } from './sync.service.js';

/** The prompt file's schema changes only with a release: editors and CI may keep it a day. */
const SCHEMA_MAX_AGE_S = 86_400;

export function registerSyncRoutes(app: FastifyInstance, access: AccessCheck, sync: SyncService): void {
  registerRoute(app, access, {
    method: 'POST',
    url: '/prompts/sync',
    operationId: 'syncPrompts',
    summary: 'Plan or apply a push of prompt files (all or nothing)',
    description:
      "Compares prompt files with the project's prompts and answers the plan: prompts to create, versions to add, labels to move, conflicts with changes made since the files were pulled, and breaking changes for the served version. Unless dry_run, applies it in one transaction; conflicts, and breaking changes without allow_breaking, answer 409 and change nothing.",
    tags: ['prompts'],
    role: 'admin',
    strict: true,
    body: SyncBody,
    response: { 200: SyncResponse, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ body, auth }) => ({ status: 200, body: await sync.sync(auth.projectId, body, actorOf(auth)) }),
  });

  const schema = {
    operationId: 'getPromptFileSchema',
    summary: 'The JSON Schema of prompt files',
    description: 'The JSON Schema of `<prompt_id>.prompt.yaml` files (docs/prompts-as-code.md), for editors and CI. No key needed.',
    tags: ['prompts'],
    security: [],
  };
  const document = promptFileJsonSchema();
  app.get('/schemas/prompt-file.json', { schema }, (_req, reply) => {
    reply.header('cache-control', `public, max-age=${SCHEMA_MAX_AGE_S}`);
    sendJson(reply, 200, document);
  });
}
