import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLICE_ROWS } from '../../../src/db/slices.js';
import { behave, FakeOpenAI } from '../../support/fakeOpenAI.js';
import { givenPrompt } from '../../support/fixtures.js';
import { startTestApp, type TestApp } from '../../support/harness.js';

/**
 * An evaluation whose work rows do not fit in one slice (src/db/slices.ts) is created over many
 * transactions and invisible until the last; a cancel is visible whole at once, its pending rows
 * marked skipped in slices after; what a creation cut short leaves is deleted.
 */
let t: TestApp;
const fake = new FakeOpenAI();
let skewMs = 0;
const clock = { now: () => new Date(Date.now() + skewMs) };
const HOLD_MS = 5_000;
const ITEMS = SLICE_ROWS + 500;

const create = () => t.request('POST', '/evaluations', { body: { prompt_id: 'p', versions: [2, 1], dataset_id: 'qa', evaluators: ['exact'], concurrency: 1 } });
const rows = async (sql: string, args: unknown[] = []) => Number(await t.store.sql.value(sql, args));
const staged = () => rows('SELECT count(*) FROM evaluations WHERE staged_until IS NOT NULL');

/** Runs `write` while `read` checks what a reader sees, with a turn of the event loop between reads (app.inject may never yield one); answers the write's result and how many reads `halfWay` said were made half-way. */
async function readDuring<T>(write: () => Promise<T>, read: () => Promise<void>, halfWay: () => Promise<boolean>): Promise<{ result: T; halfWay: number }> {
  let done = false;
  const writing = write().finally(() => {
    done = true;
  });
  let seen = 0;
  while (!done) {
    await new Promise((resolve) => setImmediate(resolve));
    if (await halfWay()) seen += 1;
    await read();
  }
  return { result: await writing, halfWay: seen };
}

beforeAll(async () => {
  const { baseURL } = await fake.start();
  // Each call takes a while: the runner works through a handful of items during a test, not all.
  fake.setDefault(behave.slow(200, { content: 'x' }));
  t = await startTestApp(
    {
      PROMPTLINE_PROVIDER_FAKE_BASE_URL: baseURL,
      PROMPTLINE_PROVIDER_FAKE_API_KEY: 'sk-test',
      PROMPTLINE_MAX_RETRIES: '0',
      PROMPTLINE_SLICED_WRITE_HOLD_MS: String(HOLD_MS),
    },
    { clock },
  );
  await givenPrompt(t, { prompt_id: 'p', template: '{{q}}', model: 'fake/gpt-4o-mini', versions: [{ template: '{{q}}.', model: 'fake/gpt-4o-mini' }] });
  await t.request('POST', '/datasets', { body: { dataset_id: 'qa' } });
  const items = Array.from({ length: ITEMS }, (_, i) => ({ inputs: { q: `q${i}` }, expected: `q${i}` }));
  expect((await t.request('POST', '/datasets/qa/items', { body: { items } })).status).toBe(201);
  await t.request('POST', '/evaluators', { body: { evaluator_id: 'exact', kind: 'exact_match' } });
});
afterAll(async () => {
  await fake.close();
  await t.cleanup();
});

