import type { AttemptRecord } from './types.js';

/**
 * The reason a request's controller is aborted with when the server cuts the request at its
 * shutdown deadline: the call is then recorded as cut by the shutdown, not by the client.
 */
export class ServerShutdown extends Error {
  override readonly name = 'ServerShutdown';
  constructor() {
    super('the server shut down');
  }
}

/**
 * A model call that produced no output, with every attempt made. `kind` says why, and the route
 * layer answers it as the contract prescribes: `failed` 502, `busy` 503 (with Retry-After),
 * `timeout` 504. The message never holds a key.
 */
export class ModelCallError extends Error {
  override readonly name = 'ModelCallError';
  readonly kind: 'failed' | 'busy' | 'timeout';
  readonly attempts: AttemptRecord[];
  readonly latencyMs: number;
  /** Set when busy: when the caller may try again. */
  readonly retryAfterSeconds?: number;
  /** True when the caller's signal aborted the call (client disconnected). */
  readonly clientAborted: boolean;

  constructor(
    kind: 'failed' | 'busy' | 'timeout',
    message: string,
    attempts: AttemptRecord[],
    latencyMs: number,
    extra: { retryAfterSeconds?: number; clientAborted?: boolean } = {},
  ) {
    super(message);
    this.kind = kind;
    this.attempts = attempts;
    this.latencyMs = latencyMs;
    if (extra.retryAfterSeconds !== undefined) this.retryAfterSeconds = extra.retryAfterSeconds;
    this.clientAborted = extra.clientAborted ?? false;
  }
}
