import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

/**
 * CUPED's covariate captured at first assignment (migrations/0011) must give exactly the report the
 * per-user seeks give: every number, to the last bit. A population is built through the runtime
 * API in three groups, assigned while the experiment had CUPED on over 14 days (A), CUPED off (B:
 * nothing captured) and CUPED on over 3 days (C); pre-exposure outcomes are not whole numbers, and
 * C's users have some recorded after A was assigned. Two users are erased and two lose their capture
 * (as if assigned before the migration). Each report is compared with the same report with every
 * capture disowned (its key changed in place, so results seek every user's window), over edits of
 * cuped_days, of the declared event types, and CUPED asked for by query on an experiment with it off.
 */
let t: TestApp;
let runtime: string;
let now = new Date('2025-01-20T10:00:00.000Z');
const clock = { now: () => now };
const EXP = 'capture-exp';
const N = 60;
const user = (i: number) => `u${i}`;
const group = (i: number) => (i < 20 ? 'A' : i < 40 ? 'B' : 'C');
const pre = (i: number): number | null => (i % 5 === 0 ? null : (i % 7) * 0.1 + 0.05);
const post = (i: number): number => (pre(i) ?? 0) * 3 + (i % 4) * 0.3;

const track = (body: Record<string, unknown>) => t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'cap', ...body } });
const assign = async (from: number, to: number) => {
  for (let i = from; i < to; i++) {
    const res = await t.request('POST', '/get_prompt', { key: runtime, body: { prompt_id: 'cap', external_user_id: user(i) } });
    expect(res.status).toBe(200);
  }
};
const edit = async (body: Record<string, unknown>) => {
  const res = await t.request('PATCH', `/experiments/${EXP}`, { body });
  expect(res.status).toBe(200);
};
const transition = async (action: 'start' | 'pause') => expect((await t.request('POST', `/experiments/${EXP}/${action}`)).status).toBe(200);
const results = async (query = '') => {
  const res = await t.request('GET', `/experiments/${EXP}/results${query}`);
  expect(res.status).toBe(200);
  return res.json;
};
/** Users whose stored capture has the given key (JSON [days, sorted event types]). */
const captured = async (key: string) =>
  (await t.store.sql.value<number>('SELECT count(*) FROM assignments WHERE experiment_id = ? AND pre_key = ?', [EXP, key])) as number;

/** The report with no capture usable: every key changed in place for the request, then put back. */
async function sought(query = '') {
  const before = await t.store.sql.value('SELECT count(*) FROM assignments WHERE pre_key IS NOT NULL');
  await t.store.writer.write((tx) => tx.run("UPDATE assignments SET pre_key = '~' || pre_key WHERE pre_key IS NOT NULL"));
  try {
    return await results(query);
  } finally {
    await t.store.writer.write((tx) => tx.run("UPDATE assignments SET pre_key = substr(pre_key, 2) WHERE pre_key LIKE '~%'"));
    expect(await t.store.sql.value("SELECT count(*) FROM assignments WHERE pre_key IS NOT NULL AND pre_key NOT LIKE '~%'")).toBe(before);
  }
}

async function expectSameAsSeeks(query = '') {
  const report = await results(query);
  expect(report.options.cuped).toBe(true);
  expect(report.metrics[0].cuped.applied).toBe(true);
  expect(report).toEqual(await sought(query));
  return report;
}

beforeAll(async () => {
  t = await startTestApp({}, { clock });
  runtime = await t.keyFor('runtime');
  await givenPrompt(t, { prompt_id: 'cap', template: 'one', versions: ['two'] });
  // Long before: outside every window used below.
  for (let i = 0; i < N; i += 3) await track({ external_user_id: user(i), event_type: 'spend', numeric_value: 100 });
  now = new Date('2025-02-01T10:00:00.000Z');
  for (let i = 0; i < N; i++) {
    if (pre(i) !== null) await track({ external_user_id: user(i), event_type: 'spend', numeric_value: pre(i) });
    if (i % 3 === 1) await track({ external_user_id: user(i), event_type: 'signup', is_success: i % 2 === 0 });
  }
  now = new Date('2025-02-08T10:00:00.000Z');
  for (let i = 0; i < N; i += 2) await track({ external_user_id: user(i), event_type: 'spend', numeric_value: 1 / 3 });
  await givenExperiment(t, {
    experiment_id: EXP,
    prompt_id: 'cap',
    metrics: [
      { event_type: 'spend', kind: 'mean', role: 'primary' },
      { event_type: 'signup', kind: 'success_rate', role: 'secondary' },
      { source: 'runs', kind: 'cost_usd', role: 'guardrail' },
    ],
    cuped: true,
  });
  await transition('start');
  now = new Date('2025-02-10T10:00:00.000Z');
  await assign(0, 20);
  await transition('pause');
  await edit({ cuped: false });
  await transition('start');
  // Recorded after A's first exposure, before B's and C's: pre-exposure for B and C only (for A,
  // these users' outcomes are attributed to the experiment: after exposure).
  now = new Date('2025-02-10T11:00:00.000Z');
  for (let i = 0; i < N; i += 4) await track({ external_user_id: user(i), event_type: 'spend', numeric_value: 0.7 });
  now = new Date('2025-02-10T12:00:00.000Z');
  await assign(20, 40);
  await transition('pause');
  await edit({ cuped: true, cuped_days: 3 });
  await transition('start');
  now = new Date('2025-02-10T14:00:00.000Z');
  await assign(40, N);
  now = new Date('2025-02-11T10:00:00.000Z');
  for (let i = 0; i < N; i++) {
    await track({ external_user_id: user(i), event_type: 'spend', numeric_value: post(i) });
    if (i % 2 === 1) await track({ external_user_id: user(i), event_type: 'signup', is_success: i % 3 !== 0 });
  }
  // Erased users keep their numbers under an alias; their capture goes, and results seek the alias.
  expect((await t.request('DELETE', `/users/${user(3)}`)).status).toBe(200);
  expect((await t.request('DELETE', `/users/${user(44)}`)).status).toBe(200);
  // Assigned before migrations/0011: no capture at all.
  await t.store.writer.write((tx) => tx.run('UPDATE assignments SET pre_key = NULL, pre = NULL WHERE external_user_id IN (?, ?)', [user(5), user(41)]));
  now = new Date('2025-02-12T10:00:00.000Z');
});
afterAll(async () => t.cleanup());

