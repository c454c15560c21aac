import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';

/**
 * Evaluations against a provider (the fake OpenAI server): the budget stop, a judge failing half its
 * calls, cancel, and progress as server-sent events. Gateway retries are off, so each scripted
 * failure is one failed call the evaluation sees.
 */
let t: TestApp;
const fake = new FakeOpenAI();

const start = (body: Record<string, unknown>) =>
  t.request('POST', '/evaluations', { body: { dataset_id: 'qa', evaluators: ['exact'], concurrency: 1, ...body } });
async function ended(id: string): Promise<any> {
  await t.evaluations.poll();
  await t.evaluations.idle();
  return (await t.request('GET', `/evaluations/${id}`)).json;
}
const until = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
};

beforeAll(async () => {
  const { baseURL } = await fake.start();
  t = await startTestApp({ PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL, PROMPTLINE_PROVIDER_FAKE_API_KEY: 'sk-test', PROMPTLINE_MAX_RETRIES: '0' });
  await givenPrompt(t, {
    prompt_id: 'paid',
    template: '{{answer}}',
    model: 'fake/gpt-4o-mini',
    versions: [{ template: '{{answer}}.', model: 'fake/gpt-4o-mini' }],
  });
  await givenPrompt(t, { prompt_id: 'free', template: '{{answer}}', versions: ['{{answer}}!'] });
  await givenPrompt(t, { prompt_id: 'judge', template: 'Rubric: {{rubric}} Output: {{output}}', model: 'fake/gpt-4o-mini' });
  await t.request('POST', '/datasets', { body: { dataset_id: 'qa' } });
  const items = Array.from({ length: 10 }, (_, i) => ({ inputs: { answer: `a${i}` }, expected: `a${i}` }));
  await t.request('POST', '/datasets/qa/items', { body: { items } });
  await t.request('POST', '/evaluators', { body: { evaluator_id: 'exact', kind: 'exact_match' } });
  await t.request('POST', '/evaluators', { body: { evaluator_id: 'judged', kind: 'llm_judge', prompt_id: 'judge', rubric: 'Is it the answer?' } });
});
afterAll(async () => {
  await t.cleanup();
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.setDefault(behave.ok({ usage: { prompt_tokens: 1000, completion_tokens: 1000 } }));
});

