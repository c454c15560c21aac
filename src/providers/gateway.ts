// The model gateway: resolves `<provider>/<model>`, runs the request under its deadline, moves on
// to the fallbacks when a model fails for a retryable reason, and returns output, tokens and cost
// as plain data. Retries are attempts.ts's; calling an API is the providers'.
import type { Logger } from 'pino';
import { attemptUntilAnswered, since, type AttemptContext, type ModelOutcome } from './attempts.js';
import type { ChatAnswer, ChatProvider, ChatRequest } from './chatProvider.js';
import { followStream, openStream, type OpenedStream } from './streaming.js';
import { ModelCallError, ServerShutdown } from './errors.js';
import { computeCostNano, PriceBook } from './prices.js';
import { createProviderRegistry } from './registry.js';
import type { ProviderSettings } from './settings.js';
import { countChatTokens, countTextTokens } from './tokens.js';
import type { AttemptRecord, ModelGateway, ModelRequest, ModelResult, ModelStream } from './types.js';

export type { ModelGateway, ModelRequest, ModelResult, ModelStream, StreamEvent } from './types.js';
export { ModelCallError, ServerShutdown } from './errors.js';

/** What the gateway logs through: a pino logger, or Fastify's `app.log`. */
export type ProviderLogger = Pick<Logger, 'warn' | 'debug'>;

export interface GatewayOptions {
  /** Uniform in [0, 1); injected by tests to pin the jitter. */
  random?: () => number;
  /** Injected by tests to record (and skip) backoff waits. */
  sleep?: (ms: number) => Promise<void>;
  /** Providers beyond the configured ones (tests use a double). */
  providers?: readonly ChatProvider[];
}

/** `<provider>/<model>`, split at the first slash (model ids may contain more, e.g. OpenRouter's). */
function parseModelString(value: string): { provider: string; model: string } | null {
  const slash = value.indexOf('/');
  if (slash <= 0 || slash === value.length - 1) return null;
  return { provider: value.slice(0, slash).toLowerCase(), model: value.slice(slash + 1) };
}

