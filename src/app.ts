import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { pendingMigrations } from './db/migrate.js';
import { prepared } from './db/prepared.js';
import { createExternalChangeWatcher } from './db/externalChanges.js';
import { openStore, type Store } from './db/store.js';
import type { Clock } from './lib/clock.js';
import { registerRawBodyParser } from './http/body.js';
import { installErrorHandler } from './http/errorHandler.js';
import { installRoutingAnswers } from './http/routing.js';
import { registerOpenApi } from './http/openapi.js';
import { sendJson } from './http/send.js';
import { createModelGateway, type ModelGateway } from './providers/gateway.js';
import { createKeyService, type KeyService } from './modules/keys/keys.service.js';
import { registerKeyRoutes } from './modules/keys/keys.routes.js';
import { createPromptCache } from './modules/prompts/promptCache.js';
import { createPromptService } from './modules/prompts/prompts.service.js';
import { registerPromptRoutes } from './modules/prompts/prompts.routes.js';
import { registerGetPromptRoute } from './modules/prompts/getPrompt.js';
import { createExperimentRouter } from './modules/experiments/experimentRouter.js';
import { createExperimentService } from './modules/experiments/experiments.service.js';
import { registerExperimentRoutes } from './modules/experiments/experiments.routes.js';
import { createResultsRunner } from './modules/results/resultsRunner.js';
import { registerResultsRoutes } from './modules/results/results.routes.js';
import { findAttributableAssignment } from './modules/experiments/experiments.repo.js';
import { createRunService } from './modules/runs/runs.service.js';
import { registerRunRoutes } from './modules/runs/runs.routes.js';
import { createOutcomeService, type AssignmentAttribution } from './modules/outcomes/outcomes.service.js';
import { registerOutcomeRoutes } from './modules/outcomes/outcomes.routes.js';
import { SERVICE_VERSION } from './version.js';

export interface AppDeps {
  clock?: Clock;
  /** Tests pass their own gateway options; production builds one from the config. */
  gateway?: ModelGateway;
}

export interface PromptlineApp {
  app: FastifyInstance;
  store: Store;
  keys: KeyService;
  /** Runs the start-up bootstrap of management.md; returns the key to print once, if any. */
  bootstrap(): Promise<string | null>;
  close(): Promise<void>;
}

/** Builds the whole service on the configured SQLite file; never listens (tests use `app.inject`). */
export async function buildApp(config: Config, deps: AppDeps = {}): Promise<PromptlineApp> {
  const store = openStore(config.dataDir, config.durability, deps.clock);
  const { db, migrations } = store;

  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]'], censor: '[redacted]' },
    },
    // One compact access line per request (onResponse below) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    routerOptions: { maxParamLength: 1024 },
    return503OnClosing: true,
  });
  const gateway = deps.gateway ?? createModelGateway(config.providers, app.log);

  registerRawBodyParser(app, config.bodyLimitBytes);
  installRoutingAnswers(app);
  installErrorHandler(app);
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await registerOpenApi(app, SERVICE_VERSION);

  const keys = createKeyService(store);
  const promptCache = createPromptCache(db);
  const prompts = createPromptService(store, promptCache, (model) => gateway.isConfigured(model));
  const router = createExperimentRouter(store);
  const experiments = createExperimentService(store, (projectId, promptId) => router.invalidate(projectId, promptId));
  const runs = createRunService({ store, cache: promptCache, experiments: router, gateway, defaultModel: config.defaultModel });
  const attribution: AssignmentAttribution = (db, projectId, promptId, userId) => {
    const found = findAttributableAssignment(db, projectId, promptId, userId);
    return found ? { experimentId: found.experiment_id, variant: found.variant } : null;
  };
  const outcomes = createOutcomeService(store, promptCache, attribution);
  const results = createResultsRunner(config.dataDir, (error) => app.log.error({ err: error }, 'results worker failed'));

  const checkExternalChanges = createExternalChangeWatcher(db, () => {
    keys.invalidate();
    promptCache.clear();
    router.clear();
  });
  app.addHook('onRequest', (_req, _reply, done) => {
    checkExternalChanges();
    done();
  });
  app.addHook('onResponse', (req, reply, done) => {
    req.log.info({ method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
    done();
  });

  const authenticate = (key: string) => keys.authenticate(key);
  registerGetPromptRoute(app, authenticate, promptCache, router);
  registerRunRoutes(app, authenticate, runs);
  registerOutcomeRoutes(app, authenticate, outcomes);
  registerPromptRoutes(app, authenticate, prompts);
  registerExperimentRoutes(app, authenticate, experiments);
  registerResultsRoutes(app, authenticate, results);
  registerKeyRoutes(app, authenticate, keys);

  app.get('/healthz', { schema: { summary: 'Liveness: 200 while the process is up', tags: ['operations'] } }, (_req, reply) =>
    sendJson(reply, 200, { status: 'ok' }));
  app.get('/readyz', { schema: { summary: 'Readiness: the database answers and migrations are applied', tags: ['operations'] } }, (_req, reply) => {
    try {
      prepared(db, 'SELECT 1').get();
      const pending = pendingMigrations(db, migrations);
      if (pending > 0) return sendJson(reply, 503, { status: 'not ready', reason: `${pending} migrations pending` });
      return sendJson(reply, 200, { status: 'ready' });
    } catch (error) {
      app.log.error({ err: error }, 'readiness check failed');
      return sendJson(reply, 503, { status: 'not ready', reason: 'database unavailable' });
    }
  });

  await app.ready();

  return {
    app,
    store,
    keys,
    async bootstrap() {
      const { printedKey } = await keys.bootstrap(config.bootstrapAdminKey);
      return printedKey;
    },
    async close() {
      await app.close();
      await router.close();
      await results.close();
      store.writer.flush();
      await gateway.close();
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}

