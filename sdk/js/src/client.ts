import { randomUUID } from 'node:crypto';
import { indexBundle, type BundleIndex, type BundleLimits, type PreparedPrompt, type WireBundle } from './bundle.js';
import { PromptlineValidationError } from './errors.js';
import { evaluate, type GetPromptBody, type GetPromptRequest } from './evaluate.js';
import { ExposureQueue, type ExposureBatch } from './exposures.js';
import { prepareFallbacks } from './fallback.js';
import { isTransient, Transport } from './transport.js';
import type {
  ClientStats,
  GetPromptParams,
  OutcomeResult,
  PromptlineOptions,
  PromptResult,
  RunPromptParams,
  RunResult,
  TrackOutcomeParams,
  WireOutcome,
  WireRun,
} from './types.js';

/** Limits for fallbacks rendered before any bundle told the server's: the server's defaults. */
const DEFAULT_LIMITS: BundleLimits = {
  render_max_bytes: 1_048_576,
  render_max_steps: 50_000,
  prompt_id_max_length: 128,
  external_user_id_max_length: 256,
  inputs_max_entries: 256,
  body_max_bytes: 1_048_576,
};
const EXPOSURE_FLUSH_MS = 1_000;

/**
 * Promptline's client (docs/sdks.md). In local mode it loads the bundle at start and refreshes it in
 * the background, answering getPrompt from memory in microseconds, exactly as the server would; it
 * keeps the last bundle while the server is unreachable, and serves the caller's fallback only when
 * neither the bundle nor the server can answer.
 */
export class Promptline {
  private readonly transport: Transport;
  private readonly options: Required<Omit<PromptlineOptions, 'fallbacks' | 'onError'>> & Pick<PromptlineOptions, 'onError'>;
  private readonly fallbacks: Map<string, PreparedPrompt>;
  private readonly exposures: ExposureQueue;
  private readonly timers: NodeJS.Timeout[] = [];
  private index: BundleIndex | null = null;
  private etag: string | null = null;
  private confirmedAt: number | null = null;
  private refreshing: Promise<void> | null = null;
  private readonly firstLoad: Promise<void>;
  private closed = false;
  private readonly counters = { bundleHits: 0, serverCalls: 0, fallbacks: 0, refreshes: 0, refreshFailures: 0 };

  constructor(options: PromptlineOptions) {
    this.options = { timeoutMs: 5_000, runTimeoutMs: 120_000, mode: 'local', refreshMs: 10_000, maxRetries: 2, ...options };
    this.transport = new Transport({ baseUrl: options.baseUrl, apiKey: options.apiKey, maxRetries: this.options.maxRetries });
    this.fallbacks = prepareFallbacks(options.fallbacks ?? {});
    this.exposures = new ExposureQueue((batch) => this.report(batch), isTransient);
    if (this.options.mode === 'local') {
      this.firstLoad = this.refresh();
      this.timers.push(setInterval(() => void this.refresh(), this.options.refreshMs));
      this.timers.push(setInterval(() => this.flushExposures(), EXPOSURE_FLUSH_MS));
      for (const timer of this.timers) timer.unref();
    } else {
      this.firstLoad = Promise.resolve();
    }
  }

  /** Resolves once the first bundle load has settled: true when a bundle is in use. Never rejects. */
  async ready(): Promise<boolean> {
    await this.firstLoad;
    return this.index !== null;
  }

  async getPrompt(params: GetPromptParams): Promise<PromptResult> {
    const request: GetPromptRequest = { prompt_id: params.promptId, inputs: params.inputs ?? {} };
    if (params.externalUserId != null) request.external_user_id = params.externalUserId;
    if (this.options.mode === 'local') {
      if (this.index === null) await this.firstLoadWithin(this.options.timeoutMs);
      const local = this.index === null ? null : evaluate(this.index, request);
      if (local !== null && local.kind !== 'remote') {
        this.counters.bundleHits++;
        if (local.exposure !== null) this.exposures.add(local.exposure.experiment_id, params.externalUserId!, local.exposure.variant);
        if (local.kind === 'invalid') throw new PromptlineValidationError(local.detail);
        return result(local.body, 'bundle');
      }
    }
    try {
      const answer = await this.transport.send({ method: 'POST', path: '/get_prompt', body: request, timeoutMs: this.options.timeoutMs });
      this.counters.serverCalls++;
      return result(answer.json as GetPromptBody, 'server');
    } catch (error) {
      if (!this.fallbacks.has(params.promptId) || !isTransient(error)) throw error;
      this.options.onError?.(error);
      this.counters.fallbacks++;
      const rendered = evaluate({ limits: this.index?.limits ?? DEFAULT_LIMITS, prompts: this.fallbacks }, request);
      if (rendered.kind === 'invalid') throw new PromptlineValidationError(rendered.detail);
      if (rendered.kind === 'remote') throw error;
      return { ...result(rendered.body, 'fallback'), promptVersion: null };
    }
  }

