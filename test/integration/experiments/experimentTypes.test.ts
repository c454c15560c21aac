import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

/** The experiment types: ab (the default, today's behaviour), rollout, bandit; and the check any of them can be asked for. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({}, { schedulerTimers: false });
  await givenPrompt(t, { prompt_id: 'p', labels: ['production'], versions: ['Hello {{name}}', 'Hey {{name}}'] });
});
afterAll(async () => t.cleanup());

const count = async (sql: string) => Number(await t.store.sql.value<number>(sql));

describe('experiment types', () => {
  it('an experiment is an A/B test unless it says otherwise, and says so', async () => {
    const made = await givenExperiment(t, { experiment_id: 'plain' });
    expect(made).toMatchObject({ type: 'ab', reason: null, rollout: null });
    expect((await t.request('GET', '/experiments/plain')).json.type).toBe('ab');
  });

  it('refuses a bandit without a primary metric to re-weight on, and an A/B test without variants or with rollout fields, storing nothing', async () => {
    const before = await count('SELECT count(*) FROM experiments');
    const bandit = await t.request('POST', '/experiments', {
      body: {
        prompt_id: 'p',
        type: 'bandit',
        variants: [
          { key: 'a', version: 1 },
          { key: 'b', version: 2 },
        ],
      },
    });
    expect(bandit.status).toBe(422);
    expect(bandit.json.detail[0]).toMatchObject({ loc: ['body', 'metrics'], msg: expect.stringContaining('a bandit needs a primary metric') });
    const noVariants = await t.request('POST', '/experiments', { body: { prompt_id: 'p' } });
    expect(noVariants.status).toBe(422);
    expect(noVariants.json.detail[0].loc).toEqual(['body', 'variants']);
    const stray = await t.request('POST', '/experiments', {
      body: {
        prompt_id: 'p',
        variants: [
          { key: 'a', version: 1 },
          { key: 'b', version: 2 },
        ],
        steps: [{ percent: 5 }],
      },
    });
    expect(stray.status).toBe(422);
    expect(stray.json.detail[0].loc).toEqual(['body', 'steps']);
    const unknown = await t.request('POST', '/experiments', {
      body: {
        prompt_id: 'p',
        type: 'canary',
        variants: [
          { key: 'a', version: 1 },
          { key: 'b', version: 2 },
        ],
      },
    });
    expect(unknown.status).toBe(422);
    expect(await count('SELECT count(*) FROM experiments')).toBe(before);
  });

  it('a check of a running A/B test answers that there is nothing to check, and records nothing', async () => {
    await givenExperiment(t, { experiment_id: 'running-ab', start: true });
    const res = await t.request('POST', '/experiments/running-ab/check');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: null, experiment_id: 'running-ab', type: 'ab', status: 'running', action: 'none', trigger: 'manual' });
    expect(res.json.reason).toMatch(/decided by a person/);
    expect((await t.request('GET', '/experiments/running-ab/checks')).json).toEqual({ data: [] });
    expect(await count('SELECT count(*) FROM experiment_checks')).toBe(0);
    await t.request('POST', '/experiments/running-ab/stop');
  });

  it('a check of an experiment that is not running is a 409; of an unknown one a 404', async () => {
    expect((await t.request('POST', '/experiments/plain/check')).status).toBe(409);
    expect((await t.request('POST', '/experiments/nope/check')).status).toBe(404);
    expect((await t.request('GET', '/experiments/nope/checks')).status).toBe(404);
  });

  it('a scheduler pass with nothing checked running makes no check', async () => {
    expect(await t.scheduler.runDue()).toBe(0);
  });
});
