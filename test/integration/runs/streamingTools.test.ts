// Streaming and tools together (docs/streaming.md, "Tool calls and structured output"): a streamed
// run sends the version's tools, tool_choice and response_format as a plain run does, passes tool
// calls on as delta pieces, and stores the assembled calls and the output's verdict.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';
import { type SseEvent, ssePost } from '../../support/sse.js';

let fake: FakeOpenAI;
let t: TestApp;
let port: number;

const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
const ANSWER_SCHEMA = {
  type: 'json_schema',
  json_schema: { name: 'answer', schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } },
};
const IMAGE_MESSAGES = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in {{what}}?' },
      { type: 'image_url', image_url: { url: '{{image_url}}' } },
    ],
  },
];

beforeAll(async () => {
  fake = new FakeOpenAI();
  t = await startTestApp({ PROMPTLINE_PROVIDER_FAKE_BASE_URL: (await fake.start()).baseURL, PROMPTLINE_MAX_RETRIES: '0' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  await givenPrompt(t, { prompt_id: 'weather', template: 'Weather in {{city}}?', model: 'fake/m', tools: [WEATHER], tool_choice: 'auto' } as never);
  await givenPrompt(t, { prompt_id: 'structured', template: 'Answer {{q}}', model: 'fake/m', response_format: ANSWER_SCHEMA } as never);
  await givenPrompt(t, { prompt_id: 'vision', messages: IMAGE_MESSAGES as never, model: 'fake/m' });
});

afterAll(async () => {
  await t?.cleanup();
  await fake?.close();
});

const stream = (route: string, body: unknown) => ssePost(port, route, body);
const deltas = (events: SseEvent[]) => events.filter((e) => e.event === 'delta').map((e) => e.data);
const storedRun = async (id: string) => (await t.request('GET', `/runs/${id}`)).json;

describe('a streamed run of a version with tools', () => {
  it('sends the tools upstream, streams the call in pieces, and answers and stores it assembled', async () => {
    fake.script([behave.stream({ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] })]);
    const res = await stream('/run_prompt', { prompt_id: 'weather', inputs: { city: 'Oslo' } });
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true }, tools: [WEATHER], tool_choice: 'auto' });

    const pieces = deltas(res.events).map((d) => d.tool_call);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces[0]).toEqual({ index: 0, id: 'call_1', name: 'get_weather', arguments: '' });
    expect(pieces.map((p) => p.arguments ?? '').join('')).toBe('{"city":"Oslo"}');

    const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } };
    const last = res.events.at(-1)!;
    expect(last.event).toBe('run');
    expect(last.data).toMatchObject({ output: '', tool_calls: [call] });
    expect(last.data).not.toHaveProperty('output_valid');
    const stored = await storedRun(last.data.run_id);
    expect(stored).toMatchObject({ status: 'ok', tools: [WEATHER], tool_choice: 'auto', tool_calls: [call] });
    expect(stored.ttft_ms).toEqual(expect.any(Number));
  });

  it('answers a streamed playground run with the tool call the plain one gets', async () => {
    fake.script([behave.ok({ content: 'Looking it up.', toolCalls: [{ name: 'get_weather', arguments: '{"city":"Rome"}' }] })]);
    const streamed = await stream('/prompts/weather/versions/1/run', { inputs: { city: 'Rome' } });
    fake.script([behave.ok({ content: 'Looking it up.', toolCalls: [{ name: 'get_weather', arguments: '{"city":"Rome"}' }] })]);
    const plain = await t.request('POST', '/prompts/weather/versions/1/run', { body: { inputs: { city: 'Rome' } } });
    expect(plain.status).toBe(200);
    const answer = streamed.events.at(-1)!.data;
    expect(answer.output).toBe(plain.json.output);
    expect(answer.tool_calls).toEqual(plain.json.tool_calls);
    expect((await storedRun(answer.run_id)).tool_calls).toEqual(plain.json.tool_calls);
  });
});

describe('a streamed run of a version with a response_format', () => {
  it('sends the response_format and stores an invalid output with its first error', async () => {
    fake.script([behave.stream({ content: '{"answer": 42}', chunks: 3 })]);
    const res = await stream('/run_prompt', { prompt_id: 'structured', inputs: { q: 'why' } });
    expect(fake.requests.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true }, response_format: ANSWER_SCHEMA });
    const answer = res.events.at(-1)!.data;
    expect(answer).toMatchObject({ output: '{"answer": 42}', output_valid: false, output_error: '/answer must be string' });
    expect(await storedRun(answer.run_id)).toMatchObject({ output_valid: false, output_error: '/answer must be string', response_format: ANSWER_SCHEMA });
  });

  it('records a valid output as valid', async () => {
    fake.script([behave.stream({ content: '{"answer": "because"}', chunks: 4 })]);
    const res = await stream('/run_prompt', { prompt_id: 'structured', inputs: { q: 'why' } });
    const answer = res.events.at(-1)!.data;
    expect(answer).toMatchObject({ output_valid: true });
    expect(answer).not.toHaveProperty('output_error');
    expect(await storedRun(answer.run_id)).toMatchObject({ output_valid: true, ttft_ms: expect.any(Number) });
  });
  it('checks the echo model’s streamed text against json_object, as the docs show', async () => {
    await givenPrompt(t, { prompt_id: 'echo-json', template: 'Say {{x}}', model: 'echo/json', response_format: { type: 'json_object' } } as never);
    const res = await stream('/run_prompt', { prompt_id: 'echo-json', inputs: { x: 'hi' } });
    expect(deltas(res.events).map((d) => d.text)).toEqual(['Say ', 'hi']);
    expect(res.events.at(-1)!.data).toMatchObject({ output: 'Say hi', output_valid: false, output_error: 'the output is not valid JSON' });
  });
});

describe('a streamed run with an image', () => {
  it('sends a data URL whole and stores only its placeholder', async () => {
    const url = `data:image/png;base64,${'A'.repeat(2048 - 22)}`;
    fake.script([behave.stream({ content: 'A cat.', chunks: 2 })]);
    const res = await stream('/run_prompt', { prompt_id: 'vision', inputs: { what: 'this', image_url: url } });
    expect(res.status).toBe(200);
    expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain(url);
    const stored = await t.request('GET', `/runs/${res.events.at(-1)!.data.run_id}`);
    expect(stored.text).not.toContain('AAAAAAAAAAAAAAAA');
    expect(stored.json.inputs.image_url).toBe('data:image/png;base64,…(2048 bytes)');
    expect(stored.json.messages[0].content[1].image_url.url).toBe('data:image/png;base64,…(2048 bytes)');
  });
});