  async runPrompt(params: RunPromptParams): Promise<RunResult> {
    const body: Record<string, unknown> = { prompt_id: params.promptId, inputs: params.inputs };
    if (params.externalUserId != null) body.external_user_id = params.externalUserId;
    const answer = await this.transport.send({ method: 'POST', path: '/run_prompt', body, timeoutMs: this.options.runTimeoutMs, idempotencyKey: randomUUID() });
    this.counters.serverCalls++;
    const r = answer.json as WireRun;
    return {
      runId: r.run_id,
      output: r.output,
      modelUsed: r.model_used,
      latencyMs: r.latency_ms,
      promptTokens: r.prompt_tokens,
      completionTokens: r.completion_tokens,
      totalTokens: r.total_tokens,
      tokenCostUsd: r.token_cost_usd,
      variantAssigned: r.variant_assigned,
      experimentId: r.experiment_id,
      promptVersion: r.prompt_version,
    };
  }

  /**
   * Records an outcome, stored once however often it is retried. Users this client assigned are
   * reported first, so an outcome tracked by user is attributed to the variant the user was served.
   */
  async trackOutcome(params: TrackOutcomeParams): Promise<OutcomeResult> {
    if (this.exposures.size > 0) await this.flushExposures();
    const wire: Array<[string, unknown]> = [
      ['prompt_run_id', params.promptRunId],
      ['prompt_id', params.promptId],
      ['external_user_id', params.externalUserId],
      ['event_type', params.eventType],
      ['label', params.label],
      ['value', params.value],
      ['numeric_value', params.numericValue],
      ['is_success', params.isSuccess],
      ['source', params.source],
      ['metadata', params.metadata],
    ];
    const body = Object.fromEntries(wire.filter(([, v]) => v !== undefined));
    const answer = await this.transport.send({ method: 'POST', path: '/track_outcome', body, timeoutMs: this.options.timeoutMs, idempotencyKey: randomUUID() });
    this.counters.serverCalls++;
    const r = answer.json as WireOutcome;
    return { outcomeId: r.outcome_id, status: r.status, experimentId: r.experiment_id, variantAssigned: r.variant_assigned };
  }

  stats(): ClientStats {
    return {
      ...this.counters,
      bundleAgeMs: this.confirmedAt === null ? null : Date.now() - this.confirmedAt,
      exposuresPending: this.exposures.size,
      exposuresSent: this.exposures.sent,
      exposuresDropped: this.exposures.dropped,
    };
  }

  /** Stops the background work and reports the exposures still queued (as far as the server lets it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    await this.refreshing;
    await this.flushExposures();
  }

  /** Loads the bundle (or confirms it: 304); on failure keeps the one in use. Never rejects. */
  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const answer = await this.transport.send({
          method: 'GET',
          path: '/sdk/bundle',
          timeoutMs: this.options.timeoutMs,
          retries: 0, // the next refresh is the retry
          headers: this.etag === null ? {} : { 'if-none-match': this.etag },
        });
        if (answer.status !== 304) {
          this.index = indexBundle(answer.json as WireBundle);
          this.etag = this.index === null ? null : answer.headers.get('etag');
        }
        this.confirmedAt = Date.now();
        this.counters.refreshes++;
      } catch (error) {
        this.counters.refreshFailures++;
        this.options.onError?.(error);
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  private async firstLoadWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.firstLoad, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  private async report(batch: ExposureBatch): Promise<void> {
    await this.transport.send({ method: 'POST', path: '/sdk/exposures', body: batch.body, timeoutMs: this.options.timeoutMs, idempotencyKey: batch.key });
  }

  private flushExposures(): Promise<void> {
    return this.exposures.flush().catch((error: unknown) => this.options.onError?.(error));
  }
}

function result(body: GetPromptBody, source: PromptResult['source']): PromptResult {
  const answer: PromptResult = {
    promptText: body.prompt_text,
    variantAssigned: body.variant_assigned,
    experimentId: body.experiment_id,
    promptVersion: body.prompt_version,
    source,
  };
  if (body.messages !== undefined) answer.messages = body.messages as PromptResult['messages'];
  return answer;
}
