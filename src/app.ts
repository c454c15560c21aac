import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { type ChangeFeed, listenForChanges } from './db/changeFeed.js';
import { createExternalChangeWatcher } from './db/externalChanges.js';
import { openLiveness, openStore, type Store } from './db/store.js';
import type { Clock } from './lib/clock.js';
import { createHttpServer } from './http/server.js';
import type { AccessCheck } from './http/access.js';
import { keepThrownErrors, operatorCaller } from './http/operator.js';
import { registerConsole } from './http/console.js';
import { createMetrics, type Metrics } from './http/metrics.js';
import { noTelemetry } from './lib/telemetry.js';
import { observeGateway } from './providers/observed.js';
import { createModelGateway, type ModelGateway } from './providers/gateway.js';
import { createAccessControl } from './modules/keys/access.js';
import type { KeyService } from './modules/keys/keys.service.js';
import type { createProjectService } from './modules/projects/projects.service.js';
import { readExperiment, runningCheckedExperiments, runningExperimentIds, runningExperimentsHealth } from './modules/experiments/experiments.service.js';
import { createScheduler, type Scheduler } from './modules/scheduler/scheduler.js';
import { createResultsRunner } from './modules/results/resultsRunner.js';
import { createRunTextRetention, type RunTextRetention } from './modules/runs/textRetention.js';
import { createReadinessCheck } from './modules/operations/readiness.js';
import { registerOperationsRoutes } from './modules/operations/operations.routes.js';
import { createOnlineScorer, type OnlineScorer } from './modules/onlineScoring/onlineScorer.js';
import { evaluatorFacts } from './modules/evaluators/evaluators.service.js';
import { promptFacts } from './modules/prompts/prompts.service.js';
import { createEvaluationRunner, type EvaluationRunner } from './modules/evaluations/evaluationRunner.js';
import type { InputShapeRecorder } from './modules/inputs/inputShapeRecorder.js';
import { createWebhookDispatcher, type WebhookDispatcher } from './modules/webhooks/dispatcher.js';
import { createExperimentSignalWatcher, type ExperimentSignalWatcher } from './modules/webhooks/experimentSignals.js';
import { SERVICE_VERSION } from './version.js';
import { datasetFacts } from './modules/datasets/datasets.service.js';
import { storeEvaluationRun } from './modules/runs/runs.service.js';
import { createServices } from './services.js';
import { forgetChanged } from './cachedChanges.js';
import { registerRoutes } from './routes.js';
import { CLI_ACTOR } from './modules/changes/changeLog.js';

/** How often runs past PROMPTLINE_RUN_TEXT_RETENTION_DAYS lose their text. */
const RETENTION_INTERVAL_MS = 60_000;
/** How soon a queued webhook delivery (or a retry that fell due) is sent. */
const WEBHOOK_POLL_MS = 1_000;
/** How often the evaluation queue is looked at (a new evaluation also wakes it), and a lease that ended taken over. */
const EVALUATION_POLL_MS = 1_000;
/** Housekeeping of abandoned sliced writes: their hold (PROMPTLINE_SLICED_WRITE_HOLD_MS, 15 s) is long; a minute is soon enough. */
const HOUSEKEEPING_MS = 60_000;
/** How often running experiments are looked at for srm_detected and decision_changed (only where subscribed). */
const SIGNAL_INTERVAL_MS = 60_000;
/** How often the scheduler looks for a rollout or bandit check that fell due (each is due hourly). */
const SCHEDULER_POLL_MS = 30_000;
/** How often attached evaluators score the live runs that settled since their last pass. */
const ONLINE_SCORING_POLL_MS = 2_000;

export interface AppDeps {
  clock?: Clock;
  /** Tests pass their own gateway options; production builds one from the config. */
  gateway?: ModelGateway;
  /**
   * false: no timer sends webhook deliveries or checks experiment signals; the caller does
   * (`webhooks.dispatcher.deliverDue()`, `webhooks.signals.checkOnce()`). Tests that step the queue
   * by hand use it, so a slow machine cannot have a timer's pass race theirs.
   */
  webhookTimers?: boolean;
  /** false: no timer runs the scheduler's passes; the caller does (`scheduler.runDue()`), as tests that drive the clock. */
  schedulerTimers?: boolean;
  /** How far behind the newest runs online scoring stays (default 5 minutes); tests set 0 and step it with `onlineScorer.scoreDue()` (timers off with webhookTimers: false). */
  onlineScoringSettleMs?: number;
  /**
   * The CLI's own app on the local database (src/cli/api/local.ts), called in-process, never listening:
   * requests with this token are the operator's (http/operator.ts). It also leaves out what only a
   * server that keeps running needs: the change feed, the retention timer and the console.
   */
  operatorToken?: string;
}

