// The provider module's public data shapes. Behaviour lives in gateway.ts and the providers.
import type { ChatMessage } from '../lib/chatMessage.js';
import type { ToolCall } from '../lib/modelConfig.js';

export type { ChatMessage } from '../lib/chatMessage.js';

export interface ModelRequest {
  /** `<provider>/<model>`, e.g. `openai/gpt-4o-mini`, `ollama/llama3.1:8b`, `echo/anything`. */
  model: string;
  /** Tried in order after `model` fails for a retryable reason. */
  fallbacks?: string[];
  messages: ChatMessage[];
  /** Passed through to the provider (temperature, max_tokens, seed, …). */
  params?: Record<string, unknown>;
  /**
   * The request's one controller: the caller aborts it when its client goes away (the in-flight call
   * is aborted and nothing is retried; with a `ServerShutdown` reason when the server's shutdown cut
   * it), and the gateway aborts it when the deadline passes. One, not
   * one per layer: in Node 20 each AbortController costs ~10 µs of CPU, on every call.
   */
  abort?: AbortController;
  /**
   * The rendered prompt exactly as /get_prompt shows it. Only the `echo` provider reads it (it
   * answers with it); when absent echo answers with joinMessages(messages). Pass it for text
   * prompts, which reach real providers as a single user message.
   */
  promptText?: string;
}

export interface AttemptRecord {
  /** `<provider>/<model>` as requested for this attempt. */
  model: string;
  /** 1-based, counted per model. */
  attempt: number;
  /** HTTP status from the provider, null when no response (connection error, timeout, abort). */
  status: number | null;
  error: string | null;
  latency_ms: number;
}

/** The price applied to a run, USD per million tokens. */
export interface PriceUsed {
  input: number;
  cached_input: number;
  output: number;
  source: 'override' | 'genai-prices' | 'echo';
}

export interface ReportedUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
}

export interface ModelResult {
  output: string;
  /** The functions the model asked to call; empty: none. */
  toolCalls: ToolCall[];
  /** The primary model string the caller asked for (not the fallback that served). */
  modelRequested: string;
  /** `<provider>/<model the provider reported>`, e.g. `openai/gpt-4o-mini-2024-07-18`. */
  modelUsed: string;
  provider: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  /** True when the counts come from the local tokenizer rather than the provider's usage. */
  tokensEstimated: boolean;
  /** Integer nano-USD (1e-9 USD). */
  costNanoUsd: number;
  costKnown: boolean;
  price: PriceUsed | null;
  /** Wall time of execute(): queueing, every attempt and the waits between them. */
  latencyMs: number;
  attempts: AttemptRecord[];
}

/** A piece of a tool call as the model streams it: `id` and `name` come first, `arguments` in pieces. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

/** What a stream passes on as it arrives: a piece of text, or a piece of a tool call. */
export type StreamEvent = { type: 'text'; text: string } | { type: 'tool_call'; delta: ToolCallDelta };

/** A tool call put together from its streamed pieces (what a provider left out stays null). */
export interface StreamedToolCall {
  index: number;
  id: string | null;
  name: string | null;
  arguments: string;
}

/** How a committed stream ended, with everything it received. */
export interface StreamEnd {
  /** ok: the provider finished; error: it failed after the first token; cancelled: the caller went away. */
  status: 'ok' | 'error' | 'cancelled';
  /**
   * The answer (or what came of it before the end): the provider's usage when its final chunk
   * came, else the tokenizer's count of what was sent and received; the cost of those tokens.
   */
  result: ModelResult;
  /** From the start of the request (queueing, retries and fallbacks included) to the first token. */
  ttftMs: number;
  /** Why it failed (status error), without secrets; null otherwise. */
  error: string | null;
  toolCalls: StreamedToolCall[];
}

/** A stream committed to one provider: its events, consumed once, then its end. */
export interface ModelStream {
  /** Every event, from the first token on; the iteration itself never throws. */
  readonly events: AsyncIterable<StreamEvent>;
  /** Settles (never rejects) once `events` is done, or was left early (the upstream call is then aborted). */
  readonly end: Promise<StreamEnd>;
  /**
   * performance.now() at the request's deadline (PROMPTLINE_REQUEST_DEADLINE_MS from its start).
   * It bounds the call (the gateway stops it then) and the consumer's wait for its own reader:
   * what the consumer has not passed on by then, it gives up, leaving `events` early.
   */
  readonly deadlineAt: number;
}

export interface ModelGateway {
  execute(req: ModelRequest): Promise<ModelResult>;
  /**
   * Like execute, answered as it is generated: settles once the first token arrived (after retries
   * and fallbacks), or rejects with execute's errors if none does.
   */
  stream(req: ModelRequest): Promise<ModelStream>;
  /** False when the `<provider>` part names no configured provider (or the string is malformed). */
  isConfigured(model: string): boolean;
  close(): Promise<void>;
}
