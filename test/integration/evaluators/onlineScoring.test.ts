import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { FakeOpenAI } from '../../support/fakeOpenAI.js';

/**
 * Online scoring: an evaluator attached to a prompt scores a sample of its live runs in the
 * background (stepped by hand here: no timers, no settle time), and an experiment reads those
 * scores per user as a metric with the statistics of every other metric.
 */
let t: TestApp;
let fake: FakeOpenAI;
const USERS = 40;

beforeAll(async () => {
  fake = new FakeOpenAI();
  t = await startTestApp({ PROMPTLINE_PROVIDER_FAKE_BASE_URL: (await fake.start()).baseURL }, { webhookTimers: false, onlineScoringSettleMs: 0 });
  // The fake answers "fake answer to: <the prompt>": only version 2's answers say thanks.
  await givenPrompt(t, {
    prompt_id: 'greet',
    template: 'Hi {{name}}',
    model: 'fake/model',
    labels: ['production'],
    versions: [{ template: 'Hello {{name}}, thanks for asking', model: 'fake/model' }],
  });
  await givenPrompt(t, { prompt_id: 'other', template: 'Bye {{name}}', model: 'fake/model', labels: ['production'] });
  for (const body of [
    { evaluator_id: 'thanks', kind: 'contains', value: 'thanks' },
    { evaluator_id: 'short', kind: 'length', max_chars: 30 },
    { evaluator_id: 'exact', kind: 'exact_match' },
    { evaluator_id: 'loose', kind: 'contains' },
  ]) {
    expect((await t.request('POST', '/evaluators', { body })).status).toBe(201);
  }
});
afterAll(async () => {
  await t.cleanup();
  await fake.close();
});

const attach = (body: unknown, prompt = 'greet') => t.request('POST', `/prompts/${prompt}/online_evaluators`, { body });

describe('attaching an evaluator to a prompt', () => {
  it('answers 201 with the attachment, lists it, refuses it twice (409)', async () => {
    const res = await attach({ evaluator_id: 'short', sample_rate: 0.25 });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ prompt_id: 'greet', evaluator_id: 'short', sample_rate: 0.25, created_at: expect.any(String) });
    expect((await attach({ evaluator_id: 'short', sample_rate: 0.5 })).status).toBe(409);
    const list = await t.request('GET', '/prompts/greet/online_evaluators');
    expect(list.json.data).toEqual([res.json]);
  });

  it.each([
    [{ evaluator_id: 'exact', sample_rate: 0.1 }, ['body', 'evaluator_id'], 'expected'],
    [{ evaluator_id: 'loose', sample_rate: 0.1 }, ['body', 'evaluator_id'], 'expected'],
    [{ evaluator_id: 'nope', sample_rate: 0.1 }, ['body', 'evaluator_id'], 'no evaluator'],
    [{ evaluator_id: 'thanks', sample_rate: 0 }, ['body', 'sample_rate'], ''],
    [{ evaluator_id: 'thanks', sample_rate: 1.5 }, ['body', 'sample_rate'], ''],
  ])('refuses %j with a 422 at the field, storing nothing', async (body, loc, words) => {
    const res = await attach(body, 'other');
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(loc);
    expect(res.json.detail[0].msg).toContain(words);
    expect((await t.request('GET', '/prompts/other/online_evaluators')).json.data).toEqual([]);
  });

  it('answers 404 for a prompt that does not exist, and for detaching what is not attached', async () => {
    expect((await attach({ evaluator_id: 'thanks', sample_rate: 1 }, 'missing')).status).toBe(404);
    expect((await t.request('GET', '/prompts/missing/online_evaluators')).status).toBe(404);
    expect((await t.request('DELETE', '/prompts/other/online_evaluators/thanks')).status).toBe(404);
  });

  it('detaches: 204, gone from the list, and it can be attached again', async () => {
    expect((await attach({ evaluator_id: 'thanks', sample_rate: 1 }, 'other')).status).toBe(201);
    expect((await t.request('DELETE', '/prompts/other/online_evaluators/thanks')).status).toBe(204);
    expect((await t.request('GET', '/prompts/other/online_evaluators')).json.data).toEqual([]);
  });
});

