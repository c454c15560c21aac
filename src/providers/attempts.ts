// One model of a request, with its retries: take a slot, call with a per-call timeout, classify a
// failure, wait (backoff or Retry-After) and try again while the budget and the deadline allow.
// The same for every provider: they only call and classify.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { ChatAnswer, ChatProvider } from './chatProvider.js';
import { type ModelCallError, ServerShutdown } from './errors.js';
import { QueueTimeoutError } from './limiter.js';
import { backoffMs, type Failure } from './retry.js';
import type { ProviderSettings } from './settings.js';
import type { AttemptRecord } from './types.js';

export type ModelOutcome<T = ChatAnswer> = { ok: true; answer: T; release: () => void } | { ok: false; failure: Failure; timeoutMs: number | null };

/** Everything one request's attempts share: its clock, its stop signal, its record of attempts. */
export interface AttemptContext {
  readonly settings: Pick<ProviderSettings, 'maxRetries' | 'requestDeadlineMs' | 'retryAfterCapMs' | 'queueTimeoutMs'>;
  readonly startedAt: number;
  /** Fires on the request deadline, when the client goes away, or at the shutdown deadline (reason: ServerShutdown). */
  readonly stop: AbortSignal;
  /** True once `stop` fired because the deadline passed (rather than the client leaving). */
  deadlineHit(): boolean;
  /** The error that ends the request once `stop` fired (deadline: 504; client gone or shutdown: 502). */
  stopError(): ModelCallError;
  fail(kind: 'failed' | 'busy' | 'timeout', message: string, extra?: { retryAfterSeconds?: number }): ModelCallError;
  readonly attempts: AttemptRecord[];
  readonly logger: Pick<Logger, 'debug'>;
  readonly random: () => number;
  /** Injected by tests to record (and skip) backoff waits. */
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
}

export function since(start: number): number {
  return Math.round(performance.now() - start);
}

/**
 * Calls one model until it answers, fails for good, or the retry budget is spent. Returns the
 * answer or the last failure (the caller may try a fallback); throws only what ends the whole
 * request (deadline, client gone, provider busy). `invoke` answers (for a stream, once its first token came) or
 * throws what `provider.classify` reads. With `keepSlot` the concurrency slot stays taken after an
 * answer until the caller calls `release` (a stream holds it until it ends).
 */
export async function attemptUntilAnswered<T>(
  provider: ChatProvider,
  label: string,
  ctx: AttemptContext,
  invoke: (signal: AbortSignal) => Promise<T>,
  keepSlot: boolean,
): Promise<ModelOutcome<T>> {
  const { settings } = ctx;
  const { timeoutMs } = provider;
  for (let attempt = 1; ; attempt++) {
    if (ctx.stop.aborted) throw ctx.stopError();
    const release = await takeSlot(provider, ctx);
    const callStart = performance.now();
    let failure: Failure;
    let answered = false;
    try {
      const answer = await invoke(ctx.stop);
      ctx.attempts.push({ model: label, attempt, status: 200, error: null, latency_ms: since(callStart) });
      answered = true;
      return { ok: true, answer, release: keepSlot ? release : NO_SLOT };
    } catch (err) {
      failure = provider.classify(err);
    } finally {
      if (!answered || !keepSlot) release();
    }
    const timedOut = failure.kind === 'retryable' && failure.timedOut;
    if (ctx.stop.aborted && !timedOut) {
      ctx.attempts.push({ model: label, attempt, status: null, error: stopReason(ctx), latency_ms: since(callStart) });
      throw ctx.stopError();
    }
    // Waiting out a Retry-After beyond the cap would hold the request hostage: this model is
    // done, the next one (if any) is tried at once.
    const retryAfter = failure.kind === 'retryable' ? failure.retryAfterMs : null;
    const overCap = retryAfter !== null && retryAfter > settings.retryAfterCapMs;
    if (overCap) {
      const cap = `${settings.retryAfterCapMs / 1000} s`;
      failure = { ...failure, reason: `${failure.reason} (Retry-After ${Math.ceil(retryAfter / 1000)} s exceeds the ${cap} cap)` };
    }
    ctx.attempts.push({ model: label, attempt, status: failure.status, error: failure.reason, latency_ms: since(callStart) });
    ctx.logger.debug({ model: label, attempt, status: failure.status, error: failure.reason }, 'model call attempt failed');
    if (failure.kind === 'fatal' || overCap || attempt > settings.maxRetries) return { ok: false, failure, timeoutMs };
    const wait = retryAfter ?? backoffMs(attempt - 1, ctx.random);
    // A wait that outlasts the deadline cannot lead to an answer; leave the time to fallbacks.
    if (since(ctx.startedAt) + wait >= settings.requestDeadlineMs) return { ok: false, failure, timeoutMs };
    await sleep(wait, ctx);
  }
}

const NO_SLOT = (): void => undefined;

async function takeSlot(provider: ChatProvider, ctx: AttemptContext): Promise<() => void> {
  if (provider.limiter === null) return () => undefined;
  try {
    return await provider.limiter.acquire(ctx.settings.queueTimeoutMs, [ctx.stop]);
  } catch (err) {
    if (err instanceof QueueTimeoutError) throw ctx.fail('busy', 'Model provider busy: too many concurrent requests', { retryAfterSeconds: 1 });
    throw ctx.stopError();
  }
}

function stopReason(ctx: AttemptContext): string {
  if (ctx.deadlineHit()) return `deadline of ${ctx.settings.requestDeadlineMs} ms reached`;
  return ctx.stop.reason instanceof ServerShutdown ? ctx.stop.reason.message : 'aborted by the client';
}

async function sleep(ms: number, ctx: AttemptContext): Promise<void> {
  if (ctx.stop.aborted) throw ctx.stopError();
  try {
    if (ctx.sleep) await raceStop(ctx.sleep(ms), ctx.stop);
    else await delay(ms, undefined, { signal: ctx.stop });
  } catch (err) {
    if (ctx.stop.aborted) throw ctx.stopError();
    throw err;
  }
}

/** Settles like `p`, or rejects as soon as `signal` aborts (for injected sleeps that ignore it). */
function raceStop(p: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('stopped'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
