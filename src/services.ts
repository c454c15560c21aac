import type { Store } from './db/store.js';
import { noTelemetry, type Telemetry } from './lib/telemetry.js';
import type { ModelGateway } from './providers/gateway.js';
import { changeLogFor } from './changeLog.js';
import { createAuditService } from './modules/audit/audit.service.js';
import { createExperimentRouter } from './modules/experiments/experimentRouter.js';
import { createExperimentService, readExperiment } from './modules/experiments/experiments.service.js';
import type { ShipCheck } from './modules/experiments/shipGuard.js';
import { createRolloutCheck, type RolloutFactsSource } from './modules/experiments/rolloutCheck.js';
import { createBanditCheck, type BanditGuardrails } from './modules/experiments/banditCheck.js';
import { banditReportFor } from './modules/experiments/banditReads.js';
import { checkersByType } from './checks.js';
import { createKeyService } from './modules/keys/keys.service.js';
import { findKey } from './modules/keys/keys.repo.js';
import { createSessionService } from './modules/sessions/sessions.service.js';
import { createOutcomeService } from './modules/outcomes/outcomes.service.js';
import { createProjectService, defaultProject } from './modules/projects/projects.service.js';
import { createPromptCache } from './modules/prompts/promptCache.js';
import { createPromptService, promptFacts } from './modules/prompts/prompts.service.js';
import { createServingService } from './modules/prompts/serving.js';
import { createSyncService } from './modules/prompts/sync.service.js';
import type { RenderLimits } from './modules/prompts/template.js';
import { createResultsService } from './modules/results/results.service.js';
import type { MetricView } from './modules/results/results.schemas.js';
import { createRunService } from './modules/runs/runs.service.js';
import { createUserService } from './modules/users/users.service.js';
import { createWebhookService } from './modules/webhooks/webhooks.service.js';
import { createSdkService } from './modules/sdk/sdk.service.js';
import { promptsForBundle } from './modules/prompts/promptBundle.js';
import { experimentsForBundle } from './modules/experiments/experimentBundle.js';
import { recordReportedExposures } from './modules/experiments/reportedExposures.js';
import { RUNTIME_MAX } from './modules/runtimeLimits.js';
import { createImpactService } from './modules/inputs/impact.service.js';
import { createInputShapeRecorder } from './modules/inputs/inputShapeRecorder.js';
import { promptRequirements } from './modules/prompts/requirements.js';
import { runningExperimentOn } from './modules/experiments/runningExperiment.js';
import { createOnlineScoringService } from './modules/onlineScoring/onlineScoring.service.js';
import { createDatasetService, datasetFacts } from './modules/datasets/datasets.service.js';
import { createEvaluatorService, evaluatorFacts } from './modules/evaluators/evaluators.service.js';
import { createEvaluationService } from './modules/evaluations/evaluations.service.js';
import { matchingRunIds, runTexts } from './modules/runs/runSamples.js';

/** What every caller (the server and each CLI command) may set; the defaults are the CLI's. */
export interface ServiceOptions {
  /** Counters and gauges (the server with metrics on); none by default. */
  telemetry?: Telemetry;
  /** Whether caches may be used now (the server's change feed vouches for them); always by default. */
  cachesTrusted?: () => boolean;
  webhooksAllowPrivate?: boolean;
  /** Where a stop-and-ship reads the results it is checked against (the server: its results worker); this connection by default. */
  reports?: Pick<ReportServices['results'], 'results'>;
  /** An evaluation was queued: the server's runner looks at its queue at once rather than at its next poll. */
  onEvaluationQueued?: () => void;
  /** PROMPTLINE_SLICED_WRITE_HOLD_MS: how long a write done in slices may pause before it counts as abandoned. */
  slicedWriteHoldMs?: number;
}

/**
 * The serving side only the server has: model calls, and the caches and sticky assignments held
 * in memory (the experiment router flushes exposure counts on a timer, so a command never builds one).
 */
export interface RuntimeOptions {
  gateway: ModelGateway;
  defaultModel: string;
  renderLimits: RenderLimits;
  /** What the SDK bundle tells clients of the server's limits: requests beyond them go to the server. */
  bodyLimitBytes: number;
  /** A timed flush of exposure call counts failed. */
  onExposureFlushError: (error: unknown) => void;
  /** How often the summary of callers' input names is written (PROMPTLINE_INPUT_SUMMARY_FLUSH_MS; 5 s by default). */
  inputSummaryFlushMs?: number;
  /** A timed write of that summary (or its pruning) failed. */
  onInputSummaryError?: (error: unknown) => void;
}

