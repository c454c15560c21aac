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
  PatchPromptBody,
  PromptIdParams,
  PromptPageSchema,
  PromptSchema,
  PromptWithVersionSchema,
  RenderBody,
  RenderResponse,
  VersionListSchema,
  VersionParams,
  VersionSchema,
} from './prompts.schemas.js';
import { actorOf } from '../changes/changeLog.js';

export function registerPromptRoutes(app: FastifyInstance, access: AccessCheck, prompts: PromptService, serving: ServingService): void {
  registerRoute(app, access, {
    method: 'POST',
    url: '/get_prompt',
    operationId: 'getPrompt',
    summary: 'Get Prompt',
    description:
      'Renders the prompt with inputs for your own model call: the version labelled production (else the latest), or the variant a running experiment assigns to external_user_id. Nothing is run.',
    tags: ['runtime'],
    role: 'runtime',
    // The console's playground calls it with its session cookie (docs/console.md, "Signing in").
    session: true,
    strict: false,
    body: GetPromptRequest,
    response: { 200: GetPromptResponse, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ body, auth }) => ({ status: 200, body: await serving.getPrompt(auth.projectId, body) }),
  });

  const tags = ['prompts'];
  registerRoute(app, access, {
    method: 'POST',
    url: '/prompts',
    operationId: 'createPrompt',
    summary: 'Create a prompt (and its version 1 when content is given)',
    description: "Creates a prompt in the key's project; given a template or messages, also its version 1, with the labels named.",
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
    operationId: 'listPrompts',
    summary: 'List prompts, newest first',
    description: "Lists the prompts of the key's project a page at a time (limit, cursor), archived ones only with include_archived.",
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
    operationId: 'getPromptDetails',
    summary: 'One prompt with its labels and latest version',
    description: 'Answers one prompt with its labels and its latest version.',
    tags,
    role: 'read',
    strict: true,
    params: PromptIdParams,
    response: { 200: PromptSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await prompts.get(auth.projectId, params.prompt_id) }),
  });
  registerRoute(app, access, {
    method: 'PATCH',
    url: '/prompts/:prompt_id',
    operationId: 'updatePrompt',
    summary: 'Mark a prompt managed in Git, or change its description',
    description:
      'Sets managed_in_git (the console then warns before an edit made there) or the description; give at least one. Versions and labels are unchanged.',
    tags,
    role: 'admin',
    strict: true,
    params: PromptIdParams,
    body: PatchPromptBody,
    response: { 200: PromptSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({ status: 200, body: await prompts.update(auth.projectId, params.prompt_id, body, actorOf(auth)) }),
  });
  registerRoute(app, access, {
    method: 'DELETE',
    url: '/prompts/:prompt_id',
    operationId: 'archivePrompt',
    summary: 'Archive a prompt: runtime calls answer 404 from then on',
    description: 'Archives a prompt: it stays readable here, and runtime calls for it answer 404 from then on.',
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
    operationId: 'createVersion',
    summary: 'Create a new immutable version',
    description:
      'Adds an immutable version (a template or chat messages, the model and its parameters, fallbacks) with the next number, and moves the labels named to it.',
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
    operationId: 'listVersions',
    summary: 'List versions, newest first',
    description: 'Lists every version of a prompt, newest first.',
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
    operationId: 'getVersion',
    summary: 'One version',
    description: 'Answers one version of a prompt, with the variables its template reads.',
    tags,
    role: 'read',
    strict: true,
    params: VersionParams,
    response: { 200: VersionSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await prompts.getVersion(auth.projectId, params.prompt_id, params.version) }),
  });
  registerRoute(app, access, {
    method: 'POST',
    url: '/prompts/:prompt_id/versions/:version/render',
    operationId: 'renderVersion',
    summary: 'Render any version with inputs (nothing served, assigned or stored)',
    description:
      'Renders one version of a live prompt as /get_prompt would serve it, whatever its labels: the playground. Missing variables answer the same 422 as /get_prompt.',
    tags,
    role: 'read',
    strict: true,
    params: VersionParams,
    body: RenderBody,
    response: { 200: RenderResponse, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({
      status: 200,
      body: await serving.renderChosen(auth.projectId, params.prompt_id, params.version, body.inputs ?? {}),
    }),
  });
  registerRoute(app, access, {
    method: 'PUT',
    url: '/prompts/:prompt_id/labels/:label',
    operationId: 'moveLabel',
    summary: 'Point a label at a version (moves it)',
    description: 'Points a label at a version, creating it or moving it from the version it was on; production is the label runtime calls are served.',
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
    operationId: 'deleteLabel',
    summary: 'Remove a label',
    description: 'Removes a label from the prompt; the version it pointed at stays.',
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
