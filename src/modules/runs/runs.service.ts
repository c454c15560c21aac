import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { HttpError, notFound } from '../../http/httpError.js';
import { ModelCallError, type ModelGateway, type ModelResult } from '../../providers/gateway.js';
import { nanoToUsd } from '../../providers/prices.js';
import type { PromptCache } from '../prompts/promptCache.js';
import type { RenderLimits } from '../prompts/template.js';
import { renderVersion, resolveServedPrompt, type ExperimentRouter, type RenderedPrompt, type ServedPrompt } from '../prompts/serving.js';
import { findRun, insertRun, listRuns, type RunListQuery, type RunRow } from './runs.repo.js';
import { page, pageBounds, type PageQuery } from './listParams.js';
import { isDuplicateClaim, remember, replay, type IdempotencyClaim } from '../idempotency/idempotency.js';

export interface RunPromptInput {
  prompt_id: string;
  inputs: Record<string, string>;
  external_user_id?: string | null;
}

export function runView(row: RunRow) {
  const rendered = JSON.parse(row.rendered) as { text: string; messages: Array<{ role: string; content: string }> };
  return {
    run_id: row.id,
    prompt_id: row.prompt_id,
    prompt_version: row.prompt_version,
    experiment_id: row.experiment_id,
    variant: row.variant,
    external_user_id: row.external_user_id,
    inputs: JSON.parse(row.inputs) as Record<string, unknown>,
    rendered_prompt: rendered.text,
    messages: rendered.messages,
    output: row.output,
    model_requested: row.model_requested,
    model_used: row.model_used,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    total_tokens: row.total_tokens,
    cached_tokens: row.cached_tokens,
    reasoning_tokens: row.reasoning_tokens,
    tokens_estimated: row.tokens_estimated === 1,
    token_cost_usd: nanoToUsd(row.cost_nano_usd),
    cost_known: row.cost_known === 1,
    price: row.price === null ? null : (JSON.parse(row.price) as Record<string, unknown>),
    latency_ms: row.latency_ms,
    status: row.status,
    error: row.error,
    attempts: JSON.parse(row.attempts) as unknown[],
    created_at: row.created_at,
  };
}

export function createRunService(deps: {
  store: Store;
  cache: PromptCache;
  experiments: ExperimentRouter;
  gateway: ModelGateway;
  defaultModel: string;
  renderLimits: RenderLimits;
}) {
  const { store, gateway } = deps;

  function baseRow(input: RunPromptInput, served: ServedPrompt, rendered: RenderedPrompt, model: string): RunRow {
    return {
      id: newId('run'),
      prompt_id: input.prompt_id,
      prompt_version: served.version.version,
      experiment_id: served.experimentId,
      variant: served.variant,
      external_user_id: input.external_user_id ?? null,
      inputs: JSON.stringify(input.inputs),
      rendered: JSON.stringify({ text: rendered.text, messages: rendered.messages }),
      output: null,
      model_requested: model,
      model_used: null,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cached_tokens: 0,
      reasoning_tokens: 0,
      tokens_estimated: 0,
      cost_nano_usd: 0,
      cost_known: 1,
      price: null,
      latency_ms: 0,
      status: 'ok',
      error: null,
      attempts: '[]',
      created_at: isoNow(store.clock),
    };
  }

  function withResult(row: RunRow, result: ModelResult): RunRow {
    return {
      ...row,
      output: result.output,
      model_used: result.modelUsed,
      prompt_tokens: result.promptTokens,
      completion_tokens: result.completionTokens,
      total_tokens: result.totalTokens,
      cached_tokens: result.cachedTokens,
      reasoning_tokens: result.reasoningTokens,
      tokens_estimated: result.tokensEstimated ? 1 : 0,
      cost_nano_usd: result.costNanoUsd,
      cost_known: result.costKnown ? 1 : 0,
      price: result.price === null ? null : JSON.stringify(result.price),
      latency_ms: result.latencyMs,
      attempts: JSON.stringify(result.attempts),
    };
  }

  return {
    /**
     * Serves, renders and executes a prompt, then stores the run before answering. Bad input (404,
     * 422) stores nothing; a provider failure stores the run with status `error` and answers 502/504.
     */
    async run(projectId: string, input: RunPromptInput, rawBody: unknown, signal: AbortSignal, claim: IdempotencyClaim | null = null): Promise<unknown> {
      const prior = claim && replay(store.db, projectId, claim);
      if (prior) return prior;
      const served = await resolveServedPrompt(deps.cache, deps.experiments, projectId, input.prompt_id, input.external_user_id ?? null, rawBody);
      const rendered = renderVersion(served.version, input.inputs, deps.renderLimits);
      const model = served.version.model ?? deps.defaultModel;
      const row = baseRow(input, served, rendered, model);
      let result: ModelResult;
      try {
        result = await gateway.execute({
          model, fallbacks: [...served.version.fallbacks], messages: rendered.messages, params: served.version.params, signal, promptText: rendered.text,
        });
      } catch (error) {
        if (!(error instanceof ModelCallError)) throw error;
        // An overloaded gateway never reached a provider: nothing ran, so nothing is recorded.
        if (error.statusCode !== 503) {
          await store.writer.write((db) => insertRun(db, projectId, {
            ...row, status: 'error', error: error.detail, latency_ms: error.latencyMs, attempts: JSON.stringify(error.attempts),
          }));
        }
        const headers: Record<string, string> = error.retryAfterSeconds !== undefined ? { 'retry-after': String(error.retryAfterSeconds) } : {};
        throw new HttpError(error.statusCode, error.detail, headers);
      }
      const stored = withResult(row, result);
      const answer = {
        run_id: stored.id,
        output: result.output,
        model_used: result.modelUsed,
        latency_ms: result.latencyMs,
        prompt_tokens: result.promptTokens,
        completion_tokens: result.completionTokens,
        total_tokens: result.totalTokens,
        token_cost_usd: nanoToUsd(result.costNanoUsd),
        variant_assigned: served.variant,
        experiment_id: served.experimentId,
        prompt_version: served.version.version,
      };
      try {
        await store.writer.write((db) => {
          insertRun(db, projectId, stored);
          if (claim) remember(db, projectId, claim, answer, stored.created_at);
        });
      } catch (error) {
        // A concurrent twin with the same key committed first: its run is the one on record.
        if (claim && isDuplicateClaim(error)) return replay(store.db, projectId, claim);
        throw error;
      }
      return answer;
    },

    get(projectId: string, runId: string) {
      const row = findRun(store.db, projectId, runId);
      if (row === undefined) throw notFound(`Run '${runId}' not found`);
      return runView(row);
    },

    list(projectId: string, query: PageQuery & Omit<RunListQuery, keyof ReturnType<typeof pageBounds>>) {
      return page(query.cursor, () => listRuns(store.db, projectId, { ...query, ...pageBounds(query) }), runView);
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