describe('an experiment measured by an online evaluator', () => {
  it('scores every run at 100 % off the request, and the results compare the per-user scores', async () => {
    expect((await attach({ evaluator_id: 'thanks', sample_rate: 1 })).status).toBe(201);
    await givenExperiment(t, {
      experiment_id: 'polite',
      prompt_id: 'greet',
      variants: { terse: 1, polite: 2 },
      metrics: [{ source: 'evaluator', evaluator: 'thanks', kind: 'pass_rate', role: 'primary' }],
      start: true,
    });
    const runIds: string[] = [];
    const byUser = new Map<string, string>();
    for (let i = 0; i < USERS; i++) {
      const res = await t.request('POST', '/run_prompt', {
        body: { prompt_id: 'greet', external_user_id: `u${i}`, inputs: { name: i % 3 === 0 ? 'Ada, thanks' : 'Ada' } },
      });
      expect(res.status).toBe(200);
      runIds.push(res.json.run_id as string);
      byUser.set(`u${i}`, res.json.variant_assigned as string);
    }
    // Nothing is scored in the request itself.
    expect((await t.request('GET', `/runs/${runIds[0]}/scores`)).json.data).toEqual([]);
    await t.onlineScorer.scoreDue();
    await t.onlineScorer.scoreDue();

    const scores = await Promise.all(runIds.map(async (id) => (await t.request('GET', `/runs/${id}/scores`)).json.data));
    expect(scores.every((s) => s.some((x: { evaluator_id: string }) => x.evaluator_id === 'thanks'))).toBe(true);
    // At 25 %, "short" scored some runs, not all (the sample is a hash of the run id: the same on every pass).
    const short = scores.filter((s) => s.some((x: { evaluator_id: string }) => x.evaluator_id === 'short')).length;
    expect(short).toBeGreaterThan(0);
    expect(short).toBeLessThan(USERS);

    const report = (await t.request('GET', '/experiments/polite/results')).json;
    const [metric] = report.metrics;
    expect(metric).toMatchObject({ name: 'thanks:pass_rate', source: 'evaluator', evaluator: 'thanks', kind: 'pass_rate', direction: 'higher' });
    const byKey = Object.fromEntries(metric.variants.map((v: { key: string }) => [v.key, v]));
    const users = Object.fromEntries(report.variants.map((v: { key: string; users: number }) => [v.key, v.users]));
    // Terse answers pass only for the users whose name says thanks (one in three); every polite answer passes.
    const terseThanks = Array.from({ length: USERS }, (_, i) => i).filter((i) => i % 3 === 0 && byUser.get(`u${i}`) === 'terse').length;
    expect(byKey.terse).toMatchObject({ n: users.terse, sum: terseThanks });
    expect(byKey.polite).toMatchObject({ n: users.polite, sum: users.polite, value: 1 });
    const [comparison] = metric.comparisons;
    expect(comparison).toMatchObject({ variant: 'polite', control: 'terse' });
    expect(comparison.absolute.lift).toBeCloseTo(1 - terseThanks / users.terse, 12);
  });

  it('refuses an evaluator metric without its evaluator, or with a cap (422)', async () => {
    const base = {
      experiment_id: 'bad',
      prompt_id: 'greet',
      variants: [
        { key: 'a', version: 1 },
        { key: 'b', version: 2 },
      ],
      control: 'a',
    };
    for (const [metric, loc] of [
      [{ source: 'evaluator', kind: 'pass_rate', role: 'primary' }, ['body', 'metrics', 0, 'evaluator']],
      [{ source: 'evaluator', evaluator: 'thanks', kind: 'mean_score', role: 'primary', cap: 3 }, ['body', 'metrics', 0, 'cap']],
      [{ source: 'evaluator', evaluator: 'thanks', kind: 'mean', role: 'primary' }, ['body', 'metrics', 0, 'kind']],
    ] as const) {
      const res = await t.request('POST', '/experiments', { body: { ...base, metrics: [metric] } });
      expect(res.status).toBe(422);
      expect(res.json.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    }
    expect((await t.request('GET', '/experiments/bad')).status).toBe(404);
  });

  it('answers 404 for the scores of a run that does not exist', async () => {
    expect((await t.request('GET', '/runs/run_missing/scores')).status).toBe(404);
  });
});
