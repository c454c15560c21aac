import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir, loadMigrations, migrate } from '../../../src/db/migrate.js';
import { toView } from '../../../src/modules/experiments/experimentModel.js';
import { findExperiment } from '../../../src/modules/experiments/experiments.repo.js';
import { sqliteSql } from '../../../src/db/sql.js';
import { readExperiment } from '../../../src/modules/experiments/experiments.service.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';
import { tempDataDir } from '../../support/processes.js';

/** Declared metrics on experiments: defaults, the primary_metric shorthand, validation, and the migration of stored experiments. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await givenPrompt(t, { prompt_id: 'm', template: 'A {{x}}', versions: ['B {{x}}'] });
});
afterAll(async () => t.cleanup());

const variants = [
  { key: 'a', version: 1 },
  { key: 'b', version: 2 },
];
const create = (extra: Record<string, unknown>) => t.request('POST', '/experiments', { body: { prompt_id: 'm', variants, ...extra } });
const experimentCount = async () => (await t.store.sql.value<number>('SELECT count(*) FROM experiments')) as number;

describe('declared metrics', () => {
  it('fills in names, directions and caps, and shows the primary through primary_metric too', async () => {
    const res = await create({
      experiment_id: 'm-full',
      metrics: [
        { event_type: 'convert', kind: 'success_rate', role: 'primary' },
        { event_type: 'revenue', kind: 'mean', role: 'secondary', cap: { percentile: 0.99 }, name: 'Revenue per user' },
        { source: 'runs', kind: 'cost_usd', role: 'guardrail' },
        { source: 'runs', kind: 'latency_ms', role: 'guardrail', cap: 30000 },
      ],
      target_mde: 0.05,
      cuped: true,
      cuped_days: 7,
    });
    expect(res.status).toBe(201);
    expect(res.json.metrics).toEqual([
      { name: 'convert:success_rate', source: 'outcomes', event_type: 'convert', kind: 'success_rate', role: 'primary', direction: 'higher', cap: null },
      { name: 'Revenue per user', source: 'outcomes', event_type: 'revenue', kind: 'mean', role: 'secondary', direction: 'higher', cap: { percentile: 0.99 } },
      { name: 'runs:cost_usd', source: 'runs', event_type: null, kind: 'cost_usd', role: 'guardrail', direction: 'lower', cap: null },
      { name: 'runs:latency_ms', source: 'runs', event_type: null, kind: 'latency_ms', role: 'guardrail', direction: 'lower', cap: 30000 },
    ]);
    expect(res.json).toMatchObject({ primary_metric: { event_type: 'convert', kind: 'success_rate' }, target_mde: 0.05, cuped: true, cuped_days: 7 });
    expect((await t.request('GET', '/experiments/m-full')).json).toEqual(res.json);
  });

  it('defaults to no metrics, a 10% target effect and CUPED off over 14 days', async () => {
    const res = await create({ experiment_id: 'm-bare' });
    expect(res.json).toMatchObject({ metrics: [], primary_metric: null, target_mde: 0.1, cuped: false, cuped_days: 14 });
  });

  it('reads primary_metric as one primary outcome metric where higher is better, and a runs primary as no primary_metric', async () => {
    const legacy = await create({ experiment_id: 'm-legacy', primary_metric: { event_type: 'click', kind: 'mean' } });
    expect(legacy.json.metrics).toEqual([
      { name: 'click:mean', source: 'outcomes', event_type: 'click', kind: 'mean', role: 'primary', direction: 'higher', cap: null },
    ]);
    const runs = await create({ experiment_id: 'm-runs-primary', metrics: [{ source: 'runs', kind: 'latency_ms', role: 'primary' }] });
    expect(runs.json.primary_metric).toBeNull();
  });

  it('lets primary_metric replace only the primary of a draft, keeps the rest, and null removes it', async () => {
    await create({
      experiment_id: 'm-patch',
      metrics: [
        { event_type: 'click', kind: 'success_rate', role: 'primary' },
        { source: 'runs', kind: 'error_rate', role: 'guardrail' },
      ],
    });
    const replaced = await t.request('PATCH', '/experiments/m-patch', { body: { primary_metric: { event_type: 'buy', kind: 'success_rate' } } });
    expect(replaced.status).toBe(200);
    expect(replaced.json.metrics.map((m: { name: string; role: string }) => [m.name, m.role])).toEqual([
      ['buy:success_rate', 'primary'],
      ['runs:error_rate', 'guardrail'],
    ]);
    const removed = await t.request('PATCH', '/experiments/m-patch', { body: { primary_metric: null } });
    expect(removed.json.metrics.map((m: { name: string }) => m.name)).toEqual(['runs:error_rate']);
    expect(removed.json.primary_metric).toBeNull();
    const listed = await t.request('PATCH', '/experiments/m-patch', {
      body: { metrics: [{ event_type: 'nps', kind: 'mean', role: 'primary', direction: 'lower' }], target_mde: 0.2, cuped: true },
    });
    expect(listed.json).toMatchObject({ metrics: [{ name: 'nps:mean', direction: 'lower' }], target_mde: 0.2, cuped: true, cuped_days: 14 });
  });

  it('changes metrics while draft or paused only: 409 while running, and nothing changes', async () => {
    await create({ experiment_id: 'm-live', metrics: [{ event_type: 'click', kind: 'success_rate', role: 'primary' }] });
    await t.request('POST', '/experiments/m-live/start');
    const res = await t.request('PATCH', '/experiments/m-live', { body: { metrics: [] } });
    expect(res.status).toBe(409);
    expect(toView((await findExperiment(t.store.sql, (await t.keys.authenticate(await t.keyFor('admin')))!.projectId, 'm-live'))!).metrics).toHaveLength(1);
    await t.request('POST', '/experiments/m-live/pause');
    expect((await t.request('PATCH', '/experiments/m-live', { body: { metrics: [] } })).json.metrics).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, (string | number)[], string]>([
    [
      'metrics and primary_metric together',
      { metrics: [], primary_metric: { event_type: 'x', kind: 'mean' } },
      ['body', 'primary_metric'],
      'give metrics or primary_metric, not both',
    ],
    [
      'two primaries',
      {
        metrics: [
          { event_type: 'x', kind: 'mean', role: 'primary' },
          { event_type: 'y', kind: 'mean', role: 'primary' },
        ],
      },
      ['body', 'metrics', 1, 'role'],
      'at most one metric can be primary',
    ],
    ['an outcome metric without event_type', { metrics: [{ kind: 'mean', role: 'primary' }] }, ['body', 'metrics', 0, 'event_type'], 'needs its event_type'],
    [
      'a runs metric with an event_type',
      { metrics: [{ source: 'runs', event_type: 'x', kind: 'latency_ms', role: 'guardrail' }] },
      ['body', 'metrics', 0, 'event_type'],
      'has no event_type',
    ],
    [
      'a runs kind read from outcomes',
      { metrics: [{ event_type: 'x', kind: 'cost_usd', role: 'guardrail' }] },
      ['body', 'metrics', 0, 'kind'],
      'one of success_rate, mean',
    ],
    [
      'an outcome kind read from runs',
      { metrics: [{ source: 'runs', kind: 'success_rate', role: 'guardrail' }] },
      ['body', 'metrics', 0, 'kind'],
      'one of latency_ms, ttft_ms, cost_usd, error_rate, total_tokens',
    ],
    ['a capped rate', { metrics: [{ event_type: 'x', kind: 'success_rate', role: 'primary', cap: 3 }] }, ['body', 'metrics', 0, 'cap'], 'cannot be capped'],
    [
      'a cap that is text',
      { metrics: [{ event_type: 'x', kind: 'mean', role: 'primary', cap: '99%' }] },
      ['body', 'metrics', 0, 'cap'],
      'number or {"percentile"',
    ],
    [
      'a percentile of 1',
      { metrics: [{ event_type: 'x', kind: 'mean', role: 'primary', cap: { percentile: 1 } }] },
      ['body', 'metrics', 0, 'cap'],
      '0 < p < 1',
    ],
    [
      'a cap with extra fields',
      { metrics: [{ event_type: 'x', kind: 'mean', role: 'primary', cap: { percentile: 0.9, value: 3 } }] },
      ['body', 'metrics', 0, 'cap'],
      'number or {"percentile"',
    ],
    [
      'the same metric twice',
      {
        metrics: [
          { event_type: 'x', kind: 'mean', role: 'primary' },
          { event_type: 'x', kind: 'mean', role: 'secondary', name: 'again' },
        ],
      },
      ['body', 'metrics', 1],
      'declared twice',
    ],
    [
      'two metrics with one name',
      {
        metrics: [
          { event_type: 'x', kind: 'mean', role: 'primary', name: 'n' },
          { event_type: 'y', kind: 'mean', role: 'secondary', name: 'n' },
        ],
      },
      ['body', 'metrics', 1, 'name'],
      "'n' is used twice",
    ],
    [
      'more than 20 metrics',
      { metrics: Array.from({ length: 21 }, (_, i) => ({ event_type: `e${i}`, kind: 'mean', role: 'secondary' })) },
      ['body', 'metrics'],
      'at most 20',
    ],
    ['an unknown role', { metrics: [{ event_type: 'x', kind: 'mean', role: 'goal' }] }, ['body', 'metrics', 0, 'role'], "Input should be 'primary'"],
    [
      'an unknown direction',
      { metrics: [{ event_type: 'x', kind: 'mean', role: 'primary', direction: 'up' }] },
      ['body', 'metrics', 0, 'direction'],
      "'higher'",
    ],
    ['a target effect of 0', { target_mde: 0 }, ['body', 'target_mde'], 'greater than 0'],
    ['a CUPED window of 0 days', { cuped_days: 0 }, ['body', 'cuped_days'], 'greater than or equal to 1'],
  ])('rejects %s with 422 and stores nothing', async (_name, extra, loc, message) => {
    const before = await experimentCount();
    const res = await create(extra);
    expect(res.status).toBe(422);
    const item = res.json.detail.find((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(loc));
    expect(item, JSON.stringify(res.json.detail)).toBeDefined();
    expect(item.msg).toContain(message);
    expect(await experimentCount()).toBe(before);
    const patched = await t.request('PATCH', '/experiments/m-bare', { body: extra });
    expect(patched.status).toBe(422);
    expect((await t.request('GET', '/experiments/m-bare')).json.metrics).toEqual([]);
  });

  it("refuses an evaluator metric naming an evaluator the project lacks (one never made, another project's) at creation and in a patch", async () => {
    const theirs = await t.keyFor('admin', 'other-evaluators');
    expect((await t.request('POST', '/evaluators', { key: theirs, body: { evaluator_id: 'theirs', kind: 'exact_match' } })).status).toBe(201);
    expect((await t.request('POST', '/evaluators', { body: { evaluator_id: 'mine', kind: 'exact_match' } })).status).toBe(201);
    expect((await t.request('POST', '/evaluators', { body: { evaluator_id: 'retired', kind: 'exact_match' } })).status).toBe(201);
    expect((await t.request('DELETE', '/evaluators/retired')).status).toBe(204);
    const evaluatorMetric = (evaluator: string, role = 'primary') => ({ source: 'evaluator', evaluator, kind: 'pass_rate', role });
    const refusal = (i: number, evaluator: string) => ({
      type: 'value_error',
      loc: ['body', 'metrics', i, 'evaluator'],
      msg: `Value error, evaluator '${evaluator}' not found in this project`,
      input: evaluator,
      ctx: { error: `evaluator '${evaluator}' not found in this project` },
    });

    for (const missing of ['ghost', 'theirs']) {
      const before = await experimentCount();
      const res = await create({
        experiment_id: `m-eval-${missing}`,
        metrics: [{ event_type: 'buy', kind: 'success_rate', role: 'primary' }, evaluatorMetric(missing, 'secondary')],
      });
      expect([res.status, res.json.detail]).toEqual([422, [refusal(1, missing)]]);
      expect(await experimentCount()).toBe(before);
    }

    // The project's own evaluators, an archived one included (its scores stay readable).
    const made = await create({ experiment_id: 'm-eval', metrics: [evaluatorMetric('mine'), evaluatorMetric('retired', 'secondary')] });
    expect(made.status).toBe(201);
    for (const missing of ['ghost', 'theirs']) {
      const patched = await t.request('PATCH', '/experiments/m-eval', { body: { metrics: [evaluatorMetric('mine'), evaluatorMetric(missing, 'guardrail')] } });
      expect([patched.status, patched.json.detail]).toEqual([422, [refusal(1, missing)]]);
    }
    expect((await t.request('GET', '/experiments/m-eval')).json.metrics.map((m: { evaluator?: string }) => m.evaluator)).toEqual(['mine', 'retired']);
    // primary_metric names no evaluator: the evaluator metrics kept beside it are the project's own.
    const legacy = await t.request('PATCH', '/experiments/m-eval', { body: { primary_metric: { event_type: 'buy', kind: 'success_rate' } } });
    expect(legacy.status).toBe(200);
    expect(legacy.json.metrics.map((m: { name: string }) => m.name)).toEqual(['buy:success_rate', 'retired:pass_rate']);
  });

  it("hides other projects' experiments from a metrics change", async () => {
    const other = await t.keyFor('admin', 'other-metrics');
    const res = await t.request('PATCH', '/experiments/m-bare', { key: other, body: { metrics: [] } });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: "Experiment 'm-bare' not found" });
  });
});

describe('migration 0006', () => {
  it('turns a stored primary_metric into the primary of the metrics list', async () => {
    const dir = tempDataDir();
    const db = new Database(path.join(dir, 'old.db'));
    try {
      const all = loadMigrations(defaultMigrationsDir());
      migrate(
        db,
        all.filter((m) => m.version <= 5),
      );
      db.exec(`INSERT INTO projects (id, name, created_at) VALUES ('p', 'p', '2025-01-01T00:00:00.000Z');
        INSERT INTO prompts (project_id, prompt_id, description, created_at, archived_at) VALUES ('p', 'q', NULL, '2025-01-01T00:00:00.000Z', NULL);
        INSERT INTO experiments (project_id, id, prompt_id, status, variants, control, coverage, seed, primary_metric, created_at, updated_at)
        VALUES ('p', 'old', 'q', 'draft', '[]', 'a', 1, 's', '{"event_type":"signup","kind":"success_rate"}', 'x', 'x'),
               ('p', 'none', 'q', 'draft', '[]', 'a', 1, 's', NULL, 'x', 'x');`);
      expect(migrate(db, all)).toEqual(all.filter((m) => m.version > 5).map((m) => m.version));
      expect(await readExperiment(sqliteSql(db), 'p', 'old')).toMatchObject({
        primary_metric: { event_type: 'signup', kind: 'success_rate' },
        metrics: [
          { name: 'signup:success_rate', source: 'outcomes', event_type: 'signup', kind: 'success_rate', role: 'primary', direction: 'higher', cap: null },
        ],
        target_mde: 0.1,
        cuped: false,
        cuped_days: 14,
      });
      expect(await readExperiment(sqliteSql(db), 'p', 'none')).toMatchObject({ primary_metric: null, metrics: [] });
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
