// What a successful call returns: output, model, tokens, cost, through the real SDK and a real
// loopback server.
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { joinMessages } from '../../../src/lib/chatMessage.js';
import { createModelGateway, type ModelGateway } from '../../../src/providers/gateway.js';
import { nanoToUsd } from '../../../src/providers/prices.js';
import { parseProviderEnv } from '../../../src/providers/settings.js';
import { behave, FakeOpenAI, memoryLogger } from '../../support/fakeOpenAI.js';
import { writeTempJson } from '../../support/tempJson.js';

const KEY = 'sk-test-results-0123456789';
const messages = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'Say hi' },
];

let fake: FakeOpenAI;
let baseURL: string;
const gateways: ModelGateway[] = [];

beforeEach(async () => {
  fake = new FakeOpenAI();
  ({ baseURL } = await fake.start());
});
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  await fake.close();
});

function gateway(env: Record<string, string> = {}) {
  const { settings, errors } = parseProviderEnv({
    OPENAI_API_KEY: KEY,
    OPENAI_BASE_URL: baseURL,
    PROMPTLINE_PROVIDER_LOCAL_BASE_URL: baseURL,
    ...env,
  });
  expect(errors).toEqual([]);
  const { logger, records } = memoryLogger();
  const gw = createModelGateway(settings, logger, { sleep: async () => {} });
  gateways.push(gw);
  return { gw, records };
}

describe('a successful call', () => {
  it('sends model, messages and params through the SDK and reports the served model', async () => {
    fake.script([behave.ok({ content: 'hi', model: 'gpt-4o-mini-2024-07-18' })]);
    const { gw } = gateway();
    const params = { temperature: 0.2, max_tokens: 50, top_p: 0.9, stop: ['\n\n'], seed: 7, response_format: { type: 'text' } };
    const result = await gw.execute({ model: 'openai/gpt-4o-mini', messages, params: { ...params, stream: true } });
    expect(result).toMatchObject({
      output: 'hi',
      modelRequested: 'openai/gpt-4o-mini',
      modelUsed: 'openai/gpt-4o-mini-2024-07-18',
      provider: 'openai',
      promptTokens: 11,
      completionTokens: 7,
      totalTokens: 18,
      tokensEstimated: false,
    });
    expect(Number.isInteger(result.latencyMs)).toBe(true);
    expect(result.attempts).toEqual([{ model: 'openai/gpt-4o-mini', attempt: 1, status: 200, error: null, latency_ms: expect.any(Number) }]);
    const sent = fake.requests[0]!;
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    // `stream` is dropped: the gateway needs one JSON answer.
    expect(sent.body).toEqual({ model: 'gpt-4o-mini', messages, ...params });
  });

  it('falls back to the requested model name when the response has none', async () => {
    fake.script([behave.ok({ model: '' })]);
    const { gw } = gateway();
    expect((await gw.execute({ model: 'local/qwen2.5:7b', messages })).modelUsed).toBe('local/qwen2.5:7b');
  });

  it('reuses keep-alive connections for sequential calls', async () => {
    const { gw } = gateway();
    for (let i = 0; i < 20; i++) await gw.execute({ model: 'local/m', messages });
    // undici's pool may alternate between two idle sockets, but never opens one per call.
    expect(new Set(fake.requests.map((r) => r.clientPort)).size).toBeLessThanOrEqual(2);
  });

  it('reads cached and reasoning tokens from the usage details', async () => {
    fake.script([behave.ok({ usage: { prompt_tokens: 1200, completion_tokens: 300, cached_tokens: 1024, reasoning_tokens: 256 } })]);
    const { gw } = gateway();
    const result = await gw.execute({ model: 'openai/gpt-4o-mini', messages });
    expect(result).toMatchObject({
      promptTokens: 1200,
      completionTokens: 300,
      totalTokens: 1500,
      cachedTokens: 1024,
      reasoningTokens: 256,
      tokensEstimated: false,
    });
    // gpt-4o-mini: 150 nano-USD per uncached input token, 75 per cached, 600 per output token.
    expect(result.costNanoUsd).toBe((1200 - 1024) * 150 + 1024 * 75 + 300 * 600);
  });

  it('counts tokens locally and says so when the provider reports no usage', async () => {
    fake.script([behave.withoutUsage({ content: 'Hello there, friend.' })]);
    const { gw } = gateway();
    const result = await gw.execute({ model: 'openai/gpt-4o-mini', messages });
    // OpenAI's chat rule: 3 + Σ(3 + role + content); every role is one token.
    const prompt = 3 + (3 + 1 + o200kCount('You are terse.')) + (3 + 1 + o200kCount('Say hi'));
    const completion = o200kCount('Hello there, friend.');
    expect(result).toMatchObject({
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: prompt + completion,
      cachedTokens: 0,
      reasoningTokens: 0,
      tokensEstimated: true,
    });
  });
});

