import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { actorOf } from '../changes/changeLog.js';
import type { EvaluatorService } from './evaluators.service.js';
import {
  CreateEvaluatorBody,
  EvaluatorIdParams,
  EvaluatorPageSchema,
  EvaluatorSchema,
  EvaluatorVersionListSchema,
  EvaluatorVersionParams,
  EvaluatorVersionSchema,
  ListEvaluatorsQuery,
  NewEvaluatorVersionBody,
} from './evaluators.schemas.js';

export function registerEvaluatorRoutes(app: FastifyInstance, access: AccessCheck, evaluators: EvaluatorService): void {
  const admin = { tags: ['evaluators'], role: 'admin' as const, strict: true };
  const read = { tags: ['evaluators'], role: 'read' as const, strict: true };

  registerRoute(app, access, {
    ...admin,
    method: 'POST',
    url: '/evaluators',
    operationId: 'createEvaluator',
    summary: 'Create an evaluator (its version 1): a kind and its settings',
    description:
      'Creates a named evaluator of one kind (exact_match, contains, regex, json_schema, numeric, length, llm_judge) with its settings as version 1. Patterns the linear-time engine cannot run (back-references, look-arounds) and schemas that do not compile are refused (422).',
    body: CreateEvaluatorBody,
    response: { 201: EvaluatorSchema, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ body, auth }) => ({ status: 201, body: await evaluators.create(auth.projectId, body, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/evaluators',
    operationId: 'listEvaluators',
    summary: 'List evaluators, newest first',
    description: 'Lists the evaluators of the project with their latest versions a page at a time (limit, cursor), archived ones only with include_archived.',
    query: ListEvaluatorsQuery,
    response: { 200: EvaluatorPageSchema, ...AUTH_ERRORS },
    handler: async ({ query, auth }) => ({ status: 200, body: await evaluators.list(auth.projectId, query) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/evaluators/:evaluator_id',
    operationId: 'getEvaluator',
    summary: 'One evaluator with its latest version',
    description: 'Answers one evaluator with its latest version.',
    params: EvaluatorIdParams,
    response: { 200: EvaluatorSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await evaluators.get(auth.projectId, params.evaluator_id) }),
  });

  registerRoute(app, access, {
    ...admin,
    method: 'DELETE',
    url: '/evaluators/:evaluator_id',
    operationId: 'archiveEvaluator',
    summary: 'Archive an evaluator: still readable, no new versions',
    description: 'Archives an evaluator: its versions stay readable; a new version answers 409 from then on.',
    params: EvaluatorIdParams,
    response: { 204: Type.Null(), 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => {
      await evaluators.archive(auth.projectId, params.evaluator_id, actorOf(auth));
      return { status: 204 };
    },
  });

  registerRoute(app, access, {
    ...admin,
    method: 'POST',
    url: '/evaluators/:evaluator_id/versions',
    operationId: 'createEvaluatorVersion',
    summary: 'Update an evaluator: a new version with these settings (same kind)',
    description: "Adds the evaluator's next version with the settings given (defaults for those left out); the kind stays the evaluator's.",
    params: EvaluatorIdParams,
    body: NewEvaluatorVersionBody,
    response: { 201: EvaluatorVersionSchema, 404: Detail, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({ status: 201, body: await evaluators.newVersion(auth.projectId, params.evaluator_id, body, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/evaluators/:evaluator_id/versions',
    operationId: 'listEvaluatorVersions',
    summary: 'The versions of an evaluator, newest first',
    description: 'Lists every version of an evaluator, newest first, with its settings.',
    params: EvaluatorIdParams,
    response: { 200: EvaluatorVersionListSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await evaluators.versions(auth.projectId, params.evaluator_id) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/evaluators/:evaluator_id/versions/:version',
    operationId: 'getEvaluatorVersion',
    summary: 'One version of an evaluator',
    description: 'Answers one version of an evaluator with its settings.',
    params: EvaluatorVersionParams,
    response: { 200: EvaluatorVersionSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await evaluators.version(auth.projectId, params.evaluator_id, params.version) }),
  });
}
