import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { timeBound, toPage } from '../../db/pagination.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { invalid, notFound } from '../../lib/errors.js';
import { ModelCallError, type ModelGateway, type ModelRequest, type ModelResult } from '../../providers/gateway.js';
import { nanoToUsd } from '../../providers/prices.js';
import { answerOf, storeFailure, withResult } from './runRecords.js';
import { streamRun, type RunStream } from './runStream.js';
import type { RenderedPrompt, ServedPrompt } from '../prompts/serving.js';
import type { CompiledVersion } from '../prompts/versionContent.js';
import { findRun, findRunAttribution, insertRun, listRuns, type RunAttribution, type RunListQuery, type RunRecord, type RunSource } from './runs.repo.js';
import type { ListRunsInput, PlaygroundRunInput, PromptStats, RunAnswer, RunListItem, RunPromptInput, RunView, StatsInput } from './runs.schemas.js';
import { promptStats } from './promptStats.js';
import { withIdempotency, type IdempotencyClaim } from '../idempotency/idempotency.js';

function runView(run: RunRecord): RunView {
  const { id, rendered, cost_nano_usd: costNanoUsd, ...rest } = run;
  return {
    run_id: id,
    prompt_id: rest.prompt_id,
    prompt_version: rest.prompt_version,
    experiment_id: rest.experiment_id,
    variant: rest.variant,
    external_user_id: rest.external_user_id,
    inputs: rest.inputs,
    rendered_prompt: rendered.text,
    messages: rendered.messages,
    output: rest.output,
    model_requested: rest.model_requested,
    model_used: rest.model_used,
    prompt_tokens: rest.prompt_tokens,
    completion_tokens: rest.completion_tokens,
    total_tokens: rest.total_tokens,
    cached_tokens: rest.cached_tokens,
    reasoning_tokens: rest.reasoning_tokens,
    tokens_estimated: rest.tokens_estimated,
    token_cost_usd: nanoToUsd(costNanoUsd),
    cost_known: rest.cost_known,
    price: rest.price,
    latency_ms: rest.latency_ms,
    ttft_ms: rest.ttft_ms,
    status: rest.status,
    error: rest.error,
    attempts: rest.attempts,
    created_at: rest.created_at,
    source: rest.source,
  };
}

/**
 * What a run needs of prompt serving: the version (and variant) to serve a user, or a version the
 * playground chose, rendered with the inputs.
 */
interface PromptServing {
  resolve(projectId: string, promptId: string, externalUserId: string | null, inputs: Record<string, unknown>): Promise<ServedPrompt>;
  chosenVersion(projectId: string, promptId: string, version: number): Promise<CompiledVersion>;
  /** A version rendered with the inputs (the playground's: no experiment is involved). */
  render(version: CompiledVersion, inputs: Record<string, unknown>): RenderedPrompt;
  /** What a caller was served, rendered; a failed render of an experiment's variant is counted as its error, then thrown. */
  renderServed(projectId: string, served: ServedPrompt, inputs: Record<string, unknown>): Promise<RenderedPrompt>;
}

/** The fields of a run that come from its request. */
interface RunRequest {
  prompt_id: string;
  inputs: Record<string, unknown>;
  external_user_id?: string | null | undefined;
  source: RunSource;
}

