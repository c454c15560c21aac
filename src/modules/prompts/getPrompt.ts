import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { registerRoute, type Authenticator } from '../../http/route.js';
import { AUTH_ERRORS, Detail, Nullable } from '../../http/commonSchemas.js';
import type { PromptCache } from './promptCache.js';
import { ChatMessageSchema } from './prompts.schemas.js';
import type { RenderLimits } from './template.js';
import { RUNTIME_MAX } from '../runtimeLimits.js';
import { renderVersion, resolveServedPrompt, type ExperimentRouter } from './serving.js';

/** contract.md §1, in declaration order (errors are reported in this order). */
export const GetPromptRequest = Type.Object({
  prompt_id: Type.String({ title: 'Prompt Id', maxLength: RUNTIME_MAX.promptId }),
  inputs: Type.Optional(Type.Record(Type.String(), Type.Any(), { default: {}, title: 'Inputs', maxProperties: RUNTIME_MAX.inputs })),
  external_user_id: Type.Optional(Nullable(Type.String({ title: 'External User Id', maxLength: RUNTIME_MAX.externalUserId }))),
}, { title: 'GetPromptRequest' });

export const GetPromptResponse = Type.Object({
  prompt_text: Type.String(),
  variant_assigned: Nullable(Type.String()),
  experiment_id: Nullable(Type.String()),
  prompt_version: Type.Integer(),
  messages: Type.Optional(Type.Array(ChatMessageSchema)),
}, { title: 'GetPromptResponse' });

export function registerGetPromptRoute(app: FastifyInstance, authenticate: Authenticator, cache: PromptCache, experiments: ExperimentRouter, limits: RenderLimits): void {
  registerRoute(app, authenticate, {
    method: 'POST', url: '/get_prompt', summary: 'Get Prompt', tags: ['runtime'],
    role: 'runtime', strict: false, body: GetPromptRequest,
    response: { 200: GetPromptResponse, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ body, rawBody, auth }) => {
      const userId = body.external_user_id ?? null;
      const served = await resolveServedPrompt(cache, experiments, auth.projectId, body.prompt_id, userId, rawBody);
      const rendered = renderVersion(served.version, body.inputs ?? {}, limits);
      return {
        status: 200,
        body: {
          prompt_text: rendered.text,
          variant_assigned: served.variant,
          experiment_id: served.experimentId,
          prompt_version: served.version.version,
          ...(served.version.kind === 'chat' ? { messages: rendered.messages } : {}),
        },
      };
    },
  });
}