const KEY_14 = '[14,["signup","spend"]]';
const KEY_3 = '[3,["signup","spend"]]';

// On PostgreSQL nothing is captured yet (experiments.repo.ts), and the reports compared are results.
describe('CUPED covariate captured at first assignment', () => {
  it('is captured for the users assigned while CUPED was on, with the window and event types of the time', async () => {
    const rows = await t.store.sql.all<{
      user: string;
      pre_key: string | null;
    }>('SELECT external_user_id AS user, pre_key FROM assignments WHERE experiment_id = ?', [EXP]);
    expect(rows).toHaveLength(N);
    const keyOf = new Map(rows.map((r) => [r.user, r.pre_key]));
    for (let i = 0; i < N; i++) {
      if ([3, 44].includes(i)) {
        expect(keyOf.has(user(i))).toBe(false);
        continue;
      }
      const expected = [5, 41].includes(i) ? null : { A: KEY_14, B: null, C: KEY_3 }[group(i)];
      expect(keyOf.get(user(i)), user(i)).toBe(expected);
    }
    // The erased users' rows are there, under their alias, without a capture.
    expect(rows.filter((r) => !r.user.startsWith('u')).map((r) => r.pre_key)).toEqual([null, null]);
  });

  it("captures exactly the outcomes of the user's window: the sums a hand count gives", async () => {
    const pres = new Map(
      (
        await t.store.sql.all<{
          user: string;
          pre: string | null;
        }>('SELECT external_user_id AS user, pre FROM assignments WHERE experiment_id = ? AND pre_key IS NOT NULL', [EXP])
      ).map((r) => [r.user, r.pre === null ? null : (JSON.parse(r.pre) as Array<number | null>)]),
    );
    for (const [u, values] of pres) {
      const i = Number(u.slice(1));
      // [signup: max(is_success), Σ numeric; spend: max(is_success), Σ numeric]
      if (group(i) === 'A') {
        // 14 days before 2025-02-10T10:00: the outcomes of 02-01 and 02-08.
        const spend = [pre(i), i % 2 === 0 ? 1 / 3 : null].filter((v) => v !== null);
        const signup = i % 3 === 1 ? (i % 2 === 0 ? 1 : 0) : null;
        expect(values, u).toEqual(
          signup === null && spend.length === 0 ? null : [signup, null, null, spend.length === 0 ? null : spend.reduce((s, v) => s + v, 0)],
        );
      } else {
        // 3 days before 2025-02-10T14:00: the outcomes of 02-08 and of 02-10T11:00.
        const spend = [i % 2 === 0 ? 1 / 3 : null, i % 4 === 0 ? 0.7 : null].filter((v) => v !== null);
        expect(values, u).toEqual(spend.length === 0 ? null : [null, null, null, spend.reduce((s, v) => s + v, 0)]);
      }
    }
    expect(pres.size).toBe(18 + 18);
  });

  it('gives the report the seeks give, with the window edited since (3 days: C captured, A and B sought)', async () => {
    expect(await captured(KEY_3)).toBe(18);
    const report = await expectSameAsSeeks();
    expect(report.metrics[0].cuped.days).toBe(3);
    expect(await results('?cuped=false')).toEqual(await sought('?cuped=false'));
  });

  it('uses the 14-day captures again once cuped_days is back to 14 (A captured, B and C sought)', async () => {
    await transition('pause');
    await edit({ cuped_days: 14 });
    expect(await captured(KEY_14)).toBe(18);
    const report = await expectSameAsSeeks();
    expect(report.metrics[0].cuped.days).toBe(14);
    // Spend before exposure within 14 days: every user but those with i % 5 = 0 (pre), odd (1/3 on 02-08) and,
    // for B and C, i % 4 ≠ 0 (0.7 on 02-10 after A's exposure).
    const withPre = [...Array(N).keys()].filter((i) => pre(i) !== null || i % 2 === 0 || (group(i) !== 'A' && i % 4 === 0)).length;
    expect(report.metrics[0].cuped.users_with_pre_data).toBe(withPre);
  });

  it('uses the captures for ?cuped=true on an experiment with CUPED off', async () => {
    await edit({ cuped: false });
    expect((await results()).options.cuped).toBe(false);
    await expectSameAsSeeks('?cuped=true');
  });

  it('seeks every user once the declared event types changed', async () => {
    await edit({
      cuped: true,
      metrics: [
        { event_type: 'spend', kind: 'mean', role: 'primary' },
        { event_type: 'signup', kind: 'success_rate', role: 'secondary' },
        { event_type: 'tips', kind: 'mean', role: 'secondary' },
      ],
    });
    await expectSameAsSeeks();
    // Back to the two event types, declared in another order: the 14-day captures count again.
    await edit({
      metrics: [
        { event_type: 'signup', kind: 'success_rate', role: 'primary' },
        { event_type: 'spend', kind: 'mean', role: 'secondary' },
      ],
    });
    expect(await captured(KEY_14)).toBe(18);
    await expectSameAsSeeks('?sequential=true&prior=proper');
  });
});
