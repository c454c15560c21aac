// The non-streamed chat completion, sent as the SDK sends it, without the SDK's per-call work.
//
// The openai SDK (pinned at 6.x: 7.x needs Node 22) spends on every call, besides the HTTP request
// itself: merging four header sources into a WHATWG Headers, formatting a debug line even with
// logging off, an AbortController and a timer linked to the caller's signal, and several layers
// of promises (APIPromise, parse, request id). Timed in one process against the bench's
// zero-latency fake model (process.cpuUsage over 4 000 calls, 16 in flight): 190–400 µs of CPU
// per call through `client.chat.completions.create` against 57–94 µs for the same request over
// the same pooled connection, about a third of a whole /run_prompt.
//
// So a provider's non-streamed call asks the SDK once for the request it would build (URL and
// headers: `client.buildRequest`, a public method), then sends each call's body with those
// headers over the pooled connection, and turns an error status into the SDK's own error
// (`APIError.generate`, as the SDK does) and a network failure or timeout into
// APIConnectionError / APIConnectionTimeoutError: classifyFailure reads exactly what it read when
// the SDK made the call. Streams still go through the SDK (their per-call cost is small next to a
// stream's). The per-call time limit covers the whole answer, as the SDK's does.
import type OpenAI from 'openai';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { BufferedHeaders } from './bufferedResponse.js';
import { type PooledFetch, PostTimeout } from './pooledFetch.js';

export type CompleteChat = (body: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

interface Template {
  url: string;
  headers: Record<string, string>;
}

export function createDirectCompletion(client: OpenAI, pooled: PooledFetch, timeoutMs: number): CompleteChat {
  let template: Promise<Template> | null = null;
  const build = async (): Promise<Template> => {
    const { url, req } = await client.buildRequest({ method: 'post', path: '/chat/completions', body: {} });
    const headers: Record<string, string> = {};
    new Headers(req.headers as ConstructorParameters<typeof Headers>[0]).forEach((value, name) => {
      headers[name] = value;
    });
    return { url, headers };
  };

  return async (body, signal) => {
    template ??= build();
    const { url, headers } = await template;
    if (signal.aborted) throw new APIUserAbortError();
    let answer: Awaited<ReturnType<PooledFetch['post']>>;
    try {
      answer = await pooled.post(url, headers, JSON.stringify(body), signal, timeoutMs);
    } catch (error) {
      if (signal.aborted) throw new APIUserAbortError();
      if (error instanceof PostTimeout) throw new APIConnectionTimeoutError();
      throw new APIConnectionError({ cause: error as Error });
    }
    if (answer.status >= 200 && answer.status < 300) return JSON.parse(answer.text);
    const json = safeJson(answer.text);
    throw APIError.generate(answer.status, json, json === undefined ? answer.text : undefined, new BufferedHeaders(answer.headers) as unknown as Headers);
  };
}

function safeJson(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
