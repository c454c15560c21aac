import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import type { PromptService } from './prompts.service.js';
import type { ServingService } from './serving.js';
import {
  CreatePromptBody,
  CreateVersionBody,
  GetPromptRequest,
  GetPromptResponse,
  LabelParams,
  ListPromptsQuery,
  MoveLabelBody,
  PromptIdParams,
  PromptPageSchema,
  PromptSchema,
  PromptWithVersionSchema,
  VersionListSchema,
  VersionParams,
  VersionSchema,
} from './prompts.schemas.js';
import { actorOf } from '../changes/changeLog.js';

export function registerPromptRoutes(app: FastifyInstance, access: AccessCheck, prompts: PromptService, serving: ServingService): void {
  registerRoute(app, access, {
    method: 'POST',
    url: '/get_prompt',
    summary: 'Get Prompt',
    tags: ['runtime'],
    role: 'runtime',
    strict: false,
    body: GetPromptRequest,
    response: { 200: GetPromptResponse, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ body, auth }) => ({ status: 200, body: await serving.getPrompt(auth.projectId, body) }),
  });

  const tags = ['prompts'];
  registerRoute(app, access, {
    method: 'POST',
    url: '/prompts',
    summary: 'Create a prompt (and its version 1 when content is given)',
    tags,
    role: 'admin',
    strict: true,
    body: CreatePromptBody,
    response: { 201: PromptWithVersionSchema, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ body, auth }) => ({ status: 201, body: await prompts.create(auth.projectId, body, actorOf(auth)) }),
  });
  registerRoute(app, access, {
    method: 'GET',
    url: '/prompts',
    summary: 'List prompts, newest first',
    tags,
    role: 'read',
    strict: true,
    query: ListPromptsQuery,
    response: { 200: PromptPageSchema, ...AUTH_ERRORS },
    handler: async ({ query, auth }) => ({ status: 200, body: await prompts.list(auth.projectId, query) }),
  });
  registerRoute(app, access, {
    method: 'GET',
    url: '/prompts/:prompt_id',
    summary: 'One prompt with its labels and latest version',
    tags,
    role: 'read',
    strict: true,
    params: PromptIdParams,
    response: { 200: PromptSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await prompts.get(auth.projectId, params.prompt_id) }),
  });
  registerRoute(app, access, {
    method: 'DELETE',
    url: '/prompts/:prompt_id',
    summary: 'Archive a prompt: runtime calls answer 404 from then on',
    tags,
    role: 'admin',
    strict: true,
    params: PromptIdParams,
    response: { 204: Type.Null(), 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => {
      await prompts.archive(auth.projectId, params.prompt_id, actorOf(auth));
      return { status: 204 };
    },
  });
  registerRoute(app, access, {
    method: 'POST',
    url: '/prompts/:prompt_id/versions',
    summary: 'Create a new immutable version',
    tags,
    role: 'admin',
    strict: true,
    params: PromptIdParams,
    body: CreateVersionBody,
    response: { 201: VersionSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({ status: 201, body: await prompts.createVersion(auth.projectId, params.prompt_id, body, actorOf(auth)) }),
  });
  registerRoute(app, access, {
    method: 'GET',
    url: '/prompts/:prompt_id/versions',
    summary: 'List versions, newest first',
    tags,
    role: 'read',
    strict: true,
    params: PromptIdParams,
    response: { 200: VersionListSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: { data: await prompts.listVersions(auth.projectId, params.prompt_id) } }),
  });
  registerRoute(app, access, {
    method: 'GET',
    url: '/prompts/:prompt_id/versions/:version',
    summary: 'One version',
    tags,
    role: 'read',
    strict: true,
    params: VersionParams,
    response: { 200: VersionSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await prompts.getVersion(auth.projectId, params.prompt_id, params.version) }),
  });
  registerRoute(app, access, {
    method: 'PUT',
    url: '/prompts/:prompt_id/labels/:label',
    summary: 'Point a label at a version (moves it)',
    tags,
    role: 'admin',
    strict: true,
    params: LabelParams,
    body: MoveLabelBody,
    response: { 200: PromptSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({
      status: 200,
      body: await prompts.moveLabel(auth.projectId, params.prompt_id, params.label, body.version, actorOf(auth)),
    }),
  });
  registerRoute(app, access, {
    method: 'DELETE',
    url: '/prompts/:prompt_id/labels/:label',
    summary: 'Remove a label',
    tags,
    role: 'admin',
    strict: true,
    params: LabelParams,
    response: { 204: Type.Null(), 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => {
      await prompts.deleteLabel(auth.projectId, params.prompt_id, params.label, actorOf(auth));
      return { status: 204 };
    },
  });
}
