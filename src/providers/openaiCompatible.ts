// An OpenAI-compatible provider (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, Groq,
// Together, Azure…): its SDK client (created once), its connection pool, its concurrency cap, one
// chat-completions call turned into plain data, and what the SDK's errors mean.
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { ChatAnswer, ChatChunk, ChatProvider, ChatRequest } from './chatProvider.js';
import { ConcurrencyLimiter } from './limiter.js';
import { type BufferedResponse, StreamedResponse } from './bufferedResponse.js';
import { createDirectCompletion } from './directCompletion.js';
import { createPooledFetch } from './pooledFetch.js';
import { sseData } from './sseData.js';
import { callDeltas } from './streaming.js';
import { parseRetryAfterMs, scrub, truncate, type Failure } from './retry.js';
import type { ProviderConfig } from './settings.js';
import type { ReportedUsage, ToolCallDelta } from './types.js';
import type { ToolCall } from '../lib/modelConfig.js';

const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Params that are the adapter's to set (streaming is chosen by calling `stream`). */
const STRIPPED_PARAMS = new Set(['model', 'messages', 'stream', 'stream_options']);

/** An error the provider sent inside a streamed answer. */
class StreamedError extends Error {
  override readonly name = 'StreamedError';
}

/** Thrown by the response check when a 2xx answer is not a chat completion. */
export class MalformedResponseError extends Error {
  override readonly name = 'MalformedResponseError';
}

export function createOpenAICompatibleProvider(config: ProviderConfig): ChatProvider {
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
    // Each call's time limit (ChatProvider.timeoutMs): the SDK's own timer, which it sets anyway.
    timeout: config.timeoutMs,
    fetch: pooled.fetch,
    logLevel: 'off',
  });
  const complete = createDirectCompletion(client, pooled, config.timeoutMs);
  const secrets = [config.apiKey];
  return {
    name: config.name,
    timeoutMs: config.timeoutMs,
    limiter: new ConcurrencyLimiter(config.maxConcurrency),
    fixedPrice: null,
    baseURL: config.baseURL,
    async call(request, signal) {
      return readCompletion(await complete(requestBody(request), signal));
    },
    async *stream(request, signal) {
      // include_usage: the last chunk carries the answer's usage (OpenAI, vLLM, Ollama, llama.cpp);
      // a server that ignores it leaves the count to the tokenizer.
      const body = { ...requestBody(request), stream: true, stream_options: { include_usage: true } };
      // The SDK sends the request and turns an error status into its errors (classified below);
      // the body is read here, straight from undici's stream (sseData.ts): the SDK's own decoding
      // (async generators over every byte chunk, line and event) was about 15 % of the server's
      // busy time under a streaming load (bench/stream.ts with --cpu-prof).
      const response = (await client.chat.completions.create(body as unknown as ChatCompletionCreateParamsStreaming, { signal }).asResponse()) as unknown as
        | StreamedResponse
        | BufferedResponse;
      if (!(response instanceof StreamedResponse)) {
        // A server that ignores `stream` answers one completion: it is the whole answer.
        const answer = readCompletion(await response.json());
        yield { text: answer.output, toolCalls: callDeltas(answer.toolCalls), usage: answer.usage, reportedModel: answer.reportedModel };
        return;
      }
      let done = false;
      for await (const data of sseData(response.body)) {
        // Read on to the end after [DONE], so the connection goes back to the pool.
        if (done) continue;
        if (data.startsWith('[DONE]')) {
          done = true;
          continue;
        }
        yield readChunk(JSON.parse(data));
      }
    },
    classify: (error) => classifyFailure(error, config.name, secrets, config.timeoutMs),
    close: () => pooled.close(),
  };
}

function requestBody(request: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request.params)) if (!STRIPPED_PARAMS.has(key)) body[key] = value;
  body.model = request.model;
  body.messages = request.messages;
  return body;
}

/** One streamed chunk: its choice's delta (text, tool-call pieces) and, on the last, the usage. */
function readChunk(chunk: unknown): ChatChunk {
  if (!isObject(chunk)) throw new MalformedResponseError('a streamed chunk is not a JSON object');
  // An error sent in the stream after a 200 (OpenAI does so when generation fails midway).
  if (isObject(chunk.error)) throw new StreamedError(typeof chunk.error.message === 'string' ? chunk.error.message : 'an error event');
  const choice = Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : null;
  const delta = choice && isObject(choice.delta) ? choice.delta : {};
  const content = delta.content ?? delta.refusal ?? '';
  if (typeof content !== 'string') throw new MalformedResponseError('choices[0].delta.content is not a string');
  return {
    text: content,
    toolCalls: Array.isArray(delta.tool_calls) ? delta.tool_calls.map(readToolCallDelta) : null,
    usage: readUsage(chunk.usage),
    reportedModel: typeof chunk.model === 'string' && chunk.model !== '' ? chunk.model : null,
  };
}

