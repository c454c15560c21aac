// One OpenAI-compatible provider: its SDK client (created once), its connection pool, its
// concurrency cap, and a single chat-completions call turned into plain data.
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { ConcurrencyLimiter } from './limiter.js';
import { createPooledFetch } from './pooledFetch.js';
import { MalformedResponseError } from './retry.js';
import type { ProviderConfig } from './settings.js';
import type { ChatMessage } from './types.js';

export interface ProviderRuntime {
  config: ProviderConfig;
  client: OpenAI;
  limiter: ConcurrencyLimiter;
  close(): Promise<void>;
}

export interface ReportedUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
}

export interface ChatAnswer {
  output: string;
  /** The `model` field of the response, when the provider sent one. */
  reportedModel: string | null;
  usage: ReportedUsage | null;
}

const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Params that would turn the call into something we cannot read as one JSON answer. */
const STRIPPED_PARAMS = new Set(['model', 'messages', 'stream', 'stream_options']);

export function createProviderRuntime(config: ProviderConfig): ProviderRuntime {
  const pooled = createPooledFetch({
    connections: config.maxConcurrency,
    connectTimeoutMs: Math.min(config.timeoutMs, 10_000),
  });
  const client = new OpenAI({
    apiKey: config.apiKey,
    // Everything explicit, so the SDK reads nothing from process.env and sends no OpenAI
    // organisation/project headers to third-party endpoints.
    baseURL: config.baseURL ?? DEFAULT_OPENAI_BASE_URL,
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    maxRetries: 0, // the gateway retries, with its own budget and fallbacks
    // A backstop only: the gateway aborts each call itself at the provider's timeout.
    timeout: config.timeoutMs + 1_000,
    fetch: pooled.fetch,
    logLevel: 'off',
  });
  return {
    config,
    client,
    limiter: new ConcurrencyLimiter(config.maxConcurrency),
    close: () => pooled.close(),
  };
}

export async function callChat(
  runtime: ProviderRuntime,
  model: string,
  messages: readonly ChatMessage[],
  params: Record<string, unknown> | undefined,
  signal: AbortSignal,
): Promise<ChatAnswer> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params ?? {})) if (!STRIPPED_PARAMS.has(key)) body[key] = value;
  body.model = model;
  body.messages = messages;
  const completion: unknown = await runtime.client.chat.completions.create(
    body as unknown as ChatCompletionCreateParamsNonStreaming,
    { signal },
  );
  return readCompletion(completion);
}

/** Checks the shape we rely on; anything else is a malformed answer (502, not retried). */
export function readCompletion(completion: unknown): ChatAnswer {
  if (!isObject(completion)) throw new MalformedResponseError('the body is not a JSON object');
  const choices = completion.choices;
  if (!Array.isArray(choices) || choices.length === 0 || !isObject(choices[0]) || !isObject(choices[0].message)) {
    throw new MalformedResponseError('no choices[0].message');
  }
  const message = choices[0].message;
  const content = message.content ?? message.refusal ?? '';
  if (typeof content !== 'string') throw new MalformedResponseError('choices[0].message.content is not a string');
  return {
    output: content,
    reportedModel: typeof completion.model === 'string' && completion.model !== '' ? completion.model : null,
    usage: readUsage(completion.usage),
  };
}

function readUsage(usage: unknown): ReportedUsage | null {
  if (!isObject(usage) || !isCount(usage.prompt_tokens) || !isCount(usage.completion_tokens)) return null;
  const prompt = usage.prompt_tokens;
  const completion = usage.completion_tokens;
  const promptDetails = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completionDetails = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  return {
    promptTokens: prompt,
    completionTokens: completion,
    totalTokens: isCount(usage.total_tokens) ? usage.total_tokens : prompt + completion,
    cachedTokens: isCount(promptDetails.cached_tokens) ? Math.min(promptDetails.cached_tokens, prompt) : 0,
    reasoningTokens: isCount(completionDetails.reasoning_tokens) ? completionDetails.reasoning_tokens : 0,
  };
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
function isCount(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
}
