import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError, BadRequestError, RateLimitError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDirectCompletion } from '../../../src/providers/directCompletion.js';
import { createPooledFetch } from '../../../src/providers/pooledFetch.js';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';

// The direct call must be indistinguishable from the SDK's own to the provider, and to
// classifyFailure: the same request on the wire, the same errors back.
const fake = new FakeOpenAI();
let client: OpenAI;
let complete: ReturnType<typeof createDirectCompletion>;
const pooled = createPooledFetch({ connections: 4, connectTimeoutMs: 1000 });
const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hi' }], temperature: 0 };
const signal = () => new AbortController().signal;

beforeAll(async () => {
  const { baseURL } = await fake.start();
  client = new OpenAI({ apiKey: 'sk-test', baseURL, organization: null, project: null, maxRetries: 0, timeout: 200, fetch: pooled.fetch, logLevel: 'off' });
  complete = createDirectCompletion(client, pooled, 200);
});
afterAll(async () => {
  await pooled.close();
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.setDefault(behave.ok());
});

describe('a chat completion sent without the SDK’s per-call machinery', () => {
  it('sends what the SDK sends: the same path, headers and body', async () => {
    const viaSdk = await client.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsNonStreaming);
    const direct = (await complete(body, signal())) as Record<string, unknown>;
    // The same answer (the fake numbers its completions; the SDK adds its `_request_id`).
    const { id: _i, _request_id: _r, ...sdkAnswer } = viaSdk as unknown as Record<string, unknown>;
    const { id: _j, ...ourAnswer } = direct;
    expect(ourAnswer).toEqual(sdkAnswer);
    const [sdk, ours] = fake.requests;
    expect(ours!.url).toBe(sdk!.url);
    expect(ours!.body).toEqual(sdk!.body);
    const { 'content-length': _a, ...sdkHeaders } = sdk!.headers;
    const { 'content-length': _b, ...ourHeaders } = ours!.headers;
    expect(ourHeaders).toEqual(sdkHeaders);
    expect(ourHeaders).toMatchObject({ authorization: 'Bearer sk-test', 'content-type': 'application/json', accept: 'application/json' });
  });

  it("turns an error status into the SDK's own error, with its body and headers", async () => {
    fake.script([behave.status(400, 'bad temperature'), behave.rateLimited({ 'retry-after': '7' })]);
    const bad = await complete(body, signal()).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad).toMatchObject({ status: 400, error: { message: 'bad temperature' } });
    const limited = await complete(body, signal()).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).headers?.get('retry-after')).toBe('7');
  });

  it('times the whole call out as the SDK does, and says when the caller aborted', async () => {
    fake.setDefault(behave.ok({ delayMs: 1000 }));
    const started = performance.now();
    await expect(complete(body, signal())).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    expect(performance.now() - started).toBeLessThan(900);
    const caller = new AbortController();
    const call = complete(body, caller.signal);
    setTimeout(() => caller.abort(), 20);
    await expect(call).rejects.toBeInstanceOf(APIUserAbortError);
  });

  it('reports a refused connection as a connection error', async () => {
    const nowhere = new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', organization: null, project: null, maxRetries: 0, fetch: pooled.fetch });
    await expect(createDirectCompletion(nowhere, pooled, 1000)(body, signal())).rejects.toBeInstanceOf(APIConnectionError);
  });
});
