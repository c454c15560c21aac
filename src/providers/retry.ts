// What a failed attempt means (retry, move to a fallback, or stop) and how long to wait.
import { APIError, APIConnectionError, APIConnectionTimeoutError } from 'openai';

export const BACKOFF_BASE_MS = 200;
export const BACKOFF_CAP_MS = 5_000;

/** Full jitter (AWS architecture blog): uniform in [0, min(cap, base·2^retryIndex)). */
export function backoffMs(retryIndex: number, random: () => number): number {
  return random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retryIndex);
}

/** `retry-after-ms` (OpenAI's), else `retry-after` in seconds or as an HTTP date. Null if absent. */
export function parseRetryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export type Failure =
  /** 429, 5xx, connection error, per-call timeout: retry this model, then the fallbacks. */
  | { kind: 'retryable'; status: number | null; reason: string; retryAfterMs: number | null; timedOut: boolean }
  /** Other 4xx, malformed response: the request itself is wrong or the answer is unusable. */
  | { kind: 'fatal'; status: number | null; reason: string };

/** Thrown by the response check when a 2xx answer is not a chat completion. */
export class MalformedResponseError extends Error {
  override readonly name = 'MalformedResponseError';
}

/**
 * Classifies an error from one SDK call whose abort was not caused by us (the gateway checks its
 * own timeout, deadline and client signals first). `secrets` are scrubbed from every message.
 */
export function classifyFailure(err: unknown, provider: string, secrets: readonly string[]): Failure {
  if (err instanceof APIConnectionTimeoutError) {
    return { kind: 'retryable', status: null, reason: `${provider} timed out`, retryAfterMs: null, timedOut: true };
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
  // The SDK wraps what our fetch threw; the useful code sits somewhere down the cause chain.
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CODES[code]) return CODES[code];
    e = (e as { cause?: unknown }).cause;
  }
  return 'connection error';
}

// OpenAI/OpenRouter (sk-…, sk-or-…) and Groq (gsk_…) key shapes, masked or not.
const KEY_LIKE = /\b(sk-[A-Za-z0-9_*-]{3,}|gsk_[A-Za-z0-9_*]{3,})/g;

/** Providers echo (masked) keys in 401 messages: never pass them on. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
  return out.replace(KEY_LIKE, '[redacted]');
}

function truncate(s: string, max = 300): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
