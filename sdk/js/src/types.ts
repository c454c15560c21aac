import type { ChatRole } from './bundle.js';
import type { FallbackContent } from './fallback.js';

/** The client's options, the calls' parameters and results (camelCase here; snake_case on the wire). */

export interface PromptlineOptions {
  /** Where Promptline listens, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  apiKey: string;
  /** Deadline of each attempt of every call but runPrompt (default 5 000 ms). */
  timeoutMs?: number;
  /** Deadline of each attempt of runPrompt, which waits for the model (default 120 000 ms). */
  runTimeoutMs?: number;
  /** `local` (default): getPrompt from the bundle, in-process; `remote`: every getPrompt asks the server. */
  mode?: 'local' | 'remote';
  /** How often the bundle is asked for again (default 10 000 ms). */
  refreshMs?: number;
  /** Per prompt id, a template (or chat messages) to render when neither the bundle nor the server can answer. */
  fallbacks?: Record<string, FallbackContent>;
  /** Told of failures the client absorbed: a refresh or an exposure report that failed, a fallback served. */
  onError?: (error: unknown) => void;
  /** Attempts after the first for a call that failed transiently (default 2). */
  maxRetries?: number;
}

export interface GetPromptParams {
  promptId: string;
  inputs?: Record<string, unknown>;
  /** Required while an experiment runs on the prompt: the user the variant is for. */
  externalUserId?: string | null;
}

export interface PromptResult {
  promptText: string;
  variantAssigned: string | null;
  experimentId: string | null;
  /** Null for a fallback. */
  promptVersion: number | null;
  /** Chat prompts: the rendered messages. */
  messages?: Array<{ role: ChatRole; content: string }>;
  /** Who answered: the bundle (in-process), the server, or the caller's fallback. */
  source: 'bundle' | 'server' | 'fallback';
}

export interface RunPromptParams {
  promptId: string;
  inputs: Record<string, string>;
  externalUserId?: string | null;
}

export interface RunResult {
  runId: string;
  output: string;
  modelUsed: string;
  latencyMs: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  tokenCostUsd: number;
  variantAssigned: string | null;
  experimentId: string | null;
  promptVersion: number;
}

export interface TrackOutcomeParams {
  promptId: string;
  /** The runId of runPrompt's result: attributes the outcome to that run's variant. */
  promptRunId?: string;
  externalUserId?: string;
  eventType?: string;
  label?: string;
  value?: string;
  numericValue?: number;
  isSuccess?: boolean;
  source?: string;
  metadata?: Record<string, unknown>;
}

export interface OutcomeResult {
  outcomeId: string;
  status: string;
  experimentId: string | null;
  variantAssigned: string | null;
}

export interface ClientStats {
  /** getPrompt calls answered from the bundle. */
  bundleHits: number;
  /** Calls answered by the server. */
  serverCalls: number;
  fallbacks: number;
  refreshes: number;
  refreshFailures: number;
  /** Since the bundle in use was last confirmed by the server; null before any. */
  bundleAgeMs: number | null;
  exposuresPending: number;
  exposuresSent: number;
  exposuresDropped: number;
}

/** /run_prompt's answer on the wire. */
export interface WireRun {
  run_id: string;
  output: string;
  model_used: string;
  latency_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  token_cost_usd: number;
  variant_assigned: string | null;
  experiment_id: string | null;
  prompt_version: number;
}

export interface WireOutcome {
  outcome_id: string;
  status: string;
  experiment_id: string | null;
  variant_assigned: string | null;
}
