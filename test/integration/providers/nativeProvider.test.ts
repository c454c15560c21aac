import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatProvider, ChatRequest } from '../../../src/providers/chatProvider.js';
import { createModelGateway } from '../../../src/providers/gateway.js';
import { parseProviderEnv } from '../../../src/providers/settings.js';
import { startTestApp, type TestApp } from '../../support/harness.js';

// A provider that is not OpenAI-compatible (say a native Messages API) is one object implementing
// ChatProvider (its client enforces its per-call timeout): the gateway gives it the same deadline, retries, fallbacks, token estimates and
// run records as every other. This double stands for such a provider; no real API is called.
class Overloaded extends Error {}

function nativeDouble(failFirst: number): ChatProvider & { calls: ChatRequest[] } {
  const calls: ChatRequest[] = [];
  return {
    calls,
    name: 'native',
    timeoutMs: 1000,
    limiter: null,
    fixedPrice: { input: 3, cached_input: 0.3, output: 15, source: 'override' },
    baseURL: undefined,
    async call(request) {
      calls.push(request);
      if (calls.length <= failFirst) throw new Overloaded('overloaded');
      const words = request.messages.map((m) => m.content).join(' ');
      return {
        output: `native says: ${words}`,
        reportedModel: `${request.model}-20261101`,
        usage: { promptTokens: 1000, completionTokens: 100, totalTokens: 1100, cachedTokens: 0, reasoningTokens: 0 },
      };
    },
    classify(error) {
      return error instanceof Overloaded
        ? { kind: 'retryable', status: 529, reason: 'native returned 529: overloaded', retryAfterMs: null, timedOut: false }
        : { kind: 'fatal', status: null, reason: String(error) };
    },
    close: async () => undefined,
  };
}

let t: TestApp;
let double: ReturnType<typeof nativeDouble>;
beforeAll(async () => {
  double = nativeDouble(1);
  const { settings } = parseProviderEnv({});
  const gateway = createModelGateway(settings, { warn: () => undefined, debug: () => undefined }, { providers: [double], sleep: async () => undefined });
  t = await startTestApp({}, { gateway });
});
afterAll(async () => t.cleanup());

describe('a provider of its own kind, through the ChatProvider interface', () => {
  it('is accepted as a model, retried on its own retryable failure, priced and recorded like any other', async () => {
    const created = await t.request('POST', '/prompts', {
      body: { prompt_id: 'n', template: 'Hello {{name}}', model: 'native/opus', params: { temperature: 0 } },
    });
    expect(created.status).toBe(201);
    const res = await t.request('POST', '/run_prompt', { body: { prompt_id: 'n', inputs: { name: 'Ada' } } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ output: 'native says: Hello Ada', model_used: 'native/opus-20261101', prompt_tokens: 1000, completion_tokens: 100 });
    // 1000 × $3/M + 100 × $15/M = $0.0045, summed exactly.
    expect(res.json.token_cost_usd).toBe(0.0045);
    expect(double.calls.map((c) => [c.model, c.params])).toEqual([
      ['opus', { temperature: 0 }],
      ['opus', { temperature: 0 }],
    ]);
    const run = (await t.request('GET', `/runs/${res.json.run_id}`)).json;
    expect(run.attempts.map((a: { status: number | null; error: string | null }) => [a.status, a.error])).toEqual([
      [529, 'native returned 529: overloaded'],
      [200, null],
    ]);
  });

  it('falls back from it like from any provider', async () => {
    const failing = nativeDouble(Number.POSITIVE_INFINITY);
    const { settings } = parseProviderEnv({ PROMPTLINE_MAX_RETRIES: '1' });
    const gateway = createModelGateway(settings, { warn: () => undefined, debug: () => undefined }, { providers: [failing], sleep: async () => undefined });
    const result = await gateway.execute({ model: 'native/opus', fallbacks: ['echo/echo'], messages: [{ role: 'user', content: 'hi' }] });
    expect(result.modelUsed).toBe('echo/echo');
    expect(result.attempts.map((a) => a.model)).toEqual(['native/opus', 'native/opus', 'echo/echo']);
    await gateway.close();
  });
});
