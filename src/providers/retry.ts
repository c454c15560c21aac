// What a failed attempt means (retry, move to a fallback, or stop), how long to wait, and how a
// failure's reason is kept free of secrets. Provider-neutral: each provider classifies its own errors.

const BACKOFF_BASE_MS = 200;
const BACKOFF_CAP_MS = 5_000;

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

// OpenAI/OpenRouter (sk-…, sk-or-…) and Groq (gsk_…) key shapes, masked or not.
const KEY_LIKE = /\b(sk-[A-Za-z0-9_*-]{3,}|gsk_[A-Za-z0-9_*]{3,})/g;

/** Providers echo (masked) keys in 401 messages: never pass them on. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
  return out.replace(KEY_LIKE, '[redacted]');
}

export function truncate(s: string, max = 300): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
