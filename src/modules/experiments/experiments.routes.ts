import type { FastifyInstance } from 'fastify';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import type { ExperimentService } from './experiments.service.js';
import {
  CreateExperimentBody,
  ExperimentIdParams,
  ExperimentListSchema,
  ExperimentSchema,
  ListExperimentsQuery,
  PatchExperimentBody,
  StopExperimentBody,
} from './experiments.schemas.js';
import { actorOf } from '../changes/changeLog.js';

export function registerExperimentRoutes(app: FastifyInstance, access: AccessCheck, experiments: ExperimentService): void {
  const tags = ['experiments'];
  const errors = { 404: Detail, 409: Detail, ...AUTH_ERRORS };
  registerRoute(app, access, {
    method: 'POST',
    url: '/experiments',
    summary: 'Create an experiment (status draft)',
    tags,
    role: 'admin',
    strict: true,
    body: CreateExperimentBody,
    response: { 201: ExperimentSchema, ...errors },
    handler: async ({ body, auth }) => ({ status: 201, body: await experiments.create(auth.projectId, body, actorOf(auth)) }),
  });
  registerRoute(app, access, {
    method: 'GET',
    url: '/experiments',
    summary: 'List experiments, newest first',
    tags,
    role: 'read',
    strict: true,
    query: ListExperimentsQuery,
    response: { 200: ExperimentListSchema, ...AUTH_ERRORS },
    handler: async ({ query, auth }) => ({ status: 200, body: await experiments.list(auth.projectId, query) }),
  });
  registerRoute(app, access, {
    method: 'GET',
    url: '/experiments/:experiment_id',
    summary: 'One experiment',
    tags,
    role: 'read',
    strict: true,
    params: ExperimentIdParams,
    response: { 200: ExperimentSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await experiments.get(auth.projectId, params.experiment_id) }),
  });
  registerRoute(app, access, {
    method: 'PATCH',
    url: '/experiments/:experiment_id',
    summary: 'Change a draft or paused experiment',
    tags,
    role: 'admin',
    strict: true,
    params: ExperimentIdParams,
    body: PatchExperimentBody,
    response: { 200: ExperimentSchema, ...errors },
    handler: async ({ params, body, auth }) => ({ status: 200, body: await experiments.patch(auth.projectId, params.experiment_id, body, actorOf(auth)) }),
  });
  for (const action of ['start', 'pause'] as const) {
    registerRoute(app, access, {
      method: 'POST',
      url: `/experiments/:experiment_id/${action}`,
      summary: action === 'start' ? 'Start (or resume) an experiment' : 'Pause a running experiment',
      tags,
      role: 'admin',
      strict: true,
      params: ExperimentIdParams,
      response: { 200: ExperimentSchema, ...errors },
      handler: async ({ params, auth }) => ({
        status: 200,
        body: await experiments.transition(auth.projectId, params.experiment_id, action, {}, actorOf(auth)),
      }),
    });
  }
  registerRoute(app, access, {
    method: 'POST',
    url: '/experiments/:experiment_id/stop',
    summary: "Stop an experiment for good, optionally naming a winner and shipping it (production moves to the winner's version)",
    tags,
    role: 'admin',
    strict: true,
    params: ExperimentIdParams,
    body: StopExperimentBody,
    bodyOptional: true,
    response: { 200: ExperimentSchema, ...errors },
    handler: async ({ params, body, auth }) => ({
      status: 200,
      body: await experiments.transition(auth.projectId, params.experiment_id, 'stop', body ?? {}, actorOf(auth)),
    }),
  });
}
