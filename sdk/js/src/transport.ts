import { apiError, PromptlineApiError, PromptlineConnectionError } from './errors.js';

/**
 * HTTP to the server: JSON in and out, the key in `X-API-Key` (never in an error or a log), a
 * deadline per attempt, and retries of what may succeed later (no answer, 5xx, 429 after its
 * Retry-After) with exponential backoff and jitter. A write carries one Idempotency-Key for all its
 * attempts, so a retry after a lost answer is stored once.
 */

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  maxRetries: number;
}

export interface Call {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  timeoutMs: number;
  /** A write's Idempotency-Key: one per logical call, the same for all its attempts. */
  idempotencyKey?: string;
  /** Extra request headers (If-None-Match). */
  headers?: Record<string, string>;
  /** Attempts after the first; the transport's maxRetries by default. */
  retries?: number;
}

export interface Answer {
  status: number;
  headers: Headers;
  json: unknown;
}

const BACKOFF_BASE_MS = 100;
const BACKOFF_MAX_MS = 2_000;
/** A Retry-After longer than this is not waited for: the call fails (or falls back) at once. */
const RETRY_AFTER_MAX_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** True for an error worth another attempt. */
export function isTransient(error: unknown): boolean {
  return error instanceof PromptlineConnectionError || (error instanceof PromptlineApiError && (error.status >= 500 || error.status === 429));
}

export class Transport {
  private readonly base: string;
  constructor(private readonly options: TransportOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
  }

  /** A 2xx or 304 answer; anything else throws a PromptlineError after the retries it deserves. */
  async send(call: Call): Promise<Answer> {
    const headers: Record<string, string> = { 'x-api-key': this.options.apiKey, accept: 'application/json', ...call.headers };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const retries = call.retries ?? this.options.maxRetries;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(call, headers, body);
      } catch (error) {
        if (attempt >= retries || !isTransient(error)) throw error;
        const wait = retryAfterMs(error) ?? Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt) * (0.5 + Math.random() / 2);
        if (wait > RETRY_AFTER_MAX_MS) throw error;
        await sleep(wait);
      }
    }
  }

  private async attempt(call: Call, headers: Record<string, string>, body: string | undefined): Promise<Answer> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${call.path}`, { method: call.method, headers, body, signal: AbortSignal.timeout(call.timeoutMs) });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      throw new PromptlineConnectionError(
        timedOut
          ? `Promptline did not answer ${call.method} ${call.path} within ${call.timeoutMs} ms`
          : `Promptline is unreachable (${call.method} ${call.path})`,
        error,
      );
    }
    if (res.status === 304) return { status: 304, headers: res.headers, json: null };
    let json: unknown = null;
    let text = '';
    try {
      text = await res.text();
      json = text === '' ? null : JSON.parse(text);
    } catch (error) {
      if (res.ok) throw new PromptlineConnectionError(`Promptline's answer to ${call.method} ${call.path} was cut or not JSON`, error);
    }
    if (res.ok) return { status: res.status, headers: res.headers, json };
    const detail = json !== null && typeof json === 'object' && 'detail' in json ? (json as { detail: unknown }).detail : text;
    const after = Number(res.headers.get('retry-after') ?? Number.NaN);
    throw apiError(res.status, detail, Number.isFinite(after) && after >= 0 ? after : null);
  }
}

function retryAfterMs(error: unknown): number | undefined {
  return error instanceof PromptlineApiError && error.retryAfterSeconds !== null ? error.retryAfterSeconds * 1000 : undefined;
}