function readToolCallDelta(raw: unknown, position: number): ToolCallDelta {
  const call = isObject(raw) ? raw : {};
  const fn = isObject(call.function) ? call.function : {};
  const delta: ToolCallDelta = { index: isCount(call.index) ? call.index : position };
  if (typeof call.id === 'string') delta.id = call.id;
  if (typeof fn.name === 'string') delta.name = fn.name;
  if (typeof fn.arguments === 'string') delta.arguments = fn.arguments;
  return delta;
}

/** Checks the shape we rely on; anything else is a malformed answer (502, not retried). */
function readCompletion(completion: unknown): ChatAnswer {
  if (!isObject(completion)) throw new MalformedResponseError('the body is not a JSON object');
  const choices = completion.choices;
  if (!Array.isArray(choices) || choices.length === 0 || !isObject(choices[0]) || !isObject(choices[0].message)) {
    throw new MalformedResponseError('no choices[0].message');
  }
  const message = choices[0].message;
  const content = message.content ?? message.refusal ?? '';
  if (typeof content !== 'string') throw new MalformedResponseError('choices[0].message.content is not a string');
  const toolCalls = readToolCalls(message.tool_calls);
  return {
    output: content,
    reportedModel: typeof completion.model === 'string' && completion.model !== '' ? completion.model : null,
    usage: readUsage(completion.usage),
    ...(toolCalls.length === 0 ? {} : { toolCalls }),
  };
}

/** The function calls of an answer (tools asked for); a call of another type, or malformed, is a malformed answer. */
function readToolCalls(calls: unknown): ToolCall[] {
  if (calls === undefined || calls === null) return [];
  if (!Array.isArray(calls)) throw new MalformedResponseError('choices[0].message.tool_calls is not a list');
  return calls.map((call, i) => {
    const fn = isObject(call) && isObject(call.function) ? call.function : null;
    if (!isObject(call) || typeof call.id !== 'string' || fn === null || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
      throw new MalformedResponseError(`choices[0].message.tool_calls[${i}] is not a function call`);
    }
    return { id: call.id, type: 'function' as const, function: { name: fn.name, arguments: fn.arguments } };
  });
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

/**
 * Classifies an error from one SDK call whose abort was not caused by us (the gateway checks its
 * own timeout, deadline and client signals first). `secrets` are scrubbed from every message.
 */
export function classifyFailure(err: unknown, provider: string, secrets: readonly string[], timeoutMs: number): Failure {
  if (err instanceof APIConnectionTimeoutError) {
    return { kind: 'retryable', status: null, reason: `${provider} timed out after ${timeoutMs} ms`, retryAfterMs: null, timedOut: true };
  }
  if (err instanceof APIConnectionError) {
    return { kind: 'retryable', status: null, reason: `${provider}: ${connectionReason(err)}`, retryAfterMs: null, timedOut: false };
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    const reason = `${provider} returned ${status}: ${scrub(errorMessage(err), secrets)}`;
    if (status === 429 || status >= 500) {
      return { kind: 'retryable', status, reason, retryAfterMs: parseRetryAfterMs(err.headers), timedOut: false };
    }
    return { kind: 'fatal', status, reason };
  }
  // A streamed body cut after its headers reaches us as undici's own error, not the SDK's.
  const cut = err instanceof Error ? connectionCode(err) : null;
  if (cut !== null) return { kind: 'retryable', status: null, reason: `${provider}: ${cut}`, retryAfterMs: null, timedOut: false };
  if (err instanceof SyntaxError || err instanceof MalformedResponseError) {
    return { kind: 'fatal', status: 200, reason: `${provider} returned a malformed response: ${truncate(err.message)}` };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { kind: 'fatal', status: null, reason: `${provider} call failed: ${truncate(scrub(message, secrets))}` };
}

function errorMessage(err: APIError): string {
  const body = err.error as { message?: unknown } | string | undefined;
  if (body && typeof body === 'object' && typeof body.message === 'string') return truncate(body.message);
  if (typeof body === 'string' && body.trim() !== '') return truncate(body.trim());
  // The SDK's message starts with the status ("400 Bad request"); drop it, we print our own.
  return truncate(err.message.replace(/^\d{3}\s*/, '') || 'no error message');
}

const CODES: Record<string, string> = {
  ECONNRESET: 'connection reset',
  UND_ERR_SOCKET: 'connection reset',
  EPIPE: 'connection reset',
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'connect timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

function connectionReason(err: Error): string {
  return connectionCode(err) ?? 'connection error';
}

/** What a network error code down the cause chain means (the SDK wraps what our fetch threw). */
function connectionCode(err: Error): string | null {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CODES[code]) return CODES[code];
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}
