// A `fetch` for the openai SDK backed by undici's keep-alive Agent and its lean `request` API.
// Measured here against a loopback server: the global fetch spends ~3x the CPU per call
// (WHATWG streams on both sides); `request` plus one buffered Response does not.
import { Agent, request } from 'undici';

export interface PooledFetch {
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  close(): Promise<void>;
}

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

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
    // Buffered: chat completions are small, and a complete body keeps the Response cheap.
    const bytes = await res.body.arrayBuffer();
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (Array.isArray(value)) for (const v of value) responseHeaders.append(name, v);
      else if (value !== undefined) responseHeaders.set(name, value);
    }
    if (res.statusCode < 200 || res.statusCode > 599) {
      throw new TypeError(`unexpected HTTP status ${res.statusCode}`);
    }
    return new Response(NULL_BODY_STATUS.has(res.statusCode) ? null : bytes, {
      status: res.statusCode,
      headers: responseHeaders,
    });
  }

  return { fetch: pooledFetch, close: () => agent.close() };
}