function createCoreServices(store: Store, options: ServiceOptions, runtime: ReturnType<typeof createRuntimeCaches> | null) {
  const telemetry = options.telemetry ?? noTelemetry;
  const trusted = options.cachesTrusted ?? (() => true);
  // One change log, with all its subscribers, for every service that records changes.
  const changeLog = changeLogFor(store);
  const results = createReportServices(store).results;
  const experimentChanged = (projectId: string, promptId: string) => {
    runtime?.router.invalidate(projectId, promptId);
    runtime?.promptCache.invalidate(projectId, promptId); // a stop-and-ship (or a rollout's ship) moved production
  };
  return {
    changeLog,
    projects: createProjectService(store),
    keys: createKeyService(store, changeLog, defaultProject, telemetry, trusted),
    // Console sessions read their key on every request: a revoked key ends them at once.
    sessions: createSessionService(store, findKey),
    /** An evaluator metric names an evaluator of the project. */
    experiments: createExperimentService(store, changeLog, promptFacts, evaluatorFacts, experimentChanged, shipFactsFrom(options.reports ?? results)),
    /** What the scheduler runs for each experiment type (src/checks.ts). */
    checkers: checkersByType({
      rollout: createRolloutCheck(store, changeLog, promptFacts, rolloutFactsFrom(options.reports ?? results), experimentChanged),
      bandit: createBanditCheck(store, changeLog, promptFacts, banditGuardrailsFrom(options.reports ?? results), experimentChanged),
    }),
    // A forgotten user's id must not linger in the sticky assignments held in memory.
    users: createUserService(store, changeLog, () => runtime?.router.clear()),
    audit: createAuditService(store),
    /** Which recent callers a version would break (GET …/impact, and the CLI's start). */
    impact: createImpactService(store, { ...promptRequirements, runningExperimentOn }),
    webhooks: createWebhookService(store, changeLog, options.webhooksAllowPrivate ?? false),
    /** Datasets read a prompt's stored runs for from_runs. */
    datasets: createDatasetService(store, changeLog, { matchingRunIds, runTexts }, options.slicedWriteHoldMs),
    /** A judge evaluator names a prompt of the project. */
    evaluators: createEvaluatorService(store, changeLog, promptFacts),
    /** Evaluators attached to a prompt score a sample of its live runs (the scorer runs in app.ts). */
    onlineScoring: createOnlineScoringService(store, changeLog, promptFacts, evaluatorFacts),
    /** Evaluations read prompts, datasets and evaluators; the server's runner (app.ts) does their work. */
    evaluations: createEvaluationService(
      store,
      { prompts: promptFacts, datasets: datasetFacts, evaluators: evaluatorFacts },
      options.onEvaluationQueued,
      options.slicedWriteHoldMs,
    ),
    /** Computed on this connection; the server computes its reports in the results worker instead. */
    results,
  };
}

/** The ship guard's port: the exposures and decisions of the results with default options. */
function shipFactsFrom(reports: Pick<ReportServices['results'], 'results'>): ShipCheck {
  return async (projectId, experimentId) => {
    const report = await reports.results(projectId, experimentId, {});
    return {
      exposedUsers: report.variants.reduce((n, v) => n + v.users, 0),
      decisions: report.decisions.map(({ variant, decision, reason }) => ({ variant, decision, reason })),
    };
  };
}

/**
 * One variant's sums of a guardrail as the checks read them. A sum the report could not give as a
 * finite number (null) is NaN here, never 0: the checks read a figure they cannot compute as no
 * evidence (they hold), where a 0 would read as "no errors at all".
 */
function guardrailSums(m: MetricView, key: string) {
  const v = m.variants.find((x) => x.key === key);
  if (v === undefined) return { n: 0, sum: 0, sumSquares: 0 };
  return { n: v.n, sum: v.sum ?? Number.NaN, sumSquares: v.sum_squares ?? Number.NaN };
}

/** The bandit check's port: each guardrail's sums per variant, from the results with default options. */
function banditGuardrailsFrom(reports: Pick<ReportServices['results'], 'results'>): BanditGuardrails {
  return async (projectId, experimentId) => {
    const report = await reports.results(projectId, experimentId, {});
    return {
      control: report.control,
      guardrails: report.guardrails.map((m) => ({
        name: m.name,
        direction: m.direction,
        kind: m.kind,
        variants: Object.fromEntries(m.variants.map((v) => [v.key, guardrailSums(m, v.key)])),
      })),
    };
  };
}

