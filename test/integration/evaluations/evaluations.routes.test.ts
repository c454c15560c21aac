import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

/** /evaluations on the echo model: the happy path, the comparison, items side by side, cancel, SSE, refusals and roles. */
let t: TestApp;
const count = async (table: string) => Number(await t.store.sql.value<number>(`SELECT count(*) FROM ${table}`));

async function waitEnded(id: string): Promise<any> {
  await t.evaluations.poll();
  await t.evaluations.idle();
  return (await t.request('GET', `/evaluations/${id}`)).json;
}

beforeAll(async () => {
  t = await startTestApp();
  // Echo answers the rendered prompt: version 1 says the answer, version 2 adds a "!" (and so fails exact match).
  await givenPrompt(t, { prompt_id: 'answer', template: '{{answer}}', versions: ['{{answer}}!'] });
  expect((await t.request('PUT', '/prompts/answer/labels/production', { body: { version: 1 } })).status).toBe(200);
  await t.request('POST', '/datasets', { body: { dataset_id: 'qa' } });
  const items = Array.from({ length: 10 }, (_, i) => ({ inputs: { answer: `a${i}` }, expected: `a${i}` }));
  expect((await t.request('POST', '/datasets/qa/items', { body: { items } })).status).toBe(201);
  await t.request('POST', '/evaluators', { body: { evaluator_id: 'exact', kind: 'exact_match' } });
  await t.request('POST', '/evaluators', { body: { evaluator_id: 'short', kind: 'length', max_chars: 100 } });
});
afterAll(async () => t.cleanup());

describe('evaluations', () => {
  it('compares a candidate with production item by item, and stores its calls as evaluation runs', async () => {
    const res = await t.request('POST', '/evaluations', {
      body: { prompt_id: 'answer', versions: [2, 'production'], dataset_id: 'qa', evaluators: ['exact', 'short'], concurrency: 3 },
    });
    expect([res.status, res.text]).toEqual([202, expect.any(String)]);
    expect(res.json).toEqual({ evaluation_id: expect.stringMatching(/^evl_/), status: 'queued', total: 20 });
    const e = await waitEnded(res.json.evaluation_id);
    expect(e).toMatchObject({
      status: 'completed',
      versions: { candidate: { ref: '2', version: 2 }, baseline: { ref: 'production', version: 1 } },
      dataset_version: 1,
      progress: { done: 20, total: 20, cost_usd: 0, eta_seconds: null },
    });
    const [exact, short] = e.evaluators;
    expect(exact).toMatchObject({ evaluator_id: 'exact', version: 1, scale: 'pass_fail' });
    expect(exact.comparison).toMatchObject({
      n: 10,
      candidate: { mean: 0, pass_rate: 0, errors: 0 },
      baseline: { mean: 1, pass_rate: 1, errors: 0 },
      difference: -1,
      test: 'mcnemar_exact',
      significant: true,
      verdict: 'worse',
      wins: 0,
      ties: 0,
      losses: 10,
    });
    expect(exact.comparison.p_value).toBeCloseTo(2 / 1024, 12);
    expect(exact.comparison.differing_items).toHaveLength(10);
    expect(short.comparison).toMatchObject({ n: 10, difference: 0, p_value: 1, verdict: 'no_difference', ties: 10, differing_items: [] });

    const items = (await t.request('GET', `/evaluations/${e.evaluation_id}/items?limit=4`)).json;
    expect(items.data).toHaveLength(4);
    expect(items.data[0]).toMatchObject({
      inputs: { answer: 'a0' },
      expected: 'a0',
      differs: true,
      candidate: { state: 'done', output: 'a0!', scores: { exact: { score: 0, passed: false, judge_error: false } } },
      baseline: { state: 'done', output: 'a0', scores: { exact: { score: 1, passed: true } } },
    });
    const run = (await t.request('GET', `/runs/${items.data[0].candidate.run_id}`)).json;
    expect(run).toMatchObject({ source: 'evaluation', prompt_version: 2, experiment_id: null });
    const rest = (await t.request('GET', `/evaluations/${e.evaluation_id}/items?cursor=${items.next_cursor}&limit=100`)).json;
    expect(rest.data).toHaveLength(6);
    expect(rest.next_cursor).toBeNull();
    expect((await t.request('GET', '/runs?source=evaluation&limit=100')).json.data).toHaveLength(20);

    const list = (await t.request('GET', '/evaluations')).json;
    expect(list.data[0]).toMatchObject({ evaluation_id: e.evaluation_id, status: 'completed', evaluator_ids: ['exact', 'short'] });
  });

  it('refuses what does not exist with a 422 at the field, storing nothing', async () => {
    const before = await count('evaluations');
    const base = { prompt_id: 'answer', versions: [2, 1], dataset_id: 'qa', evaluators: ['exact'] };
    const cases: Array<[Record<string, unknown>, unknown[]]> = [
      [{ prompt_id: 'nope' }, ['body', 'prompt_id']],
      [{ versions: [9, 1] }, ['body', 'versions', 0]],
      [{ versions: [2, 'staging'] }, ['body', 'versions', 1]],
      [{ dataset_id: 'nope' }, ['body', 'dataset_id']],
      [{ dataset_version: 7 }, ['body', 'dataset_version']],
      [{ evaluators: ['exact', 'nope'] }, ['body', 'evaluators', 1]],
      [{ evaluators: [] }, ['body', 'evaluators']],
      [{ concurrency: 0 }, ['body', 'concurrency']],
      [{ budget_usd: -1 }, ['body', 'budget_usd']],
      [{ extra: 1 }, ['body', 'extra']],
    ];
    for (const [patch, loc] of cases) {
      const res = await t.request('POST', '/evaluations', { body: { ...base, ...patch } });
      expect([patch, res.status]).toEqual([patch, 422]);
      expect([patch, res.json.detail[0].loc]).toEqual([patch, loc]);
    }
    expect(await count('evaluations')).toBe(before);
  });

  it('404s an unknown evaluation, and one of another project', async () => {
    expect((await t.request('GET', '/evaluations/evl_nope')).status).toBe(404);
    const other = await t.keyFor('admin', 'other');
    const id = (await t.request('GET', '/evaluations')).json.data[0].evaluation_id;
    for (const path of [`/evaluations/${id}`, `/evaluations/${id}/items`, `/evaluations/${id}/events`]) {
      expect((await t.request('GET', path, { key: other })).status).toBe(404);
    }
    expect((await t.request('POST', `/evaluations/${id}/cancel`, { key: other })).status).toBe(404);
  });

  it('reads with a read key, starts and cancels only with an admin key', async () => {
    const reader = await t.keyFor('read');
    expect((await t.request('GET', '/evaluations', { key: reader })).status).toBe(200);
    const body = { prompt_id: 'answer', versions: [2, 1], dataset_id: 'qa', evaluators: ['exact'] };
    expect((await t.request('POST', '/evaluations', { key: reader, body })).status).toBe(403);
  });
});
