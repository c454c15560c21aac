import type { AttemptRecord } from './types.js';

/**
 * A model call that produced no output. `statusCode` and `detail` are the HTTP answer the
 * contract prescribes (502 provider error, 503 busy, 504 timeout); `detail` never holds a key.
 */
export class ModelCallError extends Error {
  override readonly name = 'ModelCallError';
  readonly statusCode: 502 | 503 | 504;
  readonly detail: string;
  readonly attempts: AttemptRecord[];
  readonly latencyMs: number;
  /** Set with 503: when the caller may try again. */
  readonly retryAfterSeconds?: number;
  /** True when the caller's signal aborted the call (client disconnected). */
  readonly clientAborted: boolean;

  constructor(
    statusCode: 502 | 503 | 504,
    detail: string,
    attempts: AttemptRecord[],
    latencyMs: number,
    extra: { retryAfterSeconds?: number; clientAborted?: boolean } = {},
  ) {
    super(detail);
    this.statusCode = statusCode;
    this.detail = detail;
    this.attempts = attempts;
    this.latencyMs = latencyMs;
    if (extra.retryAfterSeconds !== undefined) this.retryAfterSeconds = extra.retryAfterSeconds;
    this.clientAborted = extra.clientAborted ?? false;
  }
}
