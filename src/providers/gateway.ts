// The model gateway: resolves `<provider>/<model>`, runs the call with its timeout, retries,
// fallbacks, deadline and concurrency cap, and returns output, tokens and cost as plain data.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { runEcho } from './echo.js';
import { ModelCallError } from './errors.js';
import { QueueTimeoutError } from './limiter.js';
import { callChat, createProviderRuntime, type ChatAnswer, type ProviderRuntime } from './openaiClient.js';
import { PriceBook } from './prices.js';
import { backoffMs, classifyFailure, type Failure } from './retry.js';
import { ECHO_PROVIDER, type ProviderSettings } from './settings.js';
import { countChatTokens, countTextTokens } from './tokens.js';
import type { AttemptRecord, ModelGateway, ModelRequest, ModelResult } from './types.js';

export type { AttemptRecord, ChatMessage, ModelGateway, ModelRequest, ModelResult, PriceUsed } from './types.js';
export { ModelCallError } from './errors.js';

/** What the gateway logs through: a pino logger, or Fastify's `app.log`. */
export type ProviderLogger = Pick<Logger, 'warn' | 'debug'>;

export interface GatewayOptions {
  /** Uniform in [0, 1); injected by tests to pin the jitter. */
  random?: () => number;
  /** Injected by tests to record (and skip) backoff waits. */
  sleep?: (ms: number) => Promise<void>;
}

/** `<provider>/<model>`, split at the first slash (model ids may contain more, e.g. OpenRouter's). */
export function parseModelString(value: string): { provider: string; model: string } | null {
  const slash = value.indexOf('/');
  if (slash <= 0 || slash === value.length - 1) return null;
  return { provider: value.slice(0, slash).toLowerCase(), model: value.slice(slash + 1) };
}

type ModelOutcome = { ok: true; answer: ChatAnswer } | { ok: false; failure: Failure; timeoutMs: number };

