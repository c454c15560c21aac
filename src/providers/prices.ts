// Prices and cost. Money is integer nano-USD (1e-9 USD) so sums are exact; nanoToUsd rounds
// only at the edge. Per-token prices are held as integer pico-USD, exact for any price per
// million tokens with up to six decimals, and the product is rounded once to nano-USD.
import { calcPrice, type ModelPrice } from '@pydantic/genai-prices';
import type { Logger } from 'pino';
import type { PriceOverride } from './settings.js';
import type { PriceUsed } from './types.js';

export interface TokenUsage {
  /** All prompt tokens, cached ones included (OpenAI's prompt_tokens). */
  inputTokens: number;
  cachedTokens: number;
  /** All completion tokens, reasoning ones included. */
  outputTokens: number;
}

export interface Cost {
  costNanoUsd: number;
  costKnown: boolean;
  price: PriceUsed | null;
}

export function nanoToUsd(nano: number): number {
  // Both operands are exact doubles, so IEEE division returns the double nearest the true
  // quotient: the same double the decimal literal parses to (10500000 → 0.0105).
  return nano / 1e9;
}

/** (input − cached)·input + cached·cached_input + output·output, rounded once to nano-USD. */
export function computeCostNano(price: PriceOverride, usage: TokenUsage): number {
  const cached = Math.min(Math.max(usage.cachedTokens, 0), usage.inputTokens);
  const pico =
    BigInt(Math.max(usage.inputTokens - cached, 0)) * picoPerToken(price.input) +
    BigInt(cached) * picoPerToken(price.cached_input) +
    BigInt(Math.max(usage.outputTokens, 0)) * picoPerToken(price.output);
  return Number((pico + 500n) / 1000n);
}

function picoPerToken(usdPerMTok: number): bigint {
  // USD per 1e6 tokens = (usdPerMTok · 1e6) pico-USD per token.
  return BigInt(Math.round(usdPerMTok * 1e6));
}

type Resolved = { kind: 'override'; price: PriceOverride } | { kind: 'genai'; modelPrice: ModelPrice } | { kind: 'unknown' };

/** genai-prices has time-of-day prices (e.g. off-peak discounts), so its answers expire. */
const GENAI_TTL_MS = 60_000;
const MAX_CACHE = 10_000;
const NO_USAGE = { input_tokens: 0, output_tokens: 0 };

export class PriceBook {
  private readonly cache = new Map<string, { resolved: Resolved; expiresAt: number }>();
  private readonly warned = new Set<string>();

  constructor(
    private readonly overrides: Readonly<Record<string, PriceOverride>>,
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Cost of one call. `reportedModel` is what the provider said it ran (e.g. a dated snapshot);
   * `requestedModel` is tried after it. `baseURL` lets genai-prices recognise a provider that
   * the operator named differently (e.g. "myrouter" pointing at openrouter.ai).
   */
  cost(provider: string, baseURL: string | undefined, requestedModel: string, reportedModel: string, usage: TokenUsage): Cost {
    const resolved = this.resolve(provider, baseURL, requestedModel, reportedModel);
    if (resolved.kind === 'unknown') {
      this.warnOnce(provider, reportedModel);
      return { costNanoUsd: 0, costKnown: false, price: null };
    }
    const price =
      resolved.kind === 'override'
        ? { ...resolved.price, source: 'override' as const }
        : { ...fromModelPrice(resolved.modelPrice, usage.inputTokens), source: 'genai-prices' as const };
    return { costNanoUsd: computeCostNano(price, usage), costKnown: true, price };
  }

  private resolve(provider: string, baseURL: string | undefined, requested: string, reported: string): Resolved {
    const key = `${provider}\u0000${baseURL ?? ''}\u0000${requested}\u0000${reported}`;
    const hit = this.cache.get(key);
    const now = this.now();
    if (hit && hit.expiresAt > now) return hit.resolved;
    const resolved = this.lookup(provider, baseURL, requested === reported ? [reported] : [reported, requested]);
    if (this.cache.size >= MAX_CACHE) this.cache.clear();
    this.cache.set(key, {
      resolved,
      expiresAt: resolved.kind === 'override' ? Number.POSITIVE_INFINITY : now + GENAI_TTL_MS,
    });
    return resolved;
  }

  private lookup(provider: string, baseURL: string | undefined, models: string[]): Resolved {
    for (const model of models) {
      const price = this.overrides[`${provider}/${model}`];
      if (price) return { kind: 'override', price };
    }
    // Provider-aware first (by our provider name, then by its URL), then by model name alone
    // so that e.g. gpt-4o-mini behind any OpenAI-compatible proxy is still priced.
    const attempts: Array<{ providerId?: string; providerApiUrl?: string } | undefined> = [{ providerId: provider }];
    if (baseURL) attempts.push({ providerApiUrl: baseURL });
    attempts.push(undefined);
    for (const options of attempts) {
      for (const model of models) {
        const modelPrice = safeCalc(model, options);
        if (modelPrice) return { kind: 'genai', modelPrice };
      }
    }
    return { kind: 'unknown' };
  }

  private warnOnce(provider: string, model: string): void {
    const key = `${provider}/${model}`;
    if (this.warned.has(key)) return;
    if (this.warned.size >= MAX_CACHE) this.warned.clear();
    this.warned.add(key);
    this.logger.warn({ model: key }, 'no price known for this model: its runs cost 0 with cost_known=false (add it to PROMPTLINE_PRICES_FILE)');
  }
}

function safeCalc(model: string, options: { providerId?: string; providerApiUrl?: string } | undefined): ModelPrice | null {
  try {
    return calcPrice(NO_USAGE, model, options)?.model_price ?? null;
  } catch {
    // The library throws on inconsistent price data; an unpriceable model is an unknown one.
    return null;
  }
}

/** Token prices of a genai-prices entry at this prompt size (tiers apply to the whole request). */
function fromModelPrice(mp: ModelPrice, inputTokens: number): PriceOverride {
  const input = atSize(mp.input_mtok, inputTokens);
  return {
    input,
    cached_input: mp.cache_read_mtok === undefined ? input : atSize(mp.cache_read_mtok, inputTokens),
    output: atSize(mp.output_mtok, inputTokens),
  };
}

function atSize(value: ModelPrice[string], inputTokens: number): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  // genai-prices' rule: the last tier whose start the prompt size exceeds sets the rate.
  let rate = value.base;
  for (const tier of [...value.tiers].sort((a, b) => a.start - b.start)) {
    if (inputTokens > tier.start) rate = tier.price;
  }
  return rate;
}
