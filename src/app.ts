import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { createExternalChangeWatcher } from './db/externalChanges.js';
import { openStore, type Store } from './db/store.js';
import type { Clock } from './lib/clock.js';
import { registerRawBodyParser } from './http/body.js';
import { installErrorHandler } from './http/errorHandler.js';
import { installRoutingAnswers } from './http/routing.js';
import { installAccessLog } from './http/accessLog.js';
import { createAccessControl } from './modules/keys/access.js';
import { createReadinessCheck } from './modules/operations/readiness.js';
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

  const { limits } = config;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]'], censor: '[redacted]' },
    },
    // One compact access line per request (installAccessLog) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    routerOptions: { maxParamLength: 1024 },
    return503OnClosing: true,
    // A client has this long to send its whole request (headers and body), then gets a 408: a
    // stalled upload cannot hold a connection. Answers may take longer (a model call), so no
    // inactivity timeout is set on the socket itself.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      // Node checks those two timeouts on this period (30 s by default): often enough to honour them.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    trustProxy: limits.trustProxy,
  });
  // Beyond this many open connections new ones are refused at once, so descriptors stay for the rest of the process.
  if (limits.maxConnections > 0) app.server.maxConnections = limits.maxConnections;
  const gateway = deps.gateway ?? createModelGateway(config.providers, app.log);

  registerRawBodyParser(app, config.bodyLimitBytes);
  installRoutingAnswers(app);
  installErrorHandler(app);
  installAccessLog(app);
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await registerOpenApi(app, SERVICE_VERSION);

  const keys = createKeyService(store);
  const promptCache = createPromptCache(db);
  const renderLimits = { maxBytes: limits.renderMaxBytes, maxSteps: limits.renderMaxSteps };
  const prompts = createPromptService(store, promptCache, (model) => gateway.isConfigured(model), renderLimits);
  const router = createExperimentRouter(store);
  const experiments = createExperimentService(store, (projectId, promptId) => router.invalidate(projectId, promptId));
  const runs = createRunService({ store, cache: promptCache, experiments: router, gateway, defaultModel: config.defaultModel, renderLimits });
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

  const authenticate = createAccessControl(keys, limits);
  registerGetPromptRoute(app, authenticate, promptCache, router, renderLimits);
  registerRunRoutes(app, authenticate, runs);
  registerOutcomeRoutes(app, authenticate, outcomes);
  registerPromptRoutes(app, authenticate, prompts);
  registerExperimentRoutes(app, authenticate, experiments);
  registerResultsRoutes(app, authenticate, results);
  registerKeyRoutes(app, authenticate, keys);

  app.get('/healthz', { schema: { summary: 'Liveness: 200 while the process is up', tags: ['operations'] } }, (_req, reply) =>
    sendJson(reply, 200, { status: 'ok' }));
  const readiness = createReadinessCheck(store, migrations);
  app.get('/readyz', { schema: { summary: 'Readiness: the database answers, migrations are applied, writes commit', tags: ['operations'] } }, async (_req, reply) => {
    try {
      const state = await readiness();
      return state.ready ? sendJson(reply, 200, { status: 'ready' }) : sendJson(reply, 503, { status: 'not ready', reason: state.reason });
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
    /**
     * Stops in order; a step that fails (a full disk refusing the last exposure counts or the
     * checkpoint) is logged as a warning and the rest still runs, so shutdown always completes.
     * Nothing acknowledged depends on these steps: it was committed before its answer.
     */
    async close() {
      const step = async (name: string, run: () => unknown) => {
        try {
          await run();
        } catch (error) {
          app.log.warn({ err: error }, `shutdown: ${name} failed`);
        }
      };
      if (store.writer.storageFailure !== null) {
        app.log.warn({ err: store.writer.storageFailure }, 'shutting down while the storage refuses writes: exposure counts of the last second may be lost');
      }
      await step('closing the server', () => app.close());
      await step('flushing exposure counts', () => router.close());
      await step('stopping the results worker', () => results.close());
      await step('flushing the writer', () => store.writer.flush());
      await step('closing provider connections', () => gateway.close());
      await step('checkpointing the WAL', () => db.pragma('wal_checkpoint(TRUNCATE)'));
      db.close();
    },
  };
}

