import type { FastifyInstance } from 'fastify';
import type { AccessCheck } from './http/access.js';
import { registerAuditRoutes } from './modules/audit/audit.routes.js';
import { registerDatasetRoutes } from './modules/datasets/datasets.routes.js';
import { registerEvaluationRoutes } from './modules/evaluations/evaluations.routes.js';
import { registerEvaluatorRoutes } from './modules/evaluators/evaluators.routes.js';
import { registerExperimentRoutes } from './modules/experiments/experiments.routes.js';
import { registerImpactRoutes } from './modules/inputs/impact.routes.js';
import { registerKeyRoutes } from './modules/keys/keys.routes.js';
import { registerOnlineScoringRoutes } from './modules/onlineScoring/onlineScoring.routes.js';
import { registerOutcomeRoutes } from './modules/outcomes/outcomes.routes.js';
import { registerPromptRoutes } from './modules/prompts/prompts.routes.js';
import { registerSyncRoutes } from './modules/prompts/sync.routes.js';
import type { ResultsRunner } from './modules/results/resultsRunner.js';
import { registerResultsRoutes } from './modules/results/results.routes.js';
import { registerRunRoutes } from './modules/runs/runs.routes.js';
import type { Scheduler } from './modules/scheduler/scheduler.js';
import { registerSchedulerRoutes } from './modules/scheduler/scheduler.routes.js';
import { registerSdkRoutes } from './modules/sdk/sdk.routes.js';
import { registerSessionRoutes } from './modules/sessions/sessions.routes.js';
import { registerUserRoutes } from './modules/users/users.routes.js';
import { registerWebhookRoutes } from './modules/webhooks/webhooks.routes.js';
import type { RuntimeServices } from './services.js';

/** The server's own parts that answer requests besides the services: results run on the worker, checks on the scheduler. */
interface RouteExtras {
  results: ResultsRunner;
  scheduler: Scheduler;
  /** Aborted at the shutdown deadline: model calls still running are cut, and recorded as cut by the shutdown. */
  cutByShutdown: AbortSignal;
}

/** Every module's routes (the operations routes and the console are the app's own, app.ts). */
export function registerRoutes(app: FastifyInstance, access: AccessCheck, services: RuntimeServices, extras: RouteExtras): void {
  registerPromptRoutes(app, access, services.prompts, services.serving);
  registerSyncRoutes(app, access, services.sync);
  registerImpactRoutes(app, access, services.impact);
  registerSdkRoutes(app, access, services.sdk);
  registerRunRoutes(app, access, services.runs, extras.cutByShutdown);
  registerOutcomeRoutes(app, access, services.outcomes);
  registerExperimentRoutes(app, access, services.experiments);
  registerResultsRoutes(app, access, extras.results);
  registerSchedulerRoutes(app, access, extras.scheduler);
  registerKeyRoutes(app, access, services.keys);
  registerSessionRoutes(app, access, services.sessions);
  registerUserRoutes(app, access, services.users);
  registerAuditRoutes(app, access, services.audit);
  registerWebhookRoutes(app, access, services.webhooks);
  registerDatasetRoutes(app, access, services.datasets);
  registerEvaluatorRoutes(app, access, services.evaluators);
  registerOnlineScoringRoutes(app, access, services.onlineScoring);
  registerEvaluationRoutes(app, access, services.evaluations, extras.cutByShutdown);
}