describe('cost', () => {
  it('prices gpt-4o-mini from genai-prices (0.15 / 0.075 / 0.6 USD per MTok)', async () => {
    fake.script([behave.ok({ model: 'gpt-4o-mini-2024-07-18', usage: { prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 200 } })]);
    const { gw } = gateway();
    const result = await gw.execute({ model: 'openai/gpt-4o-mini', messages });
    const expected = 800 * 150 + 200 * 75 + 100 * 600; // nano-USD
    expect(result.costNanoUsd).toBe(expected);
    expect(nanoToUsd(result.costNanoUsd)).toBe(0.000195);
    expect(result.costKnown).toBe(true);
    expect(result.price).toEqual({ input: 0.15, cached_input: 0.075, output: 0.6, source: 'genai-prices' });
  });

  it('prices gpt-4o-mini served by another OpenAI-compatible provider by its model name', async () => {
    fake.script([behave.ok({ usage: { prompt_tokens: 1000, completion_tokens: 1000 } })]);
    const { gw } = gateway();
    const result = await gw.execute({ model: 'local/gpt-4o-mini', messages });
    expect(result.costNanoUsd).toBe(1000 * 150 + 1000 * 600);
  });

  it('uses the override file, which wins over the table', async () => {
    const file = writeTempJson({
      'local/house-model': { input: 3, output: 15 },
      'openai/gpt-4o-mini': { input: 2, cached_input: 0.5, output: 8 },
    });
    fake.script([
      behave.ok({ usage: { prompt_tokens: 1000, completion_tokens: 500 } }),
      behave.ok({ model: 'gpt-4o-mini-2024-07-18', usage: { prompt_tokens: 1000, completion_tokens: 250, cached_tokens: 400 } }),
    ]);
    const { gw } = gateway({ PROMPTLINE_PRICES_FILE: file });
    const house = await gw.execute({ model: 'local/house-model', messages });
    // 1000 × 3 USD/MTok + 500 × 15 USD/MTok = 0.003 + 0.0075 = 0.0105 USD.
    expect(house.costNanoUsd).toBe(10_500_000);
    expect(nanoToUsd(house.costNanoUsd)).toBe(0.0105);
    expect(house.price).toEqual({ input: 3, cached_input: 3, output: 15, source: 'override' });
    const mini = await gw.execute({ model: 'openai/gpt-4o-mini', messages });
    // 600 × 2 + 400 × 0.5 + 250 × 8 = 3400 USD·tok/MTok = 0.0034 USD.
    expect(mini.costNanoUsd).toBe(3_400_000);
    expect(mini.price?.source).toBe('override');
  });

  it('reports an unknown model as cost 0, cost_known false, with one warning for many calls', async () => {
    const { gw, records } = gateway();
    for (let i = 0; i < 3; i++) {
      const result = await gw.execute({ model: 'local/my-finetune-xyz', messages });
      expect(result).toMatchObject({ costNanoUsd: 0, costKnown: false, price: null });
    }
    const warnings = records.filter((r) => r.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ model: 'local/my-finetune-xyz' });
  });
});

describe('the echo provider', () => {
  it('answers with the joined chat, counted with the tokenizer, at no cost', async () => {
    const { gw } = gateway();
    const result = await gw.execute({ model: 'echo/gpt-4o', messages });
    const text = 'system: You are terse.\n\nuser: Say hi';
    expect(joinMessages(messages)).toBe(text);
    expect(result).toEqual({
      output: text,
      toolCalls: [],
      modelRequested: 'echo/gpt-4o',
      modelUsed: 'echo/gpt-4o',
      provider: 'echo',
      promptTokens: o200kCount(text),
      completionTokens: o200kCount(text),
      totalTokens: 2 * o200kCount(text),
      cachedTokens: 0,
      reasoningTokens: 0,
      tokensEstimated: false,
      costNanoUsd: 0,
      costKnown: true,
      price: { input: 0, cached_input: 0, output: 0, source: 'echo' },
      latencyMs: expect.any(Number),
      attempts: [{ model: 'echo/gpt-4o', attempt: 1, status: 200, error: null, latency_ms: expect.any(Number) }],
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('answers with promptText when given; known token counts', async () => {
    const { gw } = gateway();
    const result = await gw.execute({ model: 'echo/gpt-4o', messages: [{ role: 'user', content: 'x' }], promptText: 'tiktoken is great!' });
    expect(result).toMatchObject({ output: 'tiktoken is great!', promptTokens: 6, completionTokens: 6, tokensEstimated: false });
    const other = await gw.execute({ model: 'echo/dev', messages: [], promptText: '2 + 2 = 4' });
    expect(other).toMatchObject({ modelUsed: 'echo/dev', promptTokens: 7, tokensEstimated: true });
  });

  it('is always configured, with no environment at all', () => {
    const gw = createModelGateway(parseProviderEnv({}).settings, memoryLogger().logger);
    gateways.push(gw);
    expect(gw.isConfigured('echo/anything')).toBe(true);
    expect(gw.isConfigured('openai/gpt-4o')).toBe(false);
    expect(gw.isConfigured('gpt-4o')).toBe(false);
  });
});
