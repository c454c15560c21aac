import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLICE_ROWS } from '../../../src/db/slices.js';
import { startTestApp, type TestApp } from '../../support/harness.js';

/**
 * A dataset version larger than one slice (src/db/slices.ts) is written over many transactions:
 * the same version as one transaction made (counts, order, ids), never half-visible to a reader,
 * taken back whole when it stops half-way, and other versions of the dataset wait for it.
 */
let t: TestApp;
/** The app's clock, which a test moves on to make a writer's hold end (PROMPTLINE_SLICED_WRITE_HOLD_MS). */
let skewMs = 0;
const clock = { now: () => new Date(Date.now() + skewMs) };
const HOLD_MS = 5_000;
const ITEMS = SLICE_ROWS * 2 + 500;
const item = (n: number) => ({ inputs: { q: `q${n}` }, expected: `a${n}`, metadata: { n } });

beforeAll(async () => {
  t = await startTestApp({ PROMPTLINE_SLICED_WRITE_HOLD_MS: String(HOLD_MS) }, { clock });
});
afterAll(async () => t.cleanup());

async function dataset(id: string, items = 0): Promise<void> {
  expect((await t.request('POST', '/datasets', { body: { dataset_id: id } })).status).toBe(201);
  for (let from = 0; from < items; from += 5_000) {
    const batch = Array.from({ length: Math.min(5_000, items - from) }, (_, i) => item(from + i));
    expect((await t.request('POST', `/datasets/${id}/items`, { body: { items: batch } })).status).toBe(201);
  }
}

async function stagedUpload(id: string, count: number, first = 0): Promise<string> {
  const upload = (await t.request('POST', `/datasets/${id}/uploads`)).json.upload_id as string;
  for (let from = 0; from < count; from += 5_000) {
    const batch = Array.from({ length: Math.min(5_000, count - from) }, (_, i) => item(first + from + i));
    expect((await t.request('POST', `/datasets/${id}/uploads/${upload}/items`, { body: { items: batch } })).status).toBe(200);
  }
  return upload;
}

/** Every item of a version, in order: each page read through the API. */
async function allItems(id: string, version?: number): Promise<Array<{ item_id: string; inputs: { q: string }; added_in: number }>> {
  const items = [];
  for (let cursor: string | null = ''; cursor !== null; ) {
    const query: string = `limit=1000${version === undefined ? '' : `&version=${version}`}${cursor === '' ? '' : `&cursor=${cursor}`}`;
    const page = (await t.request('GET', `/datasets/${id}/items?${query}`)).json;
    items.push(...page.data);
    cursor = page.next_cursor;
  }
  return items;
}

const stagingOf = async (id: string) =>
  t.store.sql.get<{ staging_version: number | null }>('SELECT staging_version FROM datasets WHERE dataset_id = ? AND staged_until IS NOT NULL', [id]);

/**
 * Runs `write` while reading the dataset over and over: every read must see one of `allowed`
 * (latest version, item count, items the latest version lists); answers how many reads saw the
 * write half-done in the tables (its staging set), which must be some.
 */
async function readDuring<T>(id: string, allowed: Array<[number, number]>, write: () => Promise<T>, during?: () => void): Promise<T> {
  let done = false;
  const writing = write().finally(() => {
    done = true;
  });
  let halfWay = 0;
  while (!done) {
    // app.inject may answer in microtasks alone: a turn of the event loop lets the writer's slices go on, as sockets do.
    await new Promise((resolve) => setImmediate(resolve));
    const staged = await stagingOf(id);
    const seen = (await t.request('GET', `/datasets/${id}`)).json;
    // The version this read saw as latest (the write may end between two reads).
    const page = (await t.request('GET', `/datasets/${id}/items?version=${seen.latest_version}&limit=1&cursor=${Math.max(0, seen.item_count - 1)}`)).json;
    expect(allowed).toContainEqual([seen.latest_version, seen.item_count]);
    if (staged !== undefined) {
      halfWay += 1;
      // The version being written is not the latest one's: its rows are not listed.
      expect(page.data.every((i: { added_in: number }) => i.added_in <= seen.latest_version)).toBe(true);
      during?.();
    }
  }
  const result = await writing;
  expect(halfWay).toBeGreaterThan(0);
  return result;
}

