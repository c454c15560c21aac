import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';

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
  // Gateway retries off: each scripted failure is one failed judge call (the judge's own attempts are what is tested).
  t = await startTestApp(
    { PROMPTLINE_PROVIDER_FAKE_BASE_URL: (await fake.start()).baseURL, PROMPTLINE_MAX_RETRIES: '0' },
    { webhookTimers: false, onlineScoringSettleMs: 0 },
  );
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

/** The judge's rendered prompt, as the fake received it. */
const lastMessage = (body: unknown) => (body as { messages: Array<{ content: string }> }).messages.at(-1)!.content;

describe('an LLM judge scoring live runs', () => {
  it('judges every sampled run off the request, keeps its reasoning and cost, and an experiment reads its scores', async () => {
    // gpt-4o-mini: 1000 tokens in at $0.15/M and 1000 out at $0.60/M is $0.00075 a judge call.
    const usage = { prompt_tokens: 1000, completion_tokens: 1000 };
    await givenPrompt(t, {
      prompt_id: 'ask',
      template: 'Hi {{name}}',
      model: 'fake/model',
      labels: ['production'],
      versions: [{ template: 'Hello {{name}}, thanks for asking', model: 'fake/model' }],
    });
    await givenPrompt(t, { prompt_id: 'grader', template: 'Rubric: {{rubric}} Output: {{output}} Expected: [{{expected}}]', model: 'fake/gpt-4o-mini' });
    await givenPrompt(t, { prompt_id: 'broken-grader', template: 'Down: {{output}}', model: 'fake/gpt-4o-mini' });
    for (const body of [
      { evaluator_id: 'grateful', kind: 'llm_judge', prompt_id: 'grader', rubric: 'Is the answer grateful?' },
      { evaluator_id: 'down', kind: 'llm_judge', prompt_id: 'broken-grader', rubric: 'anything' },
    ]) {
      expect((await t.request('POST', '/evaluators', { body })).status).toBe(201);
    }
    // The judge passes an output that says thanks; the other judge's provider fails every call.
    fake.respondBy((body) => {
      const text = lastMessage(body);
      if (text.startsWith('Down:')) return behave.serverError();
      if (!text.startsWith('Rubric:')) return behave.ok();
      const output = text.slice(text.indexOf('Output: '), text.indexOf(' Expected:'));
      return behave.ok({ usage, content: output.includes('thanks') ? '{"score": "pass", "reasoning": "it thanks"}' : 'FAIL: no thanks' });
    });
    expect((await attach({ evaluator_id: 'grateful', sample_rate: 1 }, 'ask')).status).toBe(201);
    expect((await attach({ evaluator_id: 'down', sample_rate: 1 }, 'ask')).status).toBe(201);
    // An evaluator on the judge's own prompt: the judge's runs (source evaluation) are never scored online.
    expect((await attach({ evaluator_id: 'short', sample_rate: 1 }, 'grader')).status).toBe(201);
    await givenExperiment(t, {
      experiment_id: 'grateful-test',
      prompt_id: 'ask',
      variants: { terse: 1, polite: 2 },
      metrics: [{ source: 'evaluator', evaluator: 'grateful', kind: 'pass_rate', role: 'primary' }],
      start: true,
    });
    const users = 12;
    const runIds: string[] = [];
    const byUser = new Map<string, string>();
    for (let i = 0; i < users; i++) {
      const res = await t.request('POST', '/run_prompt', {
        body: { prompt_id: 'ask', external_user_id: `j${i}`, inputs: { name: i % 4 === 0 ? 'Bo, thanks' : 'Bo' } },
      });
      expect(res.status).toBe(200);
      runIds.push(res.json.run_id as string);
      byUser.set(`j${i}`, res.json.variant_assigned as string);
    }
    fake.requests.length = 0;
    expect(await t.onlineScorer.scoreDue()).toBeGreaterThan(0);
    await t.onlineScorer.scoreDue();
    // One call per judged run for the judge that answers, three (every attempt) for the one that fails.
    const judgeCalls = fake.requests.map((r) => lastMessage(r.body));
    expect(judgeCalls.filter((c) => c.startsWith('Rubric:'))).toHaveLength(users);
    expect(judgeCalls.filter((c) => c.startsWith('Down:'))).toHaveLength(users * 3);
    // A live run has no expected answer: the judge's `expected` is empty.
    expect(judgeCalls.filter((c) => c.startsWith('Rubric:')).every((c) => c.endsWith('Expected: []'))).toBe(true);

    for (const [i, runId] of runIds.entries()) {
      const scores: Record<string, any> = Object.fromEntries(
        ((await t.request('GET', `/runs/${runId}/scores`)).json.data as Array<{ evaluator_id: string }>).map((x) => [x.evaluator_id, x]),
      );
      const thanks = byUser.get(`j${i}`) === 'polite' || i % 4 === 0;
      expect(scores.grateful).toMatchObject(
        thanks
          ? { score: 1, passed: true, error: null, reasoning: 'it thanks', cost_usd: 0.00075 }
          : { score: 0, passed: false, error: null, reasoning: 'FAIL: no thanks', cost_usd: 0.00075 },
      );
      expect(scores.grateful.judge_run_ids).toHaveLength(1);
      expect(scores.down).toMatchObject({ score: null, passed: null, error: expect.stringMatching(/^judge error after 3 attempts: /), cost_usd: 0 });
      expect(scores.down.judge_run_ids).toHaveLength(3);
      if (i === 0) {
        // The judge's runs are evaluation runs of its prompt, with their cost; not scored online themselves.
        const judgeRun = (await t.request('GET', `/runs/${scores.grateful.judge_run_ids[0]}`)).json;
        expect(judgeRun).toMatchObject({ prompt_id: 'grader', source: 'evaluation', status: 'ok', token_cost_usd: 0.00075 });
        expect((await t.request('GET', `/runs/${judgeRun.run_id}/scores`)).json.data).toEqual([]);
        const failed = (await t.request('GET', `/runs/${scores.down.judge_run_ids[2]}`)).json;
        expect(failed).toMatchObject({ prompt_id: 'broken-grader', source: 'evaluation', status: 'error' });
      }
    }

    const report = (await t.request('GET', '/experiments/grateful-test/results')).json;
    const [metric] = report.metrics;
    expect(metric).toMatchObject({ name: 'grateful:pass_rate', source: 'evaluator', evaluator: 'grateful', kind: 'pass_rate' });
    const byKey = Object.fromEntries(metric.variants.map((v: { key: string }) => [v.key, v]));
    const exposed = Object.fromEntries(report.variants.map((v: { key: string; users: number }) => [v.key, v.users]));
    // The judge's own runs are no variant's: the exposed users are the 12 callers.
    expect(exposed.terse + exposed.polite).toBe(users);
    const terseThanks = Array.from({ length: users }, (_, i) => i).filter((i) => i % 4 === 0 && byUser.get(`j${i}`) === 'terse').length;
    expect(byKey.terse).toMatchObject({ n: exposed.terse, sum: terseThanks });
    expect(byKey.polite).toMatchObject({ n: exposed.polite, sum: exposed.polite });
    fake.respondBy(null);
  });
});
