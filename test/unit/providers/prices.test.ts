import { describe, expect, it } from 'vitest';
import { computeCostNano, nanoToUsd, PriceBook } from '../../../src/providers/prices.js';
import { memoryLogger } from '../../support/fakeOpenAI.js';

// gpt-4o-mini in @pydantic/genai-prices 0.1.8 (read from its bundled table): input 0.15,
// cache_read 0.075, output 0.6 USD per million tokens, i.e. 150, 75 and 600 nano-USD per token.
const GPT_4O_MINI = { input: 0.15, cached_input: 0.075, output: 0.6 };

describe('money', () => {
  it('converts nano-USD to USD without binary noise', () => {
    expect(nanoToUsd(10_500_000)).toBe(0.0105);
    expect(nanoToUsd(195_000)).toBe(0.000195);
    expect(nanoToUsd(1)).toBe(1e-9);
    expect(nanoToUsd(0)).toBe(0);
    // Summing integers then converting once stays exact where float sums drift.
    const runs = Array.from({ length: 3 }, () => 35_000_000); // 0.035 USD each
    expect(nanoToUsd(runs.reduce((a, b) => a + b, 0))).toBe(0.105);
  });

  it('charges uncached input, cached input and output at their own prices', () => {
    const usage = { inputTokens: 1000, cachedTokens: 200, outputTokens: 100 };
    expect(computeCostNano(GPT_4O_MINI, usage)).toBe(800 * 150 + 200 * 75 + 100 * 600);
    expect(computeCostNano({ input: 3, cached_input: 3, output: 15 }, { inputTokens: 1000, cachedTokens: 0, outputTokens: 500 })).toBe(
      10_500_000,
    );
  });

  it('handles sub-nano per-token prices exactly and rounds once', () => {
    // 0.0375 USD/MTok = 37.5 nano-USD per token: 3 tokens = 112.5 → 113 (half up), not 3 × 38.
    expect(computeCostNano({ input: 0.0375, cached_input: 0, output: 0 }, { inputTokens: 3, cachedTokens: 0, outputTokens: 0 })).toBe(113);
  });
});

describe('PriceBook', () => {
  it('prices a known OpenAI model from genai-prices, including its dated snapshot name', () => {
    const { logger } = memoryLogger();
    const book = new PriceBook({}, logger);
    const usage = { inputTokens: 1000, cachedTokens: 200, outputTokens: 100 };
    const cost = book.cost('openai', undefined, 'gpt-4o-mini', 'gpt-4o-mini-2024-07-18', usage);
    expect(cost).toEqual({
      costNanoUsd: 800 * 150 + 200 * 75 + 100 * 600,
      costKnown: true,
      price: { ...GPT_4O_MINI, source: 'genai-prices' },
    });
  });

  it('prices an OpenAI model served under another provider name by model name', () => {
    const { logger } = memoryLogger();
    const book = new PriceBook({}, logger);
    const cost = book.cost('myproxy', 'http://127.0.0.1:9/v1', 'gpt-4o-mini', 'gpt-4o-mini', {
      inputTokens: 2000,
      cachedTokens: 0,
      outputTokens: 1000,
    });
    expect(cost.costNanoUsd).toBe(2000 * 150 + 1000 * 600);
    expect(cost.price?.source).toBe('genai-prices');
  });

  it('recognises a provider by its base URL (an operator-named OpenRouter)', () => {
    const { logger } = memoryLogger();
    const book = new PriceBook({}, logger);
    const usage = { inputTokens: 1000, cachedTokens: 0, outputTokens: 1000 };
    const byUrl = book.cost('router', 'https://openrouter.ai/api/v1', 'openai/gpt-4o-mini', 'openai/gpt-4o-mini', usage);
    expect(byUrl.costKnown).toBe(true);
    expect(byUrl.price).toMatchObject({ input: 0.15, output: 0.6 });
  });

  it('lets overrides win over the table and price unknown models', () => {
    const { logger } = memoryLogger();
    const book = new PriceBook(
      {
        'openai/gpt-4o-mini': { input: 1, cached_input: 0.5, output: 2 },
        'ollama/llama3.1:8b': { input: 0, cached_input: 0, output: 0 },
      },
      logger,
    );
    const usage = { inputTokens: 1000, cachedTokens: 400, outputTokens: 250 };
    expect(book.cost('openai', undefined, 'gpt-4o-mini', 'gpt-4o-mini-2024-07-18', usage)).toEqual({
      costNanoUsd: 600 * 1000 + 400 * 500 + 250 * 2000,
      costKnown: true,
      price: { input: 1, cached_input: 0.5, output: 2, source: 'override' },
    });
    expect(book.cost('ollama', 'http://localhost:11434/v1', 'llama3.1:8b', 'llama3.1:8b', usage)).toMatchObject({
      costNanoUsd: 0,
      costKnown: true,
    });
  });

  it('reports an unknown model as cost 0, cost_known false, warning once per model', () => {
    const { logger, records } = memoryLogger();
    const book = new PriceBook({}, logger);
    const usage = { inputTokens: 10, cachedTokens: 0, outputTokens: 10 };
    for (let i = 0; i < 3; i++) {
      expect(book.cost('ollama', 'http://localhost:11434/v1', 'no-such-model-xyz', 'no-such-model-xyz', usage)).toEqual({
        costNanoUsd: 0,
        costKnown: false,
        price: null,
      });
    }
    book.cost('ollama', 'http://localhost:11434/v1', 'another-unknown-xyz', 'another-unknown-xyz', usage);
    const warnings = records.filter((r) => r.level === 40);
    expect(warnings.map((w) => w.model)).toEqual(['ollama/no-such-model-xyz', 'ollama/another-unknown-xyz']);
  });
});