describe('an evaluation on more items than one slice', () => {
  let id: string;

  it('is created in slices: invisible until whole, then the same work rows in the same order', async () => {
    const { result, halfWay } = await readDuring(
      create,
      async () => {
        const listed = (await t.request('GET', '/evaluations')).json.data;
        expect(listed.length === 0 || listed[0].progress.total === ITEMS * 2).toBe(true);
        // Nothing of a staged evaluation is claimed: no model call is made for it.
        expect(
          await rows(
            "SELECT count(*) FROM evaluation_items i JOIN evaluations e ON e.id = i.evaluation_id WHERE e.staged_until IS NOT NULL AND i.state <> 'pending'",
          ),
        ).toBe(0);
      },
      async () => (await staged()) > 0,
    );
    expect(result.status).toBe(202);
    expect(result.json).toMatchObject({ status: 'queued', total: ITEMS * 2 });
    expect(halfWay).toBeGreaterThan(0);
    id = result.json.evaluation_id;
    expect(await staged()).toBe(0);
    expect(await rows('SELECT count(*) FROM evaluation_items WHERE evaluation_id = ?', [id])).toBe(ITEMS * 2);
    const datasetOrder = [];
    for (let cursor: string | null = ''; cursor !== null; ) {
      const page: any = (await t.request('GET', `/datasets/qa/items?limit=1000${cursor === '' ? '' : `&cursor=${cursor}`}`)).json;
      datasetOrder.push(...page.data.map((i: { item_id: string }) => i.item_id));
      cursor = page.next_cursor;
    }
    const work = await t.store.sql.all<{ item_id: string; side: string }>(
      'SELECT item_id, side FROM evaluation_items WHERE evaluation_id = ? ORDER BY seq, side',
      [id],
    );
    expect(work.map((w) => w.item_id)).toEqual(datasetOrder.flatMap((itemId) => [itemId, itemId]));
    expect(work.map((w) => w.side)).toEqual(datasetOrder.flatMap(() => ['baseline', 'candidate']));
  });

  it('is cancelled at once, whole: no reader sees a pending item of it, and the rows are marked skipped before the answer', async () => {
    const pendingRows = () => rows("SELECT count(*) FROM evaluation_items WHERE evaluation_id = ? AND state = 'pending'", [id]);
    let cancelledSeen = 0;
    const { result, halfWay } = await readDuring(
      () => t.request('POST', `/evaluations/${id}/cancel`),
      async () => {
        const e = (await t.request('GET', `/evaluations/${id}`)).json;
        if (e.status !== 'cancelled') return;
        cancelledSeen += 1;
        const items = (await t.request('GET', `/evaluations/${id}/items?limit=100`)).json.data;
        expect(items.flatMap((i: any) => [i.candidate.state, i.baseline.state])).not.toContain('pending');
        expect(e.progress.total - e.progress.done).toBeLessThanOrEqual(1);
      },
      async () => (await t.request('GET', `/evaluations/${id}`)).json.status === 'cancelled' && (await pendingRows()) > 0,
    );
    expect(result.status).toBe(200);
    expect(result.json.status).toBe('cancelled');
    expect(halfWay).toBeGreaterThan(0);
    expect(cancelledSeen).toBeGreaterThan(0);
    expect(await pendingRows()).toBe(0);
    const states = await t.store.sql.all<{ state: string; n: number }>(
      'SELECT state, count(*) AS n FROM evaluation_items WHERE evaluation_id = ? GROUP BY state',
      [id],
    );
    const skipped = Number(states.find((s) => s.state === 'skipped')?.n ?? 0);
    expect(skipped).toBeGreaterThan(ITEMS * 2 - 20);
    // What the runner had begun is still recorded as it ends, and then everything is counted.
    await t.evaluations.idle();
    const e = (await t.request('GET', `/evaluations/${id}`)).json;
    expect(e.progress.done).toBe(e.progress.total);
  });

  it('ended with pending rows left (a crash during the marking): shown skipped, and housekeeping marks them', async () => {
    await t.store.writer.write((db) =>
      db.run("UPDATE evaluation_items SET state = 'pending', finished_at = NULL WHERE evaluation_id = ? AND state = 'skipped'", [id]),
    );
    const items = (await t.request('GET', `/evaluations/${id}/items?limit=50`)).json.data;
    expect(items.flatMap((i: any) => [i.candidate.state, i.baseline.state])).not.toContain('pending');
    await t.housekeeping();
    expect(await rows("SELECT count(*) FROM evaluation_items WHERE evaluation_id = ? AND state = 'pending'", [id])).toBe(0);
    expect(await rows("SELECT count(*) FROM evaluation_items WHERE evaluation_id = ? AND state = 'skipped' AND finished_at IS NULL", [id])).toBe(0);
  });
});

describe('a creation cut short', () => {
  it('by a writer that held on too long leaves nothing', async () => {
    const before = (await t.request('GET', '/evaluations')).json.data.length;
    let stalled = false;
    const { result, halfWay } = await readDuring(
      create,
      async () => {
        expect((await t.request('GET', '/evaluations')).json.data).toHaveLength(before);
      },
      async () => {
        if ((await staged()) === 0) return false;
        // As if the process had stalled past its hold between two slices.
        if (!stalled) skewMs += HOLD_MS * 2;
        stalled = true;
        return true;
      },
    );
    expect(halfWay).toBeGreaterThan(0);
    expect(result.status).toBe(500);
    expect((await t.request('GET', '/evaluations')).json.data).toHaveLength(before);
    expect(await staged()).toBe(0);
    expect(await rows('SELECT count(*) FROM evaluation_items WHERE evaluation_id NOT IN (SELECT id FROM evaluations)')).toBe(0);
  });

  it('by a process that died is never seen nor run, and housekeeping deletes it once its hold has ended', async () => {
    // What a process killed half-way through a creation leaves: the staged row and some work rows.
    const until = new Date(clock.now().getTime() + HOLD_MS).toISOString();
    await t.store.writer.write(async (db) => {
      await db.run(
        `INSERT INTO evaluations (project_id, id, prompt_id, candidate_ref, baseline_ref, candidate_version, baseline_version, dataset_id, dataset_version,
           evaluators, concurrency, status, total, created_at, staged_until)
         SELECT project_id, 'evl_half', 'p', '2', '1', 2, 1, 'qa', 1, '[]', 1, 'queued', ?, ?, ? FROM datasets WHERE dataset_id = 'qa'`,
        [ITEMS * 2, clock.now().toISOString(), until],
      );
      for (let seq = 1; seq <= SLICE_ROWS; seq++) {
        await db.run(
          "INSERT INTO evaluation_items (project_id, evaluation_id, seq, item_id, side, state) SELECT project_id, 'evl_half', ?, ?, 'baseline', 'pending' FROM datasets WHERE dataset_id = 'qa'",
          [seq, `itm_${seq}`],
        );
      }
    });
    expect((await t.request('GET', '/evaluations/evl_half')).status).toBe(404);
    expect((await t.request('GET', '/evaluations')).json.data.map((e: { evaluation_id: string }) => e.evaluation_id)).not.toContain('evl_half');
    await t.evaluations.poll();
    expect(await rows("SELECT count(*) FROM evaluation_items WHERE evaluation_id = 'evl_half' AND state <> 'pending'")).toBe(0);
    await t.housekeeping();
    expect(await rows("SELECT count(*) FROM evaluation_items WHERE evaluation_id = 'evl_half'")).toBe(SLICE_ROWS);
    skewMs += HOLD_MS * 2;
    await t.housekeeping();
    expect(await rows("SELECT count(*) FROM evaluation_items WHERE evaluation_id = 'evl_half'")).toBe(0);
    expect(await rows("SELECT count(*) FROM evaluations WHERE id = 'evl_half'")).toBe(0);
  });
});
