// A run's record made from what the model gateway answered: the stored row, the caller's answer,
// and the failed run stored when no answer came.
import type { Store } from '../../db/store.js';
import { ModelCallError, type ModelResult } from '../../providers/gateway.js';
import { nanoToUsd } from '../../providers/prices.js';
import type { AttemptRecord } from '../../providers/types.js';
import type { CompiledVersion } from '../prompts/versionContent.js';
import { outputVerdict, toolExtras } from './runExtensions.js';
import { insertRun, type RunRecord } from './runs.repo.js';
import type { RunAnswer } from './runs.schemas.js';

/**
 * What a model or provider sends back is stored as the client's text is, except what a backend
 * would not keep as sent: U+0000, which PostgreSQL's text cannot hold (SQLite can), and a lone
 * UTF-16 surrogate (a `\ud800` escape without its pair in the provider's JSON), which has no UTF-8
 * form (SQLite kept three U+FFFD, PostgreSQL one). Each becomes one U+FFFD on both backends, in the
 * answer too.
 */
export function storable(text: string): string {
  const whole = text.isWellFormed() ? text : text.toWellFormed();
  return whole.includes('\u0000') ? whole.replaceAll('\u0000', '\uFFFD') : whole;
}

function storableAttempts(attempts: readonly AttemptRecord[]): AttemptRecord[] {
  return attempts.map((a) => (a.error === null ? a : { ...a, error: storable(a.error) }));
}

/** The run of a model's answer, streamed or not: its output, tool calls and their verdict, usage and cost. */
export function withResult(run: RunRecord, version: CompiledVersion, result: ModelResult): RunRecord {
  return {
    ...run,
    ...outputVerdict(version, result),
    tool_calls:
      result.toolCalls.length === 0
        ? null
        : result.toolCalls.map((c) => ({
            id: storable(c.id),
            type: c.type,
            function: { name: storable(c.function.name), arguments: storable(c.function.arguments) },
          })),
    output: storable(result.output),
    model_used: result.modelUsed,
    prompt_tokens: result.promptTokens,
    completion_tokens: result.completionTokens,
    total_tokens: result.totalTokens,
    cached_tokens: result.cachedTokens,
    reasoning_tokens: result.reasoningTokens,
    tokens_estimated: result.tokensEstimated,
    cost_nano_usd: result.costNanoUsd,
    cost_known: result.costKnown,
    price: result.price,
    latency_ms: result.latencyMs,
    attempts: storableAttempts(result.attempts),
  };
}

/** The caller's answer (RunPromptResponse) for a stored run. */
export function answerOf(run: RunRecord): RunAnswer {
  return {
    run_id: run.id,
    output: run.output ?? '',
    model_used: run.model_used ?? run.model_requested,
    latency_ms: run.latency_ms,
    prompt_tokens: run.prompt_tokens,
    completion_tokens: run.completion_tokens,
    total_tokens: run.total_tokens,
    token_cost_usd: nanoToUsd(run.cost_nano_usd),
    variant_assigned: run.variant,
    experiment_id: run.experiment_id,
    prompt_version: run.prompt_version,
    ...toolExtras(run),
  };
}

/**
 * Stores the run of a model call that failed before any answer, then lets the caller rethrow. An
 * overloaded gateway never reached a provider: nothing ran, so nothing is recorded.
 */
export async function storeFailure(store: Store, projectId: string, run: RunRecord, error: unknown): Promise<void> {
  if (!(error instanceof ModelCallError) || error.kind === 'busy') return;
  await store.writer.write((db) =>
    insertRun(db, projectId, {
      ...run,
      status: 'error',
      error: storable(error.message),
      latency_ms: error.latencyMs,
      attempts: storableAttempts(error.attempts),
    }),
  );
}
