import type { FastifyInstance } from 'fastify';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import { ExperimentIdParams } from '../experiments/experiments.schemas.js';
import { CheckAnswerSchema, CheckListSchema } from './scheduler.schemas.js';
import type { Scheduler } from './scheduler.js';

export function registerSchedulerRoutes(app: FastifyInstance, access: AccessCheck, scheduler: Scheduler): void {
  const tags = ['experiments'];
  registerRoute(app, access, {
    method: 'POST',
    url: '/experiments/:experiment_id/check',
    operationId: 'checkExperiment',
    summary: 'Run one check of a rollout or bandit now, and answer what it did',
    description:
      'Runs the check the scheduler runs every hour, now (a rollout: guardrails tested, then hold, advance, roll back or ship); the scheduled times stay as they were. An A/B experiment answers action none. 409 when the experiment is not running, or when another running process is checking it: then with Retry-After (seconds), also said in the detail. A check cut off by a process that died (kill -9) does not hold it: its lease is taken over at once.',
    tags,
    role: 'admin',
    strict: true,
    params: ExperimentIdParams,
    response: { 200: CheckAnswerSchema, 404: Detail, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await scheduler.checkNow(auth.projectId, params.experiment_id) }),
  });
  registerRoute(app, access, {
    method: 'GET',
    url: '/experiments/:experiment_id/checks',
    operationId: 'listExperimentChecks',
    summary: 'The checks made of a rollout or bandit, oldest first (its timeline)',
    description: 'Lists every check of the experiment, scheduled or asked for: what it did, why, and the figures it read.',
    tags,
    role: 'read',
    strict: true,
    params: ExperimentIdParams,
    response: { 200: CheckListSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: { data: await scheduler.timeline(auth.projectId, params.experiment_id) } }),
  });
}