export interface PromptlineApp {
  app: FastifyInstance;
  store: Store;
  keys: KeyService;
  /** Projects by name: the CLI resolves `--project` with it. */
  projects: ReturnType<typeof createProjectService>;
  /** Prometheus metrics, when PROMPTLINE_METRICS is on or PROMPTLINE_METRICS_PORT is set. */
  metrics: Metrics | null;
  /** The run-text retention sweep, when PROMPTLINE_RUN_TEXT_RETENTION_DAYS is set (it also runs every minute). */
  retention: RunTextRetention | null;
  /** The summary of callers' input names (written every PROMPTLINE_INPUT_SUMMARY_FLUSH_MS; tests may flush it). */
  inputShapes: InputShapeRecorder;
  /** The webhook queue's sender and the experiment watcher (both also run on timers). */
  webhooks: { dispatcher: WebhookDispatcher; signals: ExperimentSignalWatcher };
  /** Checks running rollouts and bandits (also on a timer, unless schedulerTimers is false). */
  scheduler: Scheduler;
  /** Scores the sampled live runs of prompts with attached evaluators (also on a timer). */
  onlineScorer: OnlineScorer;
  /** The background runner of evaluations (docs/evaluations.md): it also runs on a timer in a server. */
  evaluations: EvaluationRunner;
  /** One housekeeping pass now (it runs at start and every minute in a server): what sliced writes cut short left. */
  housekeeping(): Promise<unknown>;
  /** Runs the start-up bootstrap (the configured or a first generated admin key); returns the key to print once, if any. */
  bootstrap(): Promise<string | null>;
  /** At the shutdown deadline: closes every connection still open; model calls cut there are recorded as cut by the shutdown. */
  cutOpenConnections(): void;
  close(): Promise<void>;
}

/**
 * Builds the whole service on the configured SQLite file; never listens (tests use `app.inject`).
 * The services are wired in `createServices` (services.ts); this adds what only the server has:
 * the routes, the change feed, metrics, the retention sweep, the webhook sender and the results worker.
 */
