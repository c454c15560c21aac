// A `fetch` for the openai SDK backed by undici's keep-alive Agent and its lean `request` API.
// Measured here against a loopback server: the global fetch spends ~3x the CPU per call
// (WHATWG streams on both sides); `request` plus one buffered answer does not.
import { Agent, request } from 'undici';
import { BufferedResponse, StreamedResponse } from './bufferedResponse.js';

export interface PooledFetch {
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  close(): Promise<void>;
}

export function createPooledFetch(opts: { connections: number; connectTimeoutMs: number }): PooledFetch {
  const agent = new Agent({
    connections: opts.connections,
    keepAliveTimeout: 30_000,
    connect: { timeout: opts.connectTimeoutMs },
  });

  async function pooledFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    // The SDK always passes a URL string and a string body for JSON endpoints.
    if (typeof input !== 'string' && !(input instanceof URL)) {
      throw new TypeError('pooledFetch: Request objects are not supported');
    }
    const body = init.body;
    if (body != null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      throw new TypeError('pooledFetch: only string or byte bodies are supported');
    }
    const headers: Record<string, string> = {};
    const given = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    given.forEach((value, name) => {
      headers[name] = value;
    });
    const res = await request(input, {
      method: (init.method ?? 'GET') as 'GET',
      headers,
      body: body ?? null,
      signal: init.signal ?? null,
      dispatcher: agent,
    });
    if (res.statusCode < 200 || res.statusCode > 599) {
      await res.body.dump();
      throw new TypeError(`unexpected HTTP status ${res.statusCode}`);
    }
    // A streamed completion is handed over as it arrives; an error answer to it is read whole.
    if (res.statusCode < 300 && String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
      return new StreamedResponse(String(input), res.statusCode, res.headers, res.body) as unknown as Response;
    }
    // Buffered: chat completions are small, and a complete body needs no stream.
    const text = await res.body.text();
    return new BufferedResponse(String(input), res.statusCode, res.headers, text) as unknown as Response;
  }

  return { fetch: pooledFetch, close: () => agent.close() };
}