export function createRunService(deps: {
  store: Store;
  serving: PromptServing;
  gateway: ModelGateway;
  defaultModel: string;
  /** Throws the prompt's 404 unless it exists in the project (archived ones too: their numbers stay readable). */
  requirePrompt: (projectId: string, promptId: string) => Promise<void>;
}) {
  const { store, gateway } = deps;

  function baseRun(input: RunRequest, served: ServedPrompt, rendered: RenderedPrompt, model: string): RunRecord {
    return {
      id: newId('run'),
      prompt_id: input.prompt_id,
      prompt_version: served.version.version,
      experiment_id: served.experimentId,
      variant: served.variant,
      external_user_id: input.external_user_id ?? null,
      source: input.source,
      inputs: input.inputs,
      rendered: { text: rendered.text, messages: rendered.messages },
      output: null,
      model_requested: model,
      model_used: null,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cached_tokens: 0,
      reasoning_tokens: 0,
      tokens_estimated: false,
      cost_nano_usd: 0,
      cost_known: true,
      price: null,
      latency_ms: 0,
      ttft_ms: null,
      status: 'ok',
      error: null,
      attempts: [],
      created_at: isoNow(store.clock),
    };
  }

  /** What the gateway is asked for a run: its model, fallbacks, messages and params. */
  function modelRequest(
    run: RunRecord,
    version: CompiledVersion,
    rendered: RenderedPrompt,
    fallbacks: readonly string[],
    abort: AbortController,
  ): ModelRequest {
    return { model: run.model_requested, fallbacks: [...fallbacks], messages: rendered.messages, params: version.params, abort, promptText: rendered.text };
  }

  /**
   * Executes a rendered prompt and answers the run to store, or stores the failed run and rethrows.
   * An overloaded gateway never reached a provider: nothing ran, so nothing is recorded.
   */
  async function execute(projectId: string, run: RunRecord, request: ModelRequest): Promise<{ stored: RunRecord; answer: RunAnswer }> {
    let result: ModelResult;
    try {
      result = await gateway.execute(request);
    } catch (error) {
      await storeFailure(store, projectId, run, error);
      throw error;
    }
    const stored = withResult(run, result);
    return { stored, answer: answerOf(stored) };
  }

  /** A served run (POST /run_prompt): its version (an experiment's variant, or production), rendered, and the model call. */
  async function servedRun(projectId: string, input: RunPromptInput, abort: AbortController): Promise<{ run: RunRecord; request: ModelRequest }> {
    const served = await deps.serving.resolve(projectId, input.prompt_id, input.external_user_id ?? null, input.inputs);
    const rendered = await deps.serving.renderServed(projectId, served, input.inputs);
    const model = served.version.model ?? deps.defaultModel;
    const run = baseRun({ ...input, source: 'api' }, served, rendered, model);
    return { run, request: modelRequest(run, served.version, rendered, served.version.fallbacks, abort) };
  }

  /** A playground run: the chosen version, maybe on another model (then without the version's fallbacks). */
  async function chosenRun(
    projectId: string,
    promptId: string,
    number: number,
    input: PlaygroundRunInput,
    abort: AbortController,
  ): Promise<{ run: RunRecord; request: ModelRequest }> {
    const version = await deps.serving.chosenVersion(projectId, promptId, number);
    if (input.model != null && !gateway.isConfigured(input.model)) {
      throw invalid('body', ['model'], `provider '${input.model.split('/')[0]}' is not configured`);
    }
    const inputs = input.inputs ?? {};
    const rendered = deps.serving.render(version, inputs);
    const model = input.model ?? version.model ?? deps.defaultModel;
    const served: ServedPrompt = { version, experimentId: null, variant: null, user: input.external_user_id ?? null };
    const run = baseRun({ prompt_id: promptId, inputs, external_user_id: input.external_user_id, source: 'playground' }, served, rendered, model);
    return { run, request: modelRequest(run, version, rendered, input.model == null ? version.fallbacks : [], abort) };
  }

  return {
    /**
     * Serves, renders and executes a prompt, then stores the run before answering. Bad input (404,
     * 422) stores no run (a failed render of an experiment's variant counts as that variant's error:
     * serving.ts); a provider failure stores the run with status `error` and rethrows.
     */
    async run(projectId: string, input: RunPromptInput, abort: AbortController, claim: IdempotencyClaim | null = null): Promise<RunAnswer> {
      return await withIdempotency<RunAnswer>(store.sql, projectId, claim, async (remember) => {
        const { run, request } = await servedRun(projectId, input, abort);
        const { stored, answer } = await execute(projectId, run, request);
        // A concurrent twin with the same key that committed first makes this write fail: its run is the one on record.
        await store.writer.write(async (db) => {
          await insertRun(db, projectId, stored);
          await remember(db, answer, stored.created_at);
        });
        return answer;
      });
    },

    /**
     * The playground: runs a chosen version (any, not only the served one), maybe on another model,
     * and stores it as a playground run. It is never routed through an experiment: no variant, no
     * assignment, whatever `external_user_id` says. An overriding model runs alone, without the
     * version's fallbacks, so the answer is that model's.
     */
    async runChosen(projectId: string, promptId: string, number: number, input: PlaygroundRunInput, abort: AbortController): Promise<RunAnswer> {
      const { run, request } = await chosenRun(projectId, promptId, number, input, abort);
      const { stored, answer } = await execute(projectId, run, request);
      await store.writer.write((db) => insertRun(db, projectId, stored));
      return answer;
    },

    /**
     * One model call of an evaluation (src/modules/evaluations): a chosen version rendered with an
     * item's inputs, run on its own model, as a run of source 'evaluation' (never part of an
     * experiment, left out of a prompt's stats). A successful run is answered unstored, for the
     * evaluation to store in the same transaction as the item's result (`storeEvaluationRun`): one
     * commit per item, not two. A failed call is stored at once. A render failure (a variable the
     * item lacks) makes no call and no run: it is thrown, as is an overloaded gateway (busy).
     */
    async runForEvaluation(projectId: string, promptId: string, number: number, inputs: Record<string, unknown>): Promise<EvaluationCall> {
      const { run, request } = await chosenRun(projectId, promptId, number, { inputs }, new AbortController());
      const evaluationRun: RunRecord = { ...run, source: 'evaluation' };
      let result: ModelResult;
      try {
        result = await gateway.execute({ ...request });
      } catch (error) {
        // An overloaded gateway reached no provider: nothing ran, the evaluation may try again.
        if (error instanceof ModelCallError && error.kind === 'busy') throw error;
        await storeFailure(store, projectId, evaluationRun, error);
        return { run_id: run.id, output: null, error: error instanceof Error ? error.message : String(error), cost_nano_usd: 0, unstored: null };
      }
      const stored = withResult(evaluationRun, result);
      return { run_id: stored.id, output: stored.output, error: null, cost_nano_usd: stored.cost_nano_usd, unstored: stored };
    },

    /**
     * `run`, answered as it is generated (docs/streaming.md). Errors before the first token are
     * `run`'s; the run is stored when the stream ends. An Idempotency-Key is not honoured: a stream
     * cannot be replayed.
     */
    async stream(projectId: string, input: RunPromptInput, abort: AbortController): Promise<RunStream> {
      const { run, request } = await servedRun(projectId, input, abort);
      return streamRun(store, gateway, projectId, run, request);
    },

    /** `runChosen`, answered as it is generated. */
    async streamChosen(projectId: string, promptId: string, number: number, input: PlaygroundRunInput, abort: AbortController): Promise<RunStream> {
      const { run, request } = await chosenRun(projectId, promptId, number, input, abort);
      return streamRun(store, gateway, projectId, run, request);
    },

    async stats(projectId: string, promptId: string, query: StatsInput): Promise<PromptStats> {
      await deps.requirePrompt(projectId, promptId);
      return promptStats(store.sql, store.clock, projectId, promptId, query);
    },

    async get(projectId: string, runId: string): Promise<RunView> {
      const run = await findRun(store.sql, projectId, runId);
      if (run === undefined) throw notFound(`Run '${runId}' not found`);
      return runView(run);
    },

    async list(projectId: string, query: ListRunsInput) {
      const q: RunListQuery = {
        ...query,
        since: timeBound('since', query.since),
        until: timeBound('until', query.until),
        cursor: query.cursor,
        limit: query.limit ?? 50,
      };
      return toPage(await listRuns(store.sql, projectId, q), (run): RunListItem => ({ ...runView(run), truncated: run.leftOut }));
    },

    /** For an outcome's write (in its transaction): the run it names, as attribution needs it. */
    attributionOf: (db: Sql, projectId: string, runId: string): Promise<RunAttribution | undefined> => findRunAttribution(db, projectId, runId),
  };
}

export type RunService = ReturnType<typeof createRunService>;

/** What an evaluation keeps of one model call: the run's id, its output or error, its cost, and the run to store when it succeeded. */
export interface EvaluationCall {
  run_id: string;
  output: string | null;
  error: string | null;
  cost_nano_usd: number;
  /** The successful run, not yet stored: the evaluation stores it with the item's result. */
  unstored: RunRecord | null;
}

export type { RunRecord };

/** Stores an evaluation's successful run, in the evaluation's own transaction. */
export const storeEvaluationRun = (db: Sql, projectId: string, run: RunRecord): Promise<void> => insertRun(db, projectId, run);
