import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { RETENTION_BATCH } from '../../../src/modules/runs/textRetention.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

/** PROMPTLINE_RUN_TEXT_RETENTION_DAYS: old runs lose their text, never their numbers. */
let t: TestApp;
let now = new Date('2025-01-01T00:00:00.000Z');
const clock = { now: () => now };
const day = (n: number) => new Date(Date.parse('2025-01-01T00:00:00.000Z') + n * 86_400_000);

let retries = 0;
const run = async (key?: string) => {
  const res = await t.request('POST', '/run_prompt', {
    ...(key ? { key } : {}),
    headers: { 'idempotency-key': `retry-${retries++}` },
    body: { prompt_id: 'rt', inputs: { who: 'Ada Lovelace' } },
  });
  expect(res.status).toBe(200);
  return res.json.run_id as string;
};
const stored = async (id: string) =>
  (await t.store.sql.get<Record<string, unknown>>('SELECT inputs, rendered, output, total_tokens, latency_ms, status FROM runs WHERE id = ?', [id]))!;

beforeAll(async () => {
  // No webhook timers: their pass prunes old deliveries once the clock jumps, a write of its own
  // that could land among the sweep's writes counted below (it did on PostgreSQL, where the sweep takes longer).
  t = await startTestApp({ PROMPTLINE_RUN_TEXT_RETENTION_DAYS: '30' }, { clock, webhookTimers: false });
  const other = await t.keyFor('admin', 'other-retention');
  for (const key of [undefined, other]) await givenPrompt(t, { prompt_id: 'rt', template: 'Hello {{who}}', key });
});
afterAll(async () => t.cleanup());

describe('run text retention', () => {
  it('drops the inputs, rendered prompt and output of runs past the retention, and the stored answers, in every project; numbers stay', async () => {
    const old = [await run(), await run(), await run(await t.keyFor('admin', 'other-retention'))];
    now = day(20);
    const recent = await run();
    const before = await Promise.all(old.map(stored));
    expect(before[0]).toMatchObject({ inputs: '{"who":"Ada Lovelace"}', output: 'Hello Ada Lovelace' });

    now = day(31);
    expect(await t.retention!.sweepOnce()).toEqual({ runs: 3, answers: 3 });
    // The stored answer of an idempotent /run_prompt held the output too: gone, so a retry runs anew.
    expect(JSON.stringify(await t.store.sql.all('SELECT response FROM idempotency_keys'))).toContain('Hello Ada Lovelace'); // the recent one
    for (const [i, id] of old.entries()) {
      const { inputs, rendered, output, ...numbers } = before[i]!;
      expect(await stored(id)).toEqual({ inputs: '{}', rendered: '[]', output: null, ...numbers });
    }
    expect(await stored(recent)).toMatchObject({ output: 'Hello Ada Lovelace' });
    expect((await t.request('GET', `/runs/${old[0]}`)).json).toMatchObject({ inputs: {}, output: null, status: 'ok' });
    expect(await t.retention!.sweepOnce()).toEqual({ runs: 0, answers: 0 });

    now = day(51);
    expect(await t.retention!.sweepOnce()).toEqual({ runs: 1, answers: 1 });
    expect(await t.store.sql.value('SELECT count(*) FROM idempotency_keys')).toBe(0);
    expect(await stored(recent)).toMatchObject({ output: null });
  });

  it('works in batches, so other writes commit in between', async () => {
    const projectId = (await t.keys.authenticate(await t.keyFor('admin')))!.projectId;
    const count = RETENTION_BATCH * 2 + 7;
    await t.store.writer.write(async (tx) => {
      for (let i = 0; i < count; i++) {
        await tx.run(
          `INSERT INTO runs (id, project_id, prompt_id, prompt_version, inputs, rendered, output, model_requested, latency_ms, status, attempts, created_at)
      VALUES (?, ?, 'rt', 1, '{"who":"x"}', '[]', 'out', 'echo/echo', 1, 'ok', '[]', ?)`,
          [`run_bulk_${i}`, projectId, day(52).toISOString()],
        );
      }
    });
    now = day(90);
    // The earlier tests' calls left input names to count: written now, not by their timer among the
    // sweep's writes counted below (it did on PostgreSQL, where the sweep takes longer).
    await t.inputShapes.flush();
    const batchesBefore = t.store.writer.batches;
    expect((await t.retention!.sweepOnce()).runs).toBe(count);
    // Three writes of runs, and one of stored answers per project.
    const projects = (await t.store.sql.value<number>('SELECT count(*) FROM projects')) as number;
    expect(t.store.writer.batches - batchesBefore).toBe(3 + projects);
    expect(await t.store.sql.value(`SELECT count(*) FROM runs WHERE output IS NOT NULL`)).toBe(0);
  });

  it('is off unless set, and refuses a value that is not a number of days', () => {
    expect(loadConfig({}).config!.runTextRetentionDays).toBeNull();
    expect(loadConfig({ PROMPTLINE_RUN_TEXT_RETENTION_DAYS: '0' }).errors).toEqual([
      'PROMPTLINE_RUN_TEXT_RETENTION_DAYS="0" is invalid: expected an integer number of days (1 to 36500)',
    ]);
  });
});
