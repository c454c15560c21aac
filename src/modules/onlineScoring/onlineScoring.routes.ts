import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AUTH_ERRORS, Detail } from '../../http/commonSchemas.js';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { actorOf } from '../changes/changeLog.js';
import type { OnlineScoringService } from './onlineScoring.service.js';
import {
  AttachBody,
  AttachmentParams,
  OnlineEvaluatorListSchema,
  OnlineEvaluatorSchema,
  PromptParams,
  RunParams,
  RunScoreListSchema,
} from './onlineScoring.schemas.js';

export function registerOnlineScoringRoutes(app: FastifyInstance, access: AccessCheck, online: OnlineScoringService): void {
  const admin = { tags: ['evaluators'], role: 'admin' as const, strict: true };
  const read = { tags: ['evaluators'], role: 'read' as const, strict: true };

  registerRoute(app, access, {
    ...admin,
    method: 'POST',
    url: '/prompts/:prompt_id/online_evaluators',
    operationId: 'attachOnlineEvaluator',
    summary: "Score a sampled share of a prompt's live runs with an evaluator",
    description:
      "Attaches an evaluator to a prompt: from now on, a share (sample_rate) of the prompt's successful /run_prompt runs is scored in the background, never in the request. An llm_judge evaluator calls its judge prompt for each sampled run (with no expected answer; its calls are runs of source evaluation and cost). Evaluators that need an expected answer (exact_match, numeric, contains without a value) are refused (422).",
    params: PromptParams,
    body: AttachBody,
    response: { 201: OnlineEvaluatorSchema, 404: Detail, 409: Detail, ...AUTH_ERRORS },
    handler: async ({ params, body, auth }) => ({ status: 201, body: await online.attach(auth.projectId, params.prompt_id, body, actorOf(auth)) }),
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/prompts/:prompt_id/online_evaluators',
    operationId: 'listOnlineEvaluators',
    summary: 'The evaluators scoring a prompt’s live runs',
    description: 'Lists the evaluators attached to a prompt with their sample rates.',
    params: PromptParams,
    response: { 200: OnlineEvaluatorListSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await online.list(auth.projectId, params.prompt_id) }),
  });

  registerRoute(app, access, {
    ...admin,
    method: 'DELETE',
    url: '/prompts/:prompt_id/online_evaluators/:evaluator_id',
    operationId: 'detachOnlineEvaluator',
    summary: 'Stop scoring a prompt’s live runs with an evaluator',
    description: 'Detaches the evaluator: no new run is scored; the scores already stored stay.',
    params: AttachmentParams,
    response: { 204: Type.Null(), 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => {
      await online.detach(auth.projectId, params.prompt_id, params.evaluator_id, actorOf(auth));
      return { status: 204 };
    },
  });

  registerRoute(app, access, {
    ...read,
    method: 'GET',
    url: '/runs/:run_id/scores',
    operationId: 'getRunScores',
    summary: 'The online scores of one run',
    description: 'Lists what the attached evaluators scored on this run (none when it was not in their samples, or not scored yet).',
    params: RunParams,
    response: { 200: RunScoreListSchema, 404: Detail, ...AUTH_ERRORS },
    handler: async ({ params, auth }) => ({ status: 200, body: await online.scoresOfRun(auth.projectId, params.run_id) }),
  });
}