/** The rollout check's port: exposed users and each guardrail's sums per variant, from the results with default options. */
function rolloutFactsFrom(reports: Pick<ReportServices['results'], 'results'>): RolloutFactsSource {
  return async (projectId, experimentId) => {
    const report = await reports.results(projectId, experimentId, {});
    const candidate = report.variants.find((v) => v.key !== report.control)?.key ?? '';
    return {
      users: report.variants.reduce((n, v) => n + v.users, 0),
      guardrails: report.guardrails.map((m) => ({
        name: m.name,
        kind: m.kind,
        direction: m.direction,
        control: guardrailSums(m, report.control),
        candidate: guardrailSums(m, candidate),
      })),
    };
  };
}

function createRuntimeCaches(store: Store, options: ServiceOptions, runtime: RuntimeOptions) {
  const telemetry = options.telemetry ?? noTelemetry;
  const trusted = options.cachesTrusted ?? (() => true);
  const sdk = createSdkService(
    store,
    { promptsForBundle, experimentsForBundle, recordExposures: recordReportedExposures },
    {
      render_max_bytes: runtime.renderLimits.maxBytes,
      render_max_steps: runtime.renderLimits.maxSteps,
      prompt_id_max_length: RUNTIME_MAX.promptId,
      external_user_id_max_length: RUNTIME_MAX.externalUserId,
      inputs_max_entries: RUNTIME_MAX.inputs,
      body_max_bytes: runtime.bodyLimitBytes,
    },
    trusted,
  );
  return {
    sdk,
    // The bundle is built from what the prompt cache holds, and every change that drops one drops the other.
    promptCache: createPromptCache(store.sql, telemetry, trusted, (projectId) => (projectId === null ? sdk.clear() : sdk.invalidate(projectId))),
    router: createExperimentRouter(store, telemetry, runtime.onExposureFlushError, trusted),
    /** The summary of the input names callers send, counted in memory and written on a timer. */
    inputShapes: createInputShapeRecorder(store, runtime.inputSummaryFlushMs ?? 5_000, runtime.onInputSummaryError),
  };
}

export type Services = ReturnType<typeof createCoreServices>;
export type RuntimeServices = Services & ReturnType<typeof createRuntime>;

function createRuntime(store: Store, options: ServiceOptions, runtime: RuntimeOptions) {
  const caches = createRuntimeCaches(store, options, runtime);
  const core = createCoreServices(store, options, caches);
  const prompts = createPromptService(store, core.changeLog, caches.promptCache, (model) => runtime.gateway.isConfigured(model), runtime.renderLimits);
  const serving = createServingService(caches.promptCache, caches.router, runtime.renderLimits, caches.inputShapes.record);
  /** A push of prompt files (POST /prompts/sync): breaking changes are measured as GET …/impact measures them. */
  const sync = createSyncService(prompts, core.impact.warningFor);
  const runs = createRunService({
    store,
    serving,
    gateway: runtime.gateway,
    defaultModel: runtime.defaultModel,
    requirePrompt: async (projectId, promptId) => void (await prompts.get(projectId, promptId)),
  });
  const outcomes = createOutcomeService({
    store,
    requirePrompt: (projectId, promptId) => serving.requirePrompt(projectId, promptId),
    runAttribution: runs.attributionOf,
    assignmentAttribution: core.experiments.attributionFor,
  });
  return { ...core, ...caches, prompts, serving, sync, runs, outcomes };
}

/**
 * The results worker's services (src/resultsWorker.ts): it holds a read snapshot and each request's
 * clock, and no store, writer or change log, so the results service is all it can have.
 */
export function createReportServices(source: Parameters<typeof createResultsService>[0]) {
  return { results: createResultsService(source, readExperiment, banditReportFor) };
}
type ReportServices = ReturnType<typeof createReportServices>;

/**
 * The one place that knows how services are wired: each gets its ports (the small interfaces it
 * declares of other modules) and the one change log here. The server passes `runtime` (model
 * calls and the caches held in memory); a CLI command gets the services that need only the store.
 */
export function createServices(store: Store, options: ServiceOptions & { runtime: RuntimeOptions }): RuntimeServices;
export function createServices(store: Store, options?: ServiceOptions): Services;
export function createServices(store: Store, options: ServiceOptions & { runtime?: RuntimeOptions } = {}): Services | RuntimeServices {
  return options.runtime === undefined ? createCoreServices(store, options, null) : createRuntime(store, options, options.runtime);
}
