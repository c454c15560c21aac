// What the gateway needs of a model provider. Timeouts, retries, fallbacks, deadlines, token
// estimates and prices are the gateway's, the same for every provider; a provider only calls its
// API and says what a failure means. A native API (say Anthropic's Messages) is one more file
// implementing this, plus a line in registry.ts.
import type { ChatMessage } from '../lib/chatMessage.js';
import type { ToolCall } from '../lib/modelConfig.js';
import type { ConcurrencyLimiter } from './limiter.js';
import type { Failure } from './retry.js';
import type { PriceUsed, ReportedUsage, ToolCallDelta } from './types.js';

export interface ChatRequest {
  /** The provider's own model name (the part after `<provider>/`). */
  model: string;
  messages: readonly ChatMessage[];
  params: Readonly<Record<string, unknown>>;
  /** The rendered prompt as /get_prompt shows it (a provider may answer with it, as echo does). */
  promptText?: string | undefined;
}

export interface ChatAnswer {
  output: string;
  /** The model the provider says it ran, when it says. */
  reportedModel: string | null;
  /** Null: the provider reported none, and the gateway counts tokens itself. */
  usage: ReportedUsage | null;
  /** The usage given was itself estimated (by the provider's own local count). */
  usageEstimated?: boolean;
  /** The functions the model asked to call (params.tools); absent or empty: none. */
  toolCalls?: ToolCall[];
}

/** One chunk of a streamed answer; any part may be empty (the first chunk often only names the role). */
export interface ChatChunk {
  text: string;
  toolCalls: ToolCallDelta[] | null;
  /** Set on the chunk that carries the whole answer's usage (the last one, with include_usage). */
  usage: ReportedUsage | null;
  reportedModel: string | null;
  usageEstimated?: boolean;
}

export interface ChatProvider {
  /** Lower-case; the `<provider>` of `<provider>/<model>`. */
  readonly name: string;
  /**
   * One call's time limit, enforced by the provider itself (the openai SDK's own per-request timer:
   * a second timer and AbortController of ours per call cost CPU and bought nothing). A call that
   * outlives it fails with a retryable failure marked `timedOut`. Null for a provider that answers
   * locally without I/O (echo).
   */
  readonly timeoutMs: number | null;
  /** Bounds calls in flight to this provider; null when it needs no bound (a local provider). */
  readonly limiter: ConcurrencyLimiter | null;
  /** The price every call of this provider costs; null to look the model up in the price table. */
  readonly fixedPrice: PriceUsed | null;
  /** Where the provider's API lives, so the price table can recognise it under another name. */
  readonly baseURL: string | undefined;
  /** `signal` stops the whole request (deadline, client gone): the call must end when it fires. */
  call(request: ChatRequest, signal: AbortSignal): Promise<ChatAnswer>;
  /**
   * The answer as it is generated. An error thrown before the first chunk with text or a tool call
   * is retried as `call`'s are; after it, the stream is committed. When `signal` fires the iteration
   * must end (throwing or not). Optional: a provider without it answers in one chunk from `call`.
   */
  stream?(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatChunk>;
  /** What an error thrown by `call` (or `stream`) means (retry, or stop), with a reason that holds no secret. */
  classify(error: unknown): Failure;
  close(): Promise<void>;
}
