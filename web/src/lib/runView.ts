import { formatCost } from './format.js';
import type { ChatMessage } from './types.js';

/** One call to a model for a run: the first model, then its retries and fallbacks. */
export interface Attempt {
  model: string;
  attempt: number;
  status: number | null;
  error: string | null;
  latency_ms: number;
}

/** A stored run as `GET /runs` and `GET /runs/{run_id}` give it (src/modules/runs/runs.schemas.ts). */
export interface Run {
  run_id: string;
  prompt_id: string;
  prompt_version: number;
  experiment_id: string | null;
  variant: string | null;
  external_user_id: string | null;
  inputs: Record<string, unknown>;
  rendered_prompt: string;
  messages: ChatMessage[];
  output: string | null;
  model_requested: string;
  model_used: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  tokens_estimated: boolean;
  token_cost_usd: number;
  cost_known: boolean;
  price: Record<string, unknown> | null;
  latency_ms: number;
  /** A streamed run's time to its first token; null when it was not streamed. */
  ttft_ms: number | null;
  /** 'cancelled': a streamed run whose client went away before its end. */
  status: 'ok' | 'error' | 'cancelled';
  error: string | null;
  attempts: Attempt[];
  created_at: string;
  /** 'playground': a trial run of a chosen version from the prompt page, never part of an experiment. */
  source: 'api' | 'playground' | 'evaluation';
}

/** What the run sent: a text prompt (one user message, the rendered text) or its chat messages. */
export type PromptShown = { kind: 'text'; text: string } | { kind: 'chat'; messages: ChatMessage[] };

export function promptShown(run: Pick<Run, 'rendered_prompt' | 'messages'>): PromptShown {
  const [only, ...more] = run.messages;
  if (only === undefined || (more.length === 0 && only.role === 'user' && only.content === run.rendered_prompt)) {
    return { kind: 'text', text: run.rendered_prompt };
  }
  return { kind: 'chat', messages: run.messages };
}

/** An input's value as text: strings as they are, anything else as JSON. */
export function inputText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/** The model that answered, else the one asked for (a run that failed everywhere has no model used). */
export function modelShown(run: Pick<Run, 'model_used' | 'model_requested'>): string {
  return run.model_used ?? run.model_requested;
}

/** "12 in, 30 out, 42 in all", with what was estimated, cached or spent on reasoning. */
export function tokensText(
  run: Pick<Run, 'prompt_tokens' | 'completion_tokens' | 'total_tokens' | 'cached_tokens' | 'reasoning_tokens' | 'tokens_estimated'>,
): string {
  const parts = [`${run.prompt_tokens} in, ${run.completion_tokens} out, ${run.total_tokens} in all`];
  if (run.cached_tokens > 0) parts.push(`${run.cached_tokens} cached`);
  if (run.reasoning_tokens > 0) parts.push(`${run.reasoning_tokens} reasoning`);
  return `${parts.join('; ')}${run.tokens_estimated ? ' (estimated locally)' : ''}`;
}

/** The cost as the detail page shows it: exact, or why it is not known. */
export function costText(run: Pick<Run, 'token_cost_usd' | 'cost_known'>): string {
  return run.cost_known ? formatCost(run.token_cost_usd) : 'unknown (no price for this model)';
}

/** An attempt's outcome in words: the HTTP status, or what happened when there was none. */
export function attemptStatus(a: Pick<Attempt, 'status' | 'error'>): string {
  if (a.status !== null) return String(a.status);
  return a.error === null ? 'ok' : 'no answer';
}
