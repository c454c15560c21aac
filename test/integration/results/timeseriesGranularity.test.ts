import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { startTestApp, type TestApp } from '../../support/harness.js';

/**
 * The results' time series by the hour while an experiment is young (one point per series on its
 * first day says nothing) and by the day once it has run 3 days: the same users, the same last
 * cumulative value, counted by the period of their first exposure. Runs on both backends.
 */
let t: TestApp;
let runtime: string;
let now = new Date('2025-06-01T08:00:00.000Z');
const clock = { now: () => now };
const EXP = 'young';
/** First exposures: users at 09:xx and 11:xx on the first day (nobody at 10), two more on the second day. */
const EXPOSURES: Array<[user: string, at: string, converts: boolean]> = [
  ['u1', '2025-06-01T09:05:00.000Z', true],
  ['u2', '2025-06-01T09:40:00.000Z', false],
  ['u3', '2025-06-01T09:59:59.000Z', true],
  ['u4', '2025-06-01T11:00:00.000Z', false],
  ['u5', '2025-06-01T11:30:00.000Z', true],
  ['u6', '2025-06-02T07:15:00.000Z', false],
];

const results = async () => (await t.request('GET', `/experiments/${EXP}/results`)).json;
const totalOf = (point: { variants: Record<string, { cumulative_exposures: number }> }) =>
  Object.values(point.variants).reduce((n, v) => n + v.cumulative_exposures, 0);
const exposuresOf = (point: { variants: Record<string, { exposures: number }> }) => Object.values(point.variants).reduce((n, v) => n + v.exposures, 0);

beforeAll(async () => {
  t = await startTestApp({}, { clock });
  runtime = await t.keyFor('runtime');
  await givenPrompt(t, { prompt_id: 'p', template: 'one', versions: ['two'] });
  await givenExperiment(t, {
    experiment_id: EXP,
    prompt_id: 'p',
    variants: { a: 1, b: 2 },
    metrics: [{ event_type: 'signup', kind: 'success_rate', role: 'primary' }],
  });
  now = new Date('2025-06-01T08:30:00.000Z');
  expect((await t.request('POST', `/experiments/${EXP}/start`)).status).toBe(200);
  for (const [user, at, converts] of EXPOSURES) {
    now = new Date(at);
    const served = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'p', external_user_id: user } });
    expect(served.json.variant_assigned).not.toBeNull();
    const outcome = { prompt_id: 'p', external_user_id: user, event_type: 'signup', is_success: converts };
    expect((await t.request('POST', '/track_outcome', { key: runtime, body: outcome })).status).toBeLessThan(300);
  }
});
afterAll(async () => t?.cleanup());

describe('the results time series', () => {
  it('is hourly while the experiment has run less than 3 days: every hour from the first exposure to the last, gaps included', async () => {
    now = new Date('2025-06-02T12:00:00.000Z');
    const r = await results();
    expect(r.timeseries_granularity).toBe('hour');
    const hour = (day: string, h: number) => `2025-06-0${day}T${String(h).padStart(2, '0')}`;
    // 09:00 on the first day to 07:00 on the second: 15 + 8 hours.
    const hours = [...Array.from({ length: 15 }, (_, i) => hour('1', 9 + i)), ...Array.from({ length: 8 }, (_, i) => hour('2', i))];
    expect(r.timeseries.map((p: { start: string }) => p.start)).toEqual(hours.map((h) => `${h}:00:00.000Z`));
    expect(r.timeseries.map((p: { date: string }) => p.date)).toEqual(hours.map((h) => h.slice(0, 10)));
    expect(r.timeseries.map(exposuresOf).slice(0, 3)).toEqual([3, 0, 2]);
    expect(r.timeseries.at(-1).start).toBe('2025-06-02T07:00:00.000Z');
    expect(exposuresOf(r.timeseries.at(-1))).toBe(1);
    expect(totalOf(r.timeseries.at(-1))).toBe(EXPOSURES.length);
    // Cumulative values over the users first exposed so far, per variant: the last equals the metric itself.
    for (const v of r.metrics[0].variants) expect(r.timeseries.at(-1).variants[v.key].cumulative_value).toBe(v.value);
  });

  it('is daily once the experiment has run 3 days, with the same users and the same last values', async () => {
    now = new Date('2025-06-01T19:00:00.000Z');
    const young = await results();
    now = new Date('2025-06-04T08:30:00.000Z'); // exactly 3 days after the start
    const r = await results();
    expect(r.timeseries_granularity).toBe('day');
    expect(r.timeseries.map((p: { date: string; start: string }) => [p.date, p.start])).toEqual([
      ['2025-06-01', '2025-06-01T00:00:00.000Z'],
      ['2025-06-02', '2025-06-02T00:00:00.000Z'],
    ]);
    expect(r.timeseries.map(exposuresOf)).toEqual([5, 1]);
    expect(totalOf(r.timeseries[1])).toBe(EXPOSURES.length);
    for (const v of r.metrics[0].variants) expect(r.timeseries[1].variants[v.key].cumulative_value).toBe(v.value);
    // The first day's daily point is where its hourly series ended.
    expect(young.timeseries_granularity).toBe('hour');
    const endOfDayOne = young.timeseries.filter((p: { date: string }) => p.date === '2025-06-01').at(-1);
    expect(r.timeseries[0].variants).toEqual(
      Object.fromEntries(
        Object.entries(endOfDayOne.variants as Record<string, { cumulative_exposures: number; cumulative_value: number | null }>).map(([k, v]) => [
          k,
          { ...v, exposures: v.cumulative_exposures },
        ]),
      ),
    );
  });

  it('stays hourly for an experiment that stopped before its third day, however long ago', async () => {
    now = new Date('2025-06-02T20:00:00.000Z');
    expect((await t.request('POST', `/experiments/${EXP}/stop`, { body: {} })).status).toBe(200);
    now = new Date('2025-07-01T00:00:00.000Z');
    const r = await results();
    expect(r.timeseries_granularity).toBe('hour');
    expect(r.timeseries[0].start).toBe('2025-06-01T09:00:00.000Z');
    expect(totalOf(r.timeseries.at(-1))).toBe(EXPOSURES.length);
  });
});
