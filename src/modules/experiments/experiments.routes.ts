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
    operationId: 'createExperiment',
    summary: 'Create an experiment (status draft)',
    description: 'Creates a draft experiment between versions of a prompt, with its variants, weights, coverage and metrics; it serves nobody until started.',
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
    operationId: 'listExperiments',
    summary: 'List experiments, newest first',
    description: 'Lists the experiments of the project a page at a time, filtered by prompt and status.',
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
    operationId: 'getExperiment',
    summary: 'One experiment',
    description: 'Answers one experiment: its status, variants, weights, coverage and metrics.',
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
    operationId: 'updateExperiment',
    summary: 'Change a draft or paused experiment',
    description: 'Changes the fields given of an experiment that is a draft or paused (409 otherwise); users already assigned keep their variant.',
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
      operationId: action === 'start' ? 'startExperiment' : 'pauseExperiment',
      summary: action === 'start' ? 'Start (or resume) an experiment' : 'Pause a running experiment',
      description:
        action === 'start'
          ? 'Starts a draft or paused experiment: calls for its prompt must name external_user_id from then on, and each user is served their variant.'
          : 'Pauses a running experiment: everyone is served the production version until it is started again; assignments are kept.',
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
    operationId: 'stopExperiment',
    summary: "Stop an experiment for good, optionally naming a winner and shipping it (production moves to the winner's version)",
    description: "Stops an experiment for good; with a winner and ship: true, the production label moves to the winner's version in the same transaction.",
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