describe('a large upload committed in slices', () => {
  it('makes the same version as one transaction, never half-visible, and the upload is gone after', async () => {
    await dataset('big', 10);
    const upload = await stagedUpload('big', ITEMS, 10);
    const committed = await readDuring(
      'big',
      [
        [1, 10],
        [2, 10 + ITEMS],
      ],
      () => t.request('POST', `/datasets/big/uploads/${upload}/commit`),
    );
    expect(committed.status).toBe(201);
    expect(committed.json).toMatchObject({ version: 2, source: 'append', item_count: 10 + ITEMS, added: ITEMS, removed: 0, details: { upload_id: upload } });
    const items = await allItems('big');
    expect(items.map((i) => i.inputs.q)).toEqual(Array.from({ length: 10 + ITEMS }, (_, i) => `q${i}`));
    expect(new Set(items.map((i) => i.item_id)).size).toBe(10 + ITEMS);
    expect((await allItems('big', 1)).map((i) => i.inputs.q)).toEqual(Array.from({ length: 10 }, (_, i) => `q${i}`));
    // The upload ended, its staged rows deleted; a second commit finds it gone.
    expect(Number(await t.store.sql.value('SELECT count(*) FROM dataset_upload_items WHERE upload_id = ?', [upload]))).toBe(0);
    expect((await t.request('POST', `/datasets/big/uploads/${upload}/commit`)).status).toBe(404);
    expect(await stagingOf('big')).toBeUndefined();
  });

  it('replaces a large version: the old one stays whole to its readers, the new one holds the upload only', async () => {
    await dataset('swap', ITEMS);
    const upload = await stagedUpload('swap', 3, 100_000);
    const committed = await readDuring(
      'swap',
      [
        [1, ITEMS],
        [2, 3],
      ],
      () => t.request('POST', `/datasets/swap/uploads/${upload}/commit`, { body: { replace: true } }),
    );
    expect(committed.json).toMatchObject({ version: 2, source: 'replace', item_count: 3, added: 3, removed: ITEMS });
    expect((await allItems('swap')).map((i) => i.inputs.q)).toEqual(['q100000', 'q100001', 'q100002']);
    expect(await allItems('swap', 1)).toHaveLength(ITEMS);
  });

  it('makes another version of the dataset wait, and it comes after', async () => {
    await dataset('queue', 1);
    const upload = await stagedUpload('queue', ITEMS, 1);
    let appended: Promise<{ status: number; json: any }> | undefined;
    const committed = await readDuring(
      'queue',
      [
        [1, 1],
        [2, 1 + ITEMS],
        [3, 2 + ITEMS],
      ],
      () => t.request('POST', `/datasets/queue/uploads/${upload}/commit`),
      () => {
        appended ??= t.request('POST', '/datasets/queue/items', { body: { items: [item(-1)] } });
      },
    );
    expect(committed.json.version).toBe(2);
    expect((await appended!).json).toMatchObject({ version: 3, item_count: 2 + ITEMS, added: 1 });
    const items = await allItems('queue');
    expect(items.at(-1)!.inputs.q).toBe('q-1');
    expect(items.at(-2)!.inputs.q).toBe(`q${ITEMS}`);
  });
});

describe('a version cut short', () => {
  it('whose writer held on too long is taken back whole, and the upload can be committed again', async () => {
    await dataset('late', 5);
    const upload = await stagedUpload('late', ITEMS, 5);
    let stalled = false;
    const failed = await readDuring(
      'late',
      [[1, 5]],
      () => t.request('POST', `/datasets/late/uploads/${upload}/commit`),
      () => {
        // As if the process had stalled past its hold between two slices (once: its taking back renews a hold of its own).
        if (!stalled) skewMs += HOLD_MS * 2;
        stalled = true;
      },
    );
    expect(failed.status).toBe(500);
    expect(await stagingOf('late')).toBeUndefined();
    expect(Number(await t.store.sql.value("SELECT count(*) FROM dataset_items WHERE dataset_id = 'late'"))).toBe(5);
    const again = await t.request('POST', `/datasets/late/uploads/${upload}/commit`);
    expect(again.json).toMatchObject({ version: 2, item_count: 5 + ITEMS, added: ITEMS });
    expect((await allItems('late')).map((i) => i.inputs.q)).toEqual(Array.from({ length: 5 + ITEMS }, (_, i) => `q${i}`));
  });

  it('whose process died is taken back by housekeeping once its hold has ended, or by the next version first', async () => {
    /** What a process killed half-way through version 2 leaves: the staging, and some of its rows. */
    const halfWritten = async (id: string, holdMs: number) => {
      const until = new Date(clock.now().getTime() + holdMs).toISOString();
      await t.store.writer.write(async (db) => {
        await db.run("UPDATE datasets SET staging_version = 2, staging_owner = 'gone', staged_until = ? WHERE dataset_id = ?", [until, id]);
        await db.run('UPDATE dataset_items SET removed_in = 2 WHERE dataset_id = ? AND seq = 1', [id]);
        for (let seq = 4; seq < 4 + SLICE_ROWS + 10; seq++) {
          await db.run(
            "INSERT INTO dataset_items (project_id, dataset_id, item_id, seq, inputs, expected, metadata, added_in) SELECT project_id, dataset_id, ?, ?, '{}', NULL, '{}', 2 FROM datasets WHERE dataset_id = ?",
            [`itm_half_${id}_${seq}`, seq, id],
          );
        }
      });
    };
    const leftOf = async (id: string) =>
      Number(await t.store.sql.value('SELECT count(*) FROM dataset_items WHERE dataset_id = ? AND (added_in = 2 OR removed_in = 2)', [id]));
    await dataset('dead', 3);
    await halfWritten('dead', HOLD_MS);
    // Never visible, before or after the hold ends; kept while its hold lasts (its writer may be alive).
    expect((await t.request('GET', '/datasets/dead')).json).toMatchObject({ latest_version: 1, item_count: 3 });
    expect(await allItems('dead')).toHaveLength(3);
    await t.housekeeping();
    expect(await leftOf('dead')).toBe(SLICE_ROWS + 11);
    skewMs += HOLD_MS * 2;
    await t.housekeeping();
    expect(await stagingOf('dead')).toBeUndefined();
    expect(await leftOf('dead')).toBe(0);
    expect((await allItems('dead')).map((i) => i.inputs.q)).toEqual(['q0', 'q1', 'q2']);

    // Before housekeeping comes by, the next version of the dataset takes it back itself, and is numbered 2.
    await dataset('dead2', 3);
    await halfWritten('dead2', -1);
    const next = await t.request('POST', '/datasets/dead2/items', { body: { items: [item(9)] } });
    expect(next.json).toMatchObject({ version: 2, item_count: 4, added: 1, removed: 0 });
    expect((await allItems('dead2')).map((i) => i.inputs.q)).toEqual(['q0', 'q1', 'q2', 'q9']);
    expect(await stagingOf('dead2')).toBeUndefined();
  });
});
