import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type ApiClient } from '../../../src/cli/api/client.js';
import { cancelEvaluation, showEvaluation } from '../../../src/cli/eval/commands.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';

/** `promptline eval show|cancel` against the real API: the summaries of `eval run`, a cancel that stops what was started, and the API's errors. */
let t: TestApp;
let api: ApiClient;
const fake = new FakeOpenAI();

beforeAll(async () => {
  const { baseURL } = await fake.start();
  t = await startTestApp({ PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL, PROMPTLINE_MAX_RETRIES: '0' });
  api = {
    target: 'test',
    async request<T>(method: string, url: string, options: { body?: unknown } = {}): Promise<T> {
      const res = await t.request(method, url, options.body === undefined ? {} : { body: options.body });
      if (res.status >= 400) throw new ApiError(res.status, res.json?.detail);
      return res.json as T;
    },
  };
  // Echo answers the rendered prompt: version 2 adds a "!", so it fails every exact match version 1 passes.
  await givenPrompt(t, { prompt_id: 'p', template: '{{answer}}', versions: ['{{answer}}!'] });
  await givenPrompt(t, { prompt_id: 'slow', template: '{{answer}}', model: 'fake/model', versions: [{ template: '{{answer}}.', model: 'fake/model' }] });
  await t.request('POST', '/datasets', { body: { dataset_id: 'qa' } });
  await t.request('POST', '/datasets/qa/items', { body: { items: Array.from({ length: 6 }, (_, i) => ({ inputs: { answer: `a${i}` }, expected: `a${i}` })) } });
  await t.request('POST', '/evaluators', { body: { evaluator_id: 'exact', kind: 'exact_match' } });
});
afterAll(async () => {
  await t.cleanup();
  await fake.close();
});

const start = async (body: Record<string, unknown>): Promise<string> => {
  const res = await t.request('POST', '/evaluations', { body: { dataset_id: 'qa', evaluators: ['exact'], concurrency: 1, ...body } });
  expect(res.status).toBe(202);
  return res.json.evaluation_id as string;
};

describe('eval show', () => {
  it('prints an ended evaluation as eval run does, in each format', async () => {
    const id = await start({ prompt_id: 'p', versions: [2, 1] });
    await t.evaluations.poll();
    await t.evaluations.idle();
    const markdown = await showEvaluation(api, id, 'markdown');
    expect(markdown).toContain('### Promptline evaluation: ❌ worse on `exact`');
    expect(markdown).toContain('| `exact` | 0.0% | 100.0% | -100.0 pts');
    expect(markdown).toContain(`(\`${id}\`)`);
    const text = await showEvaluation(api, id, 'text');
    expect(text.split('\n')[0]).toBe('p: version 2 (2) against version 1 (1) on qa v1');
    expect(text).toContain('worse on: exact');
    // Gated on an evaluator that is not worse, the verdict line says so.
    expect(await showEvaluation(api, id, 'text', ['other'])).toContain('not significantly worse on any gating evaluator');
    const json = JSON.parse(await showEvaluation(api, id, 'json'));
    expect(json).toMatchObject({ evaluation_id: id, status: 'completed', progress: { done: 12, total: 12 } });
  });

  it('answers the API error for an evaluation that does not exist (404)', async () => {
    const error = await showEvaluation(api, 'evl_missing', 'text').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(404);
  });
});

describe('eval cancel', () => {
  it('cancels a running evaluation: show then says cancelled, and nothing more is called', async () => {
    fake.setDefault(behave.slow(200, { content: 'a0' }));
    const id = await start({ prompt_id: 'slow', versions: [2, 1] });
    const running = t.evaluations.poll();
    while (fake.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // A running evaluation is shown with its progress line first.
    expect((await showEvaluation(api, id, 'text')).split('\n')[0]).toMatch(/^\[-*\] 0\/12 \$0\.0000 .*running$/);
    const said = await cancelEvaluation(api, id, 'text');
    expect(said).toMatch(new RegExp(`^${id}: cancelled, \\d+/12 items × versions done, cost \\$0\\.0000\\n$`));
    await running;
    await t.evaluations.idle();
    expect(fake.requests).toHaveLength(1);
    const shown = JSON.parse(await showEvaluation(api, id, 'json'));
    expect(shown).toMatchObject({ status: 'cancelled', progress: { done: 12, total: 12 } });
    // Cancelling again changes nothing; json answers the whole evaluation.
    expect(JSON.parse(await cancelEvaluation(api, id, 'json'))).toMatchObject({ evaluation_id: id, status: 'cancelled' });
  });

  it('answers the API error for an evaluation that does not exist (404)', async () => {
    const error = await cancelEvaluation(api, 'evl_missing', 'text').catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(404);
  });
});
