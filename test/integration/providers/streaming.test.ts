// The gateway's stream (src/providers/streaming.ts) against a loopback fake through the real SDK:
// how a committed stream ends when the deadline passes or its consumer leaves, and a provider that
// cannot stream.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatProvider } from '../../../src/providers/chatProvider.js';
import { createModelGateway, type ModelGateway, type ModelStream } from '../../../src/providers/gateway.js';
import { parseProviderEnv } from '../../../src/providers/settings.js';
import { behave, FakeOpenAI, memoryLogger } from '../../support/fakeOpenAI.js';

const messages = [{ role: 'user' as const, content: 'Say hi' }];
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

function gateway(env: Record<string, string> = {}, providers: ChatProvider[] = []): ModelGateway {
  const { settings, errors } = parseProviderEnv({
    PROMPTLINE_PROVIDER_MAIN_BASE_URL: baseURL,
    PROMPTLINE_PROVIDER_MAIN_API_KEY: 'sk-test-stream-gateway-000',
    PROMPTLINE_REQUEST_DEADLINE_MS: '5000',
    ...env,
  });
  expect(errors).toEqual([]);
  const gw = createModelGateway(settings, memoryLogger().logger, { sleep: async () => undefined, providers });
  gateways.push(gw);
  return gw;
}

async function texts(stream: ModelStream, stopAfter = Number.POSITIVE_INFINITY): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of stream.events) {
    if (event.type === 'text') seen.push(event.text);
    if (seen.length >= stopAfter) break;
  }
  return seen;
}

describe('the gateway stream', () => {
  it('ends with status error when the request deadline passes mid-stream, keeping what came', async () => {
    fake.script([behave.stream({ chunks: 50, delayMs: 40 })]);
    const stream = await gateway({ PROMPTLINE_REQUEST_DEADLINE_MS: '300' }).stream({ model: 'main/gpt-4o-mini', messages });
    const seen = await texts(stream);
    const end = await stream.end;
    expect(end.status).toBe('error');
    expect(end.error).toBe('Model provider timed out after 300 ms');
    expect(end.result.output).toBe(seen.join(''));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(50);
    expect(end.result.tokensEstimated).toBe(true);
  });

  it('aborts the upstream call and ends cancelled when its consumer stops reading', async () => {
    fake.script([behave.stream({ chunks: 50, delayMs: 10 })]);
    const stream = await gateway().stream({ model: 'main/gpt-4o-mini', messages });
    expect(await texts(stream, 2)).toEqual(['w0 ', 'w1 ']);
    const end = await stream.end;
    expect(end).toMatchObject({ status: 'cancelled', error: null });
    expect(end.result.output).toBe('w0 w1 ');
    for (let i = 0; i < 100 && !fake.requests[0]!.clientClosed; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fake.requests[0]!.clientClosed).toBe(true);
  });

  it('puts tool calls together from their pieces', async () => {
    fake.script([
      behave.stream({
        toolCalls: [
          { id: 'call_a', name: 'lookup', arguments: '{"q":"x"}' },
          { id: 'call_b', name: 'fetch', arguments: '{"url":"y"}' },
        ],
      }),
    ]);
    const stream = await gateway().stream({ model: 'main/gpt-4o-mini', messages });
    await texts(stream);
    expect((await stream.end).toolCalls).toEqual([
      { index: 0, id: 'call_a', name: 'lookup', arguments: '{"q":"x"}' },
      { index: 1, id: 'call_b', name: 'fetch', arguments: '{"url":"y"}' },
    ]);
  });

  it('answers in one piece from a provider that cannot stream, its usage kept', async () => {
    const plain: ChatProvider = {
      name: 'plain',
      timeoutMs: null,
      limiter: null,
      fixedPrice: { input: 0, cached_input: 0, output: 0, source: 'echo' },
      baseURL: undefined,
      call: async () => ({
        output: 'all at once',
        reportedModel: 'plain-1',
        usage: { promptTokens: 3, completionTokens: 3, totalTokens: 6, cachedTokens: 0, reasoningTokens: 0 },
      }),
      classify: () => ({ kind: 'fatal', status: null, reason: 'no' }),
      close: async () => undefined,
    };
    const stream = await gateway({}, [plain]).stream({ model: 'plain/x', messages });
    expect(await texts(stream)).toEqual(['all at once']);
    expect((await stream.end).result).toMatchObject({ output: 'all at once', modelUsed: 'plain/plain-1', totalTokens: 6, tokensEstimated: false });
  });
});