export async function buildApp(config: Config, deps: AppDeps = {}): Promise<PromptlineApp> {
  // The gauges read the database at scrape time; `store` exists by then.
  const metrics = config.metrics.enabled || config.metrics.port !== null ? createMetrics(() => runningExperimentsHealth(store.sql)) : null;
  const telemetry = metrics?.telemetry ?? noTelemetry;
  const store = await openStore(config, deps.clock, telemetry);
  const app = await createHttpServer(config, SERVICE_VERSION);
  const baseGateway = deps.gateway ?? createModelGateway(config.providers, app.log);
  const gateway = metrics === null ? baseGateway : observeGateway(baseGateway, telemetry);
  const renderLimits = { maxBytes: config.limits.renderMaxBytes, maxSteps: config.limits.renderMaxSteps };

  // On PostgreSQL the caches are used only while the change feed vouches for them (changeFeed.ts);
  // a SQLite file's other writers are seen before every request, so its caches are always fresh.
  let changeFeed: ChangeFeed | null = null;
  const cachesTrusted = () => changeFeed === null || changeFeed.isFresh();
  const results = createResultsRunner(
    { dataDir: config.dataDir, databaseUrl: config.databaseUrl, timeoutMs: config.postgres.reportTimeoutMs },
    store.clock,
    (error) => app.log.error({ err: error }, 'results worker failed'),
  );
  const services = createServices(store, {
    telemetry,
    cachesTrusted,
    webhooksAllowPrivate: config.webhooksAllowPrivate,
    reports: results,
    onEvaluationQueued: () => void evaluationRunner.poll().catch((error: unknown) => app.log.warn({ err: error }, 'starting an evaluation failed')),
    slicedWriteHoldMs: config.slicedWriteHoldMs,
    runtime: {
      gateway,
      defaultModel: config.defaultModel,
      renderLimits,
      bodyLimitBytes: config.bodyLimitBytes,
      onExposureFlushError: (error) => app.log.warn({ err: error }, 'storing exposure call counts failed'),
      inputSummaryFlushMs: config.inputSummaryFlushMs,
      onInputSummaryError: (error) => app.log.warn({ err: error }, 'storing the summary of input names failed'),
    },
  });
  const { projects, keys, sessions, router, inputShapes, checkers } = services;

  const forgetCached = forgetChanged(services);
  if (store.sqlite !== null) {
    const checkExternalChanges = createExternalChangeWatcher(store.sqlite, () => forgetCached(null));
    app.addHook('onRequest', (_req, _reply, done) => {
      checkExternalChanges();
      done();
    });
  } else if (deps.operatorToken === undefined) {
    changeFeed = listenForChanges({
      url: config.databaseUrl!,
      timeoutMs: config.postgres.timeoutMs,
      stalenessBoundMs: config.postgres.stalenessBoundMs,
      onChange: forgetCached,
      onError: (error) => app.log.warn({ err: error }, "listening for other replicas' changes failed"),
    });
    // A replica starting up is ready once it listens (or has failed to, and says so on /readyz).
    await changeFeed.started;
  }

  if (metrics !== null) {
    // Route templates, never raw paths: an id in a URL must not become a label value.
    app.addHook('onResponse', (req, reply, done) => {
      telemetry.request(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }
  if (metrics !== null && config.metrics.enabled) {
    app.get(
      '/metrics',
      {
        schema: {
          operationId: 'getMetrics',
          summary: 'Prometheus metrics (PROMPTLINE_METRICS=on; no key: keep the port to your network)',
          description:
            "The process's metrics in Prometheus' text format: requests, model calls with their tokens and cost, commits, caches and running experiments. No key needed.",
          tags: ['operations'],
          security: [],
        },
      },
      async (_req, reply) => reply.header('content-type', metrics.contentType).send(await metrics.render()),
    );
  }

  // The background passes, each on its own timer (unref'd, cleared first on close); a pass that
  // fails is logged, never thrown. `when` false: the caller steps it by hand (tests), or the CLI's app.
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, what: string, pass: () => Promise<unknown>, when: boolean) => {
    if (!when) return;
    const timer = setInterval(() => void pass().catch((error: unknown) => app.log.warn({ err: error }, `${what} failed`)), ms);
    timer.unref();
    timers.push(timer);
  };
  const server = deps.operatorToken === undefined;

  const retention = config.runTextRetentionDays === null || !server ? null : createRunTextRetention(store, config.runTextRetentionDays, projects);
  let sweeping: Promise<unknown> = Promise.resolve();
  // One sweep at a time: each pass waits for the one before (whose failure its own pass logged).
  every(RETENTION_INTERVAL_MS, 'run text retention', () => (sweeping = sweeping.catch(() => undefined).then(() => retention?.sweepOnce())), retention !== null);

  const dispatcher = createWebhookDispatcher(store, { allowPrivate: config.webhooksAllowPrivate, log: app.log, version: SERVICE_VERSION });
  const signals = createExperimentSignalWatcher(store, runningExperimentIds, (projectId, experimentId) => results.results(projectId, experimentId, {}));
  every(WEBHOOK_POLL_MS, 'webhook delivery pass', () => dispatcher.deliverDue(), deps.webhookTimers !== false);
  every(SIGNAL_INTERVAL_MS, 'experiment signal check', () => signals.checkOnce(), deps.webhookTimers !== false);
  // A judge attached to a prompt calls its prompt as evaluations do: runs of source 'evaluation'.
  const judging = { prompts: promptFacts, call: services.runs.runForEvaluation, storeRun: storeEvaluationRun };
  const onlineScorer = createOnlineScorer(store, evaluatorFacts, judging, { log: app.log, settleMs: deps.onlineScoringSettleMs });
  every(ONLINE_SCORING_POLL_MS, 'online scoring pass', () => onlineScorer.scoreDue(), deps.webhookTimers !== false && server);
  // Whether the process that holds a lease still runs: a check cut off by a crash is taken over at once.
  const liveness = openLiveness(config, store);
  const scheduler = createScheduler(store, checkers, { checkedExperiments: runningCheckedExperiments, experiment: readExperiment }, app.log, liveness);
  every(SCHEDULER_POLL_MS, 'scheduler pass', () => scheduler.runDue(), deps.schedulerTimers !== false && server);
  // Evaluation work yields to the event loop between items, so runtime requests come first. The
  // CLI's in-process app has no timer: it runs the evaluations it queues (`eval run` without --url).
  const evaluationRunner = createEvaluationRunner(store, {
    call: (projectId, promptId, version, inputs) => services.runs.runForEvaluation(projectId, promptId, version, inputs),
    storeRun: storeEvaluationRun,
    items: datasetFacts.items,
    log: app.log,
    leaseMs: config.evaluationLeaseMs,
  });
  every(EVALUATION_POLL_MS, 'evaluation queue pass', () => evaluationRunner.poll(), server);
  // What a write done in slices leaves when its process dies (src/db/slices.ts): never visible, deleted
  // here once its hold has ended; at start (after a crash) and then every HOUSEKEEPING_MS.
  let housekeeping: Promise<unknown> = Promise.resolve();
  const housekeepingPass = () =>
    (housekeeping = housekeeping
      .catch(() => undefined)
      .then(async () => {
        await services.evaluations.housekeeping();
        await services.datasets.housekeeping();
      }));
  every(HOUSEKEEPING_MS, 'housekeeping', housekeepingPass, server);
  if (server) void housekeepingPass().catch((error: unknown) => app.log.warn({ err: error }, 'housekeeping failed'));

  const keyAccess = createAccessControl(keys, config.limits, sessions);
  const access: AccessCheck =
    deps.operatorToken === undefined
      ? keyAccess
      : { check: keyAccess.check, checkSession: keyAccess.checkSession, operator: operatorCaller(deps.operatorToken, CLI_ACTOR.keyName) };
  if (!server) keepThrownErrors(app);
  // Aborted at the shutdown deadline, just before the connections still open are closed.
  const cutByShutdown = new AbortController();
  registerRoutes(app, access, services, { results, scheduler, cutByShutdown: cutByShutdown.signal });
  const feed = changeFeed;
  registerOperationsRoutes(app, createReadinessCheck(store, store.migrations, feed === null ? undefined : () => feed.freshness()));
  if (server) await registerConsole(app);
  await app.ready();

  return {
    app,
    store,
    keys,
    projects,
    metrics,
    retention,
    inputShapes,
    webhooks: { dispatcher, signals },
    scheduler,
    onlineScorer,
    evaluations: evaluationRunner,
    housekeeping: housekeepingPass,
    async bootstrap() {
      const { printedKey } = await keys.bootstrap(config.bootstrapAdminKey);
      return printedKey;
    },
    cutOpenConnections() {
      cutByShutdown.abort();
      app.server.closeAllConnections();
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
      for (const timer of timers) clearInterval(timer);
      await step('finishing the retention sweep', () => sweeping);
      await step('finishing housekeeping', () => housekeeping);
      await step('stopping webhook deliveries', () => dispatcher.close());
      await step('finishing online scoring', () => onlineScorer.close());
      await step('stopping the scheduler', () => scheduler.close());
      // Calls in flight finish and are recorded; the leases are released for the next start.
      await step('stopping evaluations', () => evaluationRunner.close());
      await step('closing the server', () => app.close());
      // After the last request: a check asked for settles its lease before this process's identity goes.
      await step('giving up the process identity of its leases', () => liveness.close());
      await step('stopping the change feed', () => changeFeed?.close());
      await step('flushing exposure counts', () => router.close());
      await step('flushing the summary of input names', () => inputShapes.close());
      await step('stopping the results worker', () => results.close());
      await step('flushing the writer', () => store.writer.flush());
      await step('closing provider connections', () => gateway.close());
      const { sqlite } = store;
      // The CLI's app leaves the WAL to the server that may be running on the same file, as the CLI always has.
      if (sqlite !== null && server) await step('checkpointing the WAL', () => sqlite.pragma('wal_checkpoint(TRUNCATE)'));
      await step('closing the database', () => store.close());
    },
  };
}