export function createModelGateway(
  settings: ProviderSettings,
  logger: ProviderLogger,
  opts: GatewayOptions = {},
): ModelGateway {
  const random = opts.random ?? Math.random;
  const runtimes = new Map<string, ProviderRuntime>();
  for (const config of Object.values(settings.providers)) runtimes.set(config.name, createProviderRuntime(config));
  const prices = new PriceBook(settings.priceOverrides, logger);
  const secrets = Object.values(settings.providers).map((p) => p.apiKey);

  async function execute(req: ModelRequest): Promise<ModelResult> {
    const startedAt = performance.now();
    const attempts: AttemptRecord[] = [];
    const elapsed = () => Math.round(performance.now() - startedAt);
    const fail = (status: 502 | 503 | 504, detail: string, extra?: { retryAfterSeconds?: number; clientAborted?: boolean }) =>
      new ModelCallError(status, detail, attempts, elapsed(), extra);

    // One signal stops everything in flight (call, queue wait, backoff): the request deadline or
    // the caller going away. `stopError` says which, once it has fired.
    const stop = new AbortController();
    let deadlineHit = false;
    const deadlineTimer = setTimeout(() => {
      deadlineHit = true;
      stop.abort();
    }, settings.requestDeadlineMs);
    const onClientAbort = () => stop.abort();
    req.signal?.addEventListener('abort', onClientAbort, { once: true });
    if (req.signal?.aborted) stop.abort();
    const stopError = () =>
      deadlineHit
        ? fail(504, `Model provider timed out after ${settings.requestDeadlineMs} ms`)
        : fail(502, 'Model provider error: request aborted by the client', { clientAborted: true });

    const sleep = async (ms: number) => {
      if (stop.signal.aborted) throw stopError();
      try {
        if (opts.sleep) await raceStop(opts.sleep(ms), stop.signal);
        else await delay(ms, undefined, { signal: stop.signal });
      } catch (err) {
        if (stop.signal.aborted) throw stopError();
        throw err;
      }
    };

    // Retries of one model. Throws ModelCallError only for what ends the whole request.
    const runModel = async (rt: ProviderRuntime, model: string, label: string): Promise<ModelOutcome> => {
      const { timeoutMs, name: provider } = rt.config;
      for (let attempt = 1; ; attempt++) {
        if (stop.signal.aborted) throw stopError();
        let release: () => void;
        try {
          release = await rt.limiter.acquire(settings.queueTimeoutMs, [stop.signal]);
        } catch (err) {
          if (err instanceof QueueTimeoutError) {
            throw fail(503, 'Model provider busy: too many concurrent requests', { retryAfterSeconds: 1 });
          }
          throw stopError();
        }
        const callStart = performance.now();
        const call = new AbortController();
        let timedOut = false;
        const callTimer = setTimeout(() => {
          timedOut = true;
          call.abort();
        }, timeoutMs);
        const onStop = () => call.abort();
        stop.signal.addEventListener('abort', onStop, { once: true });
        let failure: Failure;
        try {
          const answer = await callChat(rt, model, req.messages, req.params, call.signal);
          attempts.push({ model: label, attempt, status: 200, error: null, latency_ms: since(callStart) });
          return { ok: true, answer };
        } catch (err) {
          failure = timedOut
            ? { kind: 'retryable', status: null, reason: `${provider} timed out after ${timeoutMs} ms`, retryAfterMs: null, timedOut: true }
            : classifyFailure(err, provider, secrets);
        } finally {
          clearTimeout(callTimer);
          stop.signal.removeEventListener('abort', onStop);
          release();
        }
        if (stop.signal.aborted && !timedOut) {
          const why = deadlineHit ? `deadline of ${settings.requestDeadlineMs} ms reached` : 'aborted by the client';
          attempts.push({ model: label, attempt, status: null, error: why, latency_ms: since(callStart) });
          throw stopError();
        }
        // Waiting out a Retry-After beyond the cap would hold the request hostage: this model
        // is done, the next one (if any) is tried at once.
        const retryAfter = failure.kind === 'retryable' ? failure.retryAfterMs : null;
        const overCap = retryAfter !== null && retryAfter > settings.retryAfterCapMs;
        if (overCap) {
          const cap = `${settings.retryAfterCapMs / 1000} s`;
          failure = { ...failure, reason: `${failure.reason} (Retry-After ${Math.ceil(retryAfter / 1000)} s exceeds the ${cap} cap)` };
        }
        attempts.push({ model: label, attempt, status: failure.status, error: failure.reason, latency_ms: since(callStart) });
        logger.debug({ model: label, attempt, status: failure.status, error: failure.reason }, 'model call attempt failed');
        if (failure.kind === 'fatal' || overCap || attempt > settings.maxRetries) return { ok: false, failure, timeoutMs };
        const wait = retryAfter ?? backoffMs(attempt - 1, random);
        // A wait that outlasts the deadline cannot lead to an answer; leave the time to fallbacks.
        if (since(startedAt) + wait >= settings.requestDeadlineMs) return { ok: false, failure, timeoutMs };
        await sleep(wait);
      }
    };

    try {
      let last: { failure: Failure; timeoutMs: number } | null = null;
      for (const label of [req.model, ...(req.fallbacks ?? [])]) {
        const target = parseModelString(label);
        if (target?.provider === ECHO_PROVIDER) {
          const result = runEcho(target.model, req, startedAt);
          return { ...result, attempts: [...attempts, ...result.attempts], latencyMs: elapsed() };
        }
        const rt = target ? runtimes.get(target.provider) : undefined;
        if (!target || !rt) {
          // Skipped, not fatal: a configured fallback can still serve.
          const reason = target ? `provider '${target.provider}' is not configured` : `model '${label}' is not <provider>/<model>`;
          attempts.push({ model: label, attempt: 1, status: null, error: reason, latency_ms: 0 });
          last = { failure: { kind: 'fatal', status: null, reason }, timeoutMs: 0 };
          continue;
        }
        const outcome = await runModel(rt, target.model, label);
        if (outcome.ok) return buildResult(req, rt, target.model, outcome.answer, attempts, elapsed());
        last = outcome;
        // Only retryable failures move on: a 400/401 or a malformed answer would fail again.
        if (outcome.failure.kind === 'fatal') break;
      }
      if (last?.failure.kind === 'retryable' && last.failure.timedOut) {
        throw fail(504, `Model provider timed out after ${last.timeoutMs} ms`);
      }
      throw fail(502, `Model provider error: ${last?.failure.reason ?? 'no model to call'}`);
    } finally {
      clearTimeout(deadlineTimer);
      req.signal?.removeEventListener('abort', onClientAbort);
    }
  }

  function buildResult(
    req: ModelRequest,
    rt: ProviderRuntime,
    model: string,
    answer: ChatAnswer,
    attempts: AttemptRecord[],
    latencyMs: number,
  ): ModelResult {
    const provider = rt.config.name;
    const reported = answer.reportedModel ?? model;
    let usage = answer.usage;
    let tokensEstimated = false;
    if (!usage) {
      // No usage in the answer (common with local servers): count what we sent and got.
      const prompt = countChatTokens(reported, req.messages).tokens;
      const completion = countTextTokens(reported, answer.output).tokens;
      usage = { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion, cachedTokens: 0, reasoningTokens: 0 };
      tokensEstimated = true;
    }
    const cost = prices.cost(provider, rt.config.baseURL, model, reported, {
      inputTokens: usage.promptTokens,
      cachedTokens: usage.cachedTokens,
      outputTokens: usage.completionTokens,
    });
    return {
      output: answer.output,
      modelRequested: req.model,
      modelUsed: `${provider}/${reported}`,
      provider,
      ...usage,
      tokensEstimated,
      costNanoUsd: cost.costNanoUsd,
      costKnown: cost.costKnown,
      price: cost.price,
      latencyMs,
      attempts,
    };
  }

  return {
    execute,
    isConfigured(model: string): boolean {
      const target = parseModelString(model);
      return target !== null && (target.provider === ECHO_PROVIDER || runtimes.has(target.provider));
    },
    async close(): Promise<void> {
      await Promise.all([...runtimes.values()].map((rt) => rt.close()));
    },
  };
}

function since(start: number): number {
  return Math.round(performance.now() - start);
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
