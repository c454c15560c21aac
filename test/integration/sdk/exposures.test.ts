import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

let t: TestApp;
let runtimeKey: string;
let startedAt: string;
beforeAll(async () => {
  t = await startTestApp();
  runtimeKey = await t.keyFor('runtime');
  await givenPrompt(t, { prompt_id: 'p', template: 'A {{name}}', labels: ['production'], versions: ['B {{name}}'] });
  const experiment = await givenExperiment(t, {
    experiment_id: 'exp',
    start: true,
    cuped: true,
    metrics: [{ event_type: 'buy', kind: 'success_rate', role: 'primary' }],
  });
  startedAt = experiment.started_at as string;
  await givenPrompt(t, { prompt_id: 'q', template: 'Q', versions: ['Q2'] });
  await givenExperiment(t, { experiment_id: 'draft', prompt_id: 'q' });
});
afterAll(async () => t.cleanup());

const now = () => new Date().toISOString();
const item = (user: string, variant: string, extra: Record<string, unknown> = {}) => ({
  experiment_id: 'exp',
  external_user_id: user,
  variant,
  calls: 1,
  first_seen: now(),
  last_seen: now(),
  ...extra,
});
const report = (exposures: unknown[], headers: Record<string, string> = {}, key = runtimeKey) =>
  t.request('POST', '/sdk/exposures', { key, headers, body: { exposures } });
const assignment = (user: string) =>
  t.store.sql.get<{ variant: string; calls: number; first_seen: string; last_seen: string; pre_key: string | null }>(
    'SELECT variant, calls, first_seen, last_seen, pre_key FROM assignments WHERE experiment_id = ? AND external_user_id = ?',
    ['exp', user],
  );

describe('POST /sdk/exposures', () => {
  it('stores each first assignment with its calls and times, as /get_prompt would, and results count them', async () => {
    const first = '2099-01-01T00:00:00.000Z'; // in the future: kept at now
    const res = await report([item('u1', 'a', { calls: 3 }), item('u2', 'b', { first_seen: '2000-01-01T00:00:00Z', last_seen: first })]);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ accepted: 2, conflicts: [], skipped: [] });
    expect(await assignment('u1')).toMatchObject({ variant: 'a', calls: 3 });
    const u2 = await assignment('u2');
    // A clock before the start is kept at the start; one in the future at now.
    expect(u2).toMatchObject({ variant: 'b', calls: 1, first_seen: startedAt });
    expect(Date.parse(u2!.last_seen)).toBeLessThanOrEqual(Date.now());
    // CUPED's covariate is captured at the first exposure, as /get_prompt's first assignment does.
    expect(u2!.pre_key).not.toBeNull();

    const results = await t.request('GET', '/experiments/exp/results');
    expect(results.status).toBe(200);
    expect(results.json.variants.map((v: any) => [v.key, v.users])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    // Outcomes by user are attributed to the reported assignment.
    const outcome = await t.request('POST', '/track_outcome', {
      key: runtimeKey,
      body: { prompt_id: 'p', external_user_id: 'u2', event_type: 'buy', is_success: true },
    });
    expect(outcome.json).toMatchObject({ experiment_id: 'exp', variant_assigned: 'b' });
  });

  it('adds the calls of a user already stored, and the stored variant wins a conflict', async () => {
    await report([item('u3', 'a')]);
    expect((await report([item('u3', 'a', { calls: 4 })])).json).toEqual({ accepted: 1, conflicts: [], skipped: [] });
    expect(await assignment('u3')).toMatchObject({ variant: 'a', calls: 5 });

    const served = await t.request('POST', '/get_prompt', { key: runtimeKey, body: { prompt_id: 'p', inputs: { name: 'x' }, external_user_id: 'u4' } });
    const stored = served.json.variant_assigned as string;
    const other = stored === 'a' ? 'b' : 'a';
    expect((await report([item('u4', other, { calls: 2 })])).json).toEqual({ accepted: 1, conflicts: [{ index: 0, stored_variant: stored }], skipped: [] });
    expect(await assignment('u4')).toMatchObject({ variant: stored, calls: 3 });
  });

  it('skips, and says why, what can never be stored: an unknown or never-started experiment, an unknown variant', async () => {
    const otherKey = await t.keyFor('admin', 'other');
    await givenPrompt(t, { prompt_id: 'p', key: otherKey, versions: ['x'] });
    await givenExperiment(t, { experiment_id: 'theirs', key: otherKey, start: true });
    const res = await report([
      item('u5', 'a', { experiment_id: 'nope' }),
      item('u5', 'a', { experiment_id: 'draft' }),
      item('u5', 'zzz'),
      item('u5', 'a', { experiment_id: 'theirs' }),
      item('u5', 'b'),
    ]);
    expect(res.json).toEqual({
      accepted: 1,
      conflicts: [],
      skipped: [
        { index: 0, reason: "Experiment 'nope' not found" },
        { index: 1, reason: "Experiment 'draft' has never run" },
        { index: 2, reason: "'zzz' is not a variant of experiment 'exp'" },
        { index: 3, reason: "Experiment 'theirs' not found" },
      ],
    });
    expect(await t.store.sql.value('SELECT count(*) FROM assignments WHERE external_user_id = ?', ['u5'])).toBe(1);
  });

  it('replays the first answer for a repeated Idempotency-Key, storing the calls once; another body under it is a 422', async () => {
    const batch = [item('u6', 'a', { calls: 2 })];
    const headers = { 'idempotency-key': 'batch-1' };
    const first = await report(batch, headers);
    const again = await report(batch, headers);
    expect(again.json).toEqual(first.json);
    expect(await assignment('u6')).toMatchObject({ calls: 2 });
    const changed = await report([item('u6', 'a', { calls: 9 })], headers);
    expect(changed.status).toBe(422);
    expect(changed.json.detail[0].loc).toEqual(['header', 'idempotency-key']);
    expect(await assignment('u6')).toMatchObject({ calls: 2 });
  });

  it('refuses a bad batch whole (422, nothing stored): a time that is not one, no items, too many, a bad count', async () => {
    const badTime = await report([item('u7', 'a'), item('u8', 'a', { last_seen: 'yesterday' })]);
    expect(badTime.status).toBe(422);
    expect(badTime.json.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'exposures', 1, 'last_seen'],
        msg: "Value error, 'yesterday' is not an ISO 8601 time",
        input: 'yesterday',
        ctx: { error: "'yesterday' is not an ISO 8601 time" },
      },
    ]);
    expect(await assignment('u7')).toBeUndefined();
    expect((await report([])).status).toBe(422);
    expect((await report(Array.from({ length: 1001 }, (_, i) => item(`many-${i}`, 'a')))).status).toBe(422);
    const zero = await report([item('u9', 'a', { calls: 0 })]);
    expect(zero.status).toBe(422);
    expect(zero.json.detail[0].loc).toEqual(['body', 'exposures', 0, 'calls']);
    expect(await assignment('u9')).toBeUndefined();
  });

  it('refuses a missing key (422) and a bad key (401), storing nothing', async () => {
    const missing = await t.request('POST', '/sdk/exposures', { key: null, body: { exposures: [item('u10', 'a')] } });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0].loc).toEqual(['header', 'x-api-key']);
    expect((await report([item('u10', 'a')], {}, 'pl_r_not-a-key')).status).toBe(401);
    expect(await assignment('u10')).toBeUndefined();
  });
});