describe('evaluation runs', () => {
  it('stops claiming items once the cost reaches the budget', async () => {
    // gpt-4o-mini: 1000 tokens in at $0.15/M and 1000 out at $0.60/M is $0.00075 a call.
    const res = await start({ prompt_id: 'paid', versions: [2, 1], budget_usd: 0.003 });
    const e = await ended(res.json.evaluation_id);
    expect(e.status).toBe('budget_exhausted');
    expect(fake.requests).toHaveLength(4);
    expect(e.progress).toMatchObject({ done: 20, total: 20, cost_usd: 0.003 });
    const items = (await t.request('GET', `/evaluations/${e.evaluation_id}/items?limit=100`)).json.data;
    expect(items.flatMap((i: any) => [i.baseline.state, i.candidate.state]).filter((s: string) => s === 'done')).toHaveLength(4);
    expect(items[9].candidate).toMatchObject({ state: 'skipped', run_id: null });
  });

  it('a judge failing half its calls: retried, then a judge error counted apart; the evaluation completes', async () => {
    await t.request('PUT', '/datasets/qa/items', { body: { items: [{ inputs: { answer: 'x' } }, { inputs: { answer: 'y' } }] } });
    // Work goes item by item, baseline first (concurrency 1); every judge attempt is one call.
    fake.script([
      behave.serverError(), // item 1, baseline: three failures, a judge error
      behave.serverError(),
      behave.serverError(),
      behave.ok({ content: 'PASS' }), // item 1, candidate
      behave.serverError(), // item 2, baseline: a failure, then a pass
      behave.ok({ content: '{"score": "pass", "reasoning": "says y"}' }),
      behave.serverError(), // item 2, candidate: a failure, then a fail
      behave.ok({ content: 'FAIL: adds a "!"' }),
    ]);
    const res = await start({ prompt_id: 'free', versions: [2, 1], evaluators: ['judged'], dataset_version: 2 });
    const e = await ended(res.json.evaluation_id);
    expect(fake.requests).toHaveLength(8);
    expect(e.status).toBe('completed');
    expect(e.evaluators[0].comparison).toMatchObject({
      n: 1,
      baseline: { errors: 1, judge_errors: 1, pass_rate: 1 },
      candidate: { errors: 0, judge_errors: 0, pass_rate: 0 },
      wins: 0,
      ties: 0,
      losses: 1,
      differing_items: [expect.any(String)],
    });
    const [first, second] = (await t.request('GET', `/evaluations/${e.evaluation_id}/items`)).json.data;
    expect(first.baseline.scores.judged).toMatchObject({ score: null, judge_error: true, error: expect.stringMatching(/judge error after 3 attempts/) });
    expect(first.baseline.judge_run_ids).toHaveLength(3);
    expect(second.baseline.scores.judged).toMatchObject({ score: 1, passed: true, reasoning: 'says y' });
    expect(second.candidate.scores.judged).toMatchObject({ score: 0, passed: false });
    const judgeRun = (await t.request('GET', `/runs/${second.candidate.judge_run_ids[1]}`)).json;
    expect(judgeRun).toMatchObject({ prompt_id: 'judge', source: 'evaluation', output: 'FAIL: adds a "!"' });
  });

  it('cancel: no further item is started, the one in flight is recorded', async () => {
    fake.setDefault(behave.slow(150, { content: 'a0' }));
    const res = await start({ prompt_id: 'paid', versions: [2, 1], dataset_version: 1 });
    await until(() => fake.inFlight === 1);
    const cancelled = await t.request('POST', `/evaluations/${res.json.evaluation_id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.status).toBe('cancelled');
    const e = await ended(res.json.evaluation_id);
    expect(e.status).toBe('cancelled');
    expect(fake.requests).toHaveLength(1);
    expect(e.progress.done).toBe(20);
    const states = (await t.request('GET', `/evaluations/${e.evaluation_id}/items?limit=100`)).json.data.flatMap((i: any) => [
      i.baseline.state,
      i.candidate.state,
    ]);
    expect(states.filter((s: string) => s === 'done')).toHaveLength(1);
    expect(states.filter((s: string) => s === 'skipped')).toHaveLength(19);
    // Cancelling again changes nothing.
    expect((await t.request('POST', `/evaluations/${e.evaluation_id}/cancel`)).json.status).toBe('cancelled');
  });

  it('progress as server-sent events, to the end', async () => {
    fake.setDefault(behave.ok({ delayMs: 60, usage: { prompt_tokens: 1000, completion_tokens: 1000 } }));
    const res = await start({ prompt_id: 'paid', versions: [2, 1], dataset_version: 1, concurrency: 2 });
    const sse = await t.app.inject({
      method: 'GET',
      url: `/evaluations/${res.json.evaluation_id}/events`,
      headers: { 'x-api-key': (await t.keyFor('read')) as string, accept: 'text/event-stream' },
    });
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
    const frames = sse.body
      .trim()
      .split('\n\n')
      .map((f) => {
        const [event, data] = f.split('\n');
        return { event: event!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) };
      });
    const progress = frames.filter((f) => f.event === 'progress');
    expect(progress.length).toBeGreaterThan(2);
    const done = progress.map((f) => f.data.progress.done);
    expect(done).toEqual([...done].sort((a, b) => a - b));
    expect(frames.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed', progress: { done: 20, total: 20, cost_usd: 0.015 } } });
    // Without Accept: text/event-stream, the evaluation as JSON.
    expect((await t.request('GET', `/evaluations/${res.json.evaluation_id}/events`)).json.status).toBe('completed');
  });
});