export function createModelGateway(settings: ProviderSettings, logger: ProviderLogger, opts: GatewayOptions = {}): ModelGateway {
  const providers = createProviderRegistry(settings, opts.providers);
  const prices = new PriceBook(settings.priceOverrides, logger);

  /** One request's shared state: its clock, its record of attempts, its stop signal and deadline. */
  function begin(req: ModelRequest): { ctx: AttemptContext; stop: AbortController; end: () => void } {
    const startedAt = performance.now();
    const attempts: AttemptRecord[] = [];
    const fail: AttemptContext['fail'] = (kind, message, extra = {}) => new ModelCallError(kind, message, attempts, since(startedAt), extra);

    // One signal stops everything in flight (call, queue wait, backoff, a stream): the request
    // deadline or the caller going away (the caller aborts the same controller).
    const stop = req.abort ?? new AbortController();
    let deadlineHit = false;
    const deadlineTimer = setTimeout(() => {
      deadlineHit = true;
      stop.abort();
    }, settings.requestDeadlineMs);
    const ctx: AttemptContext = {
      settings,
      startedAt,
      stop: stop.signal,
      attempts,
      logger,
      fail,
      sleep: opts.sleep,
      random: opts.random ?? Math.random,
      deadlineHit: () => deadlineHit,
      stopError: () =>
        deadlineHit
          ? fail('timeout', `Model provider timed out after ${settings.requestDeadlineMs} ms`)
          : stop.signal.reason instanceof ServerShutdown
            ? fail('failed', 'Model provider error: the server shut down during the call')
            : new ModelCallError('failed', 'Model provider error: request aborted by the client', attempts, since(startedAt), { clientAborted: true }),
    };
    return { ctx, stop, end: () => clearTimeout(deadlineTimer) };
  }

  /** The model, then its fallbacks, each with its retries, until one answers through `invoke`. */
  async function firstAnswer<T>(
    req: ModelRequest,
    ctx: AttemptContext,
    invoke: (provider: ChatProvider, request: ChatRequest) => (signal: AbortSignal) => Promise<T>,
    keepSlot: boolean,
  ): Promise<{ provider: ChatProvider; model: string; answer: T; release: () => void }> {
    let last: Extract<ModelOutcome, { ok: false }> | null = null;
    for (const label of [req.model, ...(req.fallbacks ?? [])]) {
      const target = parseModelString(label);
      const provider = target ? providers.get(target.provider) : undefined;
      if (!target || !provider) {
        // Skipped, not fatal: a configured fallback can still serve.
        const reason = target ? `provider '${target.provider}' is not configured` : `model '${label}' is not <provider>/<model>`;
        ctx.attempts.push({ model: label, attempt: 1, status: null, error: reason, latency_ms: 0 });
        last = { ok: false, failure: { kind: 'fatal', status: null, reason }, timeoutMs: 0 };
        continue;
      }
      const request = { model: target.model, messages: req.messages, params: req.params ?? {}, promptText: req.promptText };
      const outcome = await attemptUntilAnswered(provider, label, ctx, invoke(provider, request), keepSlot);
      if (outcome.ok) return { provider, model: target.model, answer: outcome.answer, release: outcome.release };
      last = outcome;
      // Only retryable failures move on: a 400/401 or a malformed answer would fail again.
      if (outcome.failure.kind === 'fatal') break;
    }
    if (last?.failure.kind === 'retryable' && last.failure.timedOut) throw ctx.fail('timeout', `Model provider timed out after ${last.timeoutMs} ms`);
    throw ctx.fail('failed', `Model provider error: ${last?.failure.reason ?? 'no model to call'}`);
  }

  async function execute(req: ModelRequest): Promise<ModelResult> {
    const { ctx, end } = begin(req);
    try {
      const won = await firstAnswer(req, ctx, (provider, request) => (signal) => provider.call(request, signal), false);
      return buildResult(req, won.provider, won.model, won.answer, ctx.attempts, since(ctx.startedAt));
    } finally {
      end();
    }
  }

  /**
   * Retries and fallbacks up to the first token, as `execute`'s; from it on the stream is that
   * provider's, and a failure ends it (streaming.ts). Rejects only before the first token.
   */
  async function stream(req: ModelRequest): Promise<ModelStream> {
    const { ctx, stop, end } = begin(req);
    let won: Awaited<ReturnType<typeof firstAnswer<OpenedStream>>>;
    try {
      won = await firstAnswer(req, ctx, (provider, request) => (signal) => openStream(provider, request, signal), true);
    } catch (error) {
      end();
      throw error;
    }
    const { provider, model, release } = won;
    return followStream(won.answer, {
      ctx,
      stop: stop.signal,
      classify: (error) => provider.classify(error).reason,
      result: (answer) => buildResult(req, provider, model, answer, ctx.attempts, since(ctx.startedAt)),
      done: () => {
        end();
        release();
      },
    });
  }

  function buildResult(
    req: ModelRequest,
    provider: ChatProvider,
    model: string,
    answer: ChatAnswer,
    attempts: AttemptRecord[],
    latencyMs: number,
  ): ModelResult {
    const reported = answer.reportedModel ?? model;
    let usage = answer.usage;
    let tokensEstimated = answer.usageEstimated ?? false;
    if (!usage) {
      // No usage in the answer (common with local servers): count what we sent and got.
      const prompt = countChatTokens(reported, req.messages).tokens;
      const calls = (answer.toolCalls ?? []).map((c) => `${c.function.name}${c.function.arguments}`).join('');
      const completion = countTextTokens(reported, answer.output + calls).tokens;
      usage = { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion, cachedTokens: 0, reasoningTokens: 0 };
      tokensEstimated = true;
    }
    const tokens = { inputTokens: usage.promptTokens, cachedTokens: usage.cachedTokens, outputTokens: usage.completionTokens };
    const cost = provider.fixedPrice
      ? { costNanoUsd: computeCostNano(provider.fixedPrice, tokens), costKnown: true, price: { ...provider.fixedPrice } }
      : prices.cost(provider.name, provider.baseURL, model, reported, tokens);
    return {
      output: answer.output,
      toolCalls: answer.toolCalls ?? [],
      modelRequested: req.model,
      modelUsed: `${provider.name}/${reported}`,
      provider: provider.name,
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
    stream,
    isConfigured(model: string): boolean {
      const target = parseModelString(model);
      return target !== null && providers.has(target.provider);
    },
    async close(): Promise<void> {
      await Promise.all([...providers.values()].map((p) => p.close()));
    },
  };
}
