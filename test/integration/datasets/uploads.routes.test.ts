import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';

/** /datasets/{id}/uploads: items staged over many requests, invisible until committed as ONE version; errors, expiry and access. */
let t: TestApp;
const count = async (table: string) => Number(await t.store.sql.value<number>(`SELECT count(*) FROM ${table}`));
const item = (n: number) => ({ inputs: { q: `question ${n}` }, expected: `answer ${n}`, metadata: { n } });
const start = async (dataset: string, key?: string) => {
  const res = await t.request('POST', `/datasets/${dataset}/uploads`, key === undefined ? {} : { key });
  expect(res.status).toBe(201);
  return res.json.upload_id as string;
};
const stage = (dataset: string, upload: string, items: unknown[], key?: string) =>
  t.request('POST', `/datasets/${dataset}/uploads/${upload}/items`, { body: { items }, ...(key === undefined ? {} : { key }) });
const commit = (dataset: string, upload: string, body: unknown = {}) => t.request('POST', `/datasets/${dataset}/uploads/${upload}/commit`, { body });
const questions = async (dataset: string, version?: number) =>
  (await t.request('GET', `/datasets/${dataset}/items?limit=1000${version === undefined ? '' : `&version=${version}`}`)).json.data.map(
    (i: { inputs: { q: string } }) => i.inputs.q,
  );

beforeAll(async () => {
  t = await startTestApp();
  for (const dataset_id of ['qa', 'race', 'errors']) expect((await t.request('POST', '/datasets', { body: { dataset_id } })).status).toBe(201);
});
afterAll(async () => t.cleanup());

describe('an upload', () => {
  it('stages items over several requests, invisible until the commit makes ONE version of them all', async () => {
    expect((await t.request('POST', '/datasets/qa/items', { body: { items: [item(0)] } })).json.version).toBe(1);
    const started = await t.request('POST', '/datasets/qa/uploads');
    expect(started.status).toBe(201);
    expect(started.json).toEqual({
      dataset_id: 'qa',
      upload_id: expect.stringMatching(/^upl_/),
      item_count: 0,
      created_at: expect.any(String),
      expires_at: expect.any(String),
    });
    expect(Date.parse(started.json.expires_at) - Date.parse(started.json.created_at)).toBe(24 * 3600 * 1000);
    const upload = started.json.upload_id as string;
    const first = await stage('qa', upload, [item(1), item(2)]);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ upload_id: upload, item_count: 2 });
    expect((await stage('qa', upload, [item(3)])).json.item_count).toBe(3);
    // Nothing visible yet: no new version, the latest items unchanged.
    expect((await t.request('GET', '/datasets/qa')).json).toMatchObject({ latest_version: 1, item_count: 1 });
    expect(await questions('qa')).toEqual(['question 0']);

    const committed = await commit('qa', upload);
    expect(committed.status).toBe(201);
    expect(committed.json).toEqual({
      dataset_id: 'qa',
      version: 2,
      source: 'append',
      item_count: 4,
      added: 3,
      removed: 0,
      details: { upload_id: upload },
      created_at: expect.any(String),
    });
    expect(await questions('qa')).toEqual(['question 0', 'question 1', 'question 2', 'question 3']);
    const [, one] = (await t.request('GET', '/datasets/qa/items')).json.data;
    expect(one).toMatchObject({ item_id: expect.stringMatching(/^itm_/), expected: 'answer 1', metadata: { n: 1 }, added_in: 2 });
    // One audit entry, for the one version.
    const audit = (await t.request('GET', '/audit?target_type=dataset&target_id=qa')).json.data;
    expect(audit.filter((e: { action: string }) => e.action === 'dataset.version_created')).toHaveLength(2);
    // The upload is gone: committing or staging again is a 404.
    expect((await commit('qa', upload)).status).toBe(404);
    expect((await stage('qa', upload, [item(9)])).status).toBe(404);
    expect([await count('dataset_uploads'), await count('dataset_upload_items')]).toEqual([0, 0]);
  });

  it('commits on the latest version at commit time: items added meanwhile stay; replace keeps only the upload', async () => {
    const upload = await start('race');
    await stage('race', upload, [item(1), item(2)]);
    // A plain POST while the upload is open makes its own version at once.
    expect((await t.request('POST', '/datasets/race/items', { body: { items: [item(0)] } })).json.version).toBe(1);
    const committed = await commit('race', upload);
    expect(committed.json).toMatchObject({ version: 2, item_count: 3, added: 2 });
    expect(await questions('race')).toEqual(['question 0', 'question 1', 'question 2']);

    const replacing = await start('race');
    await stage('race', replacing, [item(7)]);
    const replaced = await commit('race', replacing, { replace: true });
    expect(replaced.json).toMatchObject({ version: 3, source: 'replace', item_count: 1, added: 1, removed: 3 });
    expect(await questions('race')).toEqual(['question 7']);
    expect(await questions('race', 2)).toEqual(['question 0', 'question 1', 'question 2']);
  });

  it('discards: 204, the staged items gone, no version', async () => {
    const upload = await start('race');
    await stage('race', upload, [item(1)]);
    expect((await t.request('DELETE', `/datasets/race/uploads/${upload}`)).status).toBe(204);
    expect((await commit('race', upload)).status).toBe(404);
    expect((await t.request('DELETE', `/datasets/race/uploads/${upload}`)).status).toBe(404);
    expect((await t.request('GET', '/datasets/race')).json.latest_version).toBe(3);
    expect([await count('dataset_uploads'), await count('dataset_upload_items')]).toEqual([0, 0]);
  });

  it('expires after 24 hours: then a 404, and the next upload started deletes it with its items', async () => {
    const upload = await start('race');
    await stage('race', upload, [item(1), item(2)]);
    await t.store.writer.write((db) => db.run('UPDATE dataset_uploads SET expires_at = ? WHERE upload_id = ?', ['2000-01-01T00:00:00.000Z', upload]));
    expect((await stage('race', upload, [item(3)])).status).toBe(404);
    expect((await commit('race', upload)).status).toBe(404);
    expect(await count('dataset_upload_items')).toBe(2);
    await start('qa');
    expect(await t.store.sql.value('SELECT 1 FROM dataset_uploads WHERE upload_id = ?', [upload])).toBeUndefined();
    expect(await count('dataset_upload_items')).toBe(0);
  });
});

describe('upload errors', () => {
  it('refuses bad items with a 422 at the item, staging nothing of the request', async () => {
    const upload = await start('errors');
    await stage('errors', upload, [item(1)]);
    const before = [await count('dataset_upload_items'), await count('dataset_versions'), await count('audit_log')];
    for (const [items, loc] of [
      [
        [item(2), { inputs: 'text' }],
        ['body', 'items', 1, 'inputs'],
      ],
      [[{ expected: 'x' }], ['body', 'items', 0, 'inputs']],
      [[], ['body', 'items']],
    ] as const) {
      const res = await stage('errors', upload, [...items]);
      expect(res.status).toBe(422);
      expect(res.json.detail[0].loc).toEqual(loc);
    }
    const replace = await commit('errors', upload, { replace: 'maybe' });
    expect(replace.status).toBe(422);
    expect(replace.json.detail[0].loc).toEqual(['body', 'replace']);
    expect([await count('dataset_upload_items'), await count('dataset_versions'), await count('audit_log')]).toEqual(before);
    expect((await commit('errors', upload)).json).toMatchObject({ version: 1, item_count: 1 });
  });

  it('refuses to commit an empty upload (422), and answers 404 for an unknown dataset or upload, 409 for an archived dataset', async () => {
    const empty = await start('errors');
    const res = await commit('errors', empty);
    expect(res.status).toBe(422);
    expect(res.json.detail[0].loc).toEqual(['path', 'upload_id']);
    expect((await t.request('GET', '/datasets/errors')).json.latest_version).toBe(1);
    expect((await t.request('POST', '/datasets/missing/uploads')).status).toBe(404);
    expect((await stage('missing', empty, [item(1)])).status).toBe(404);
    expect((await stage('errors', 'upl_missing', [item(1)])).status).toBe(404);
    expect((await commit('errors', 'upl_missing')).status).toBe(404);
    // An upload belongs to its dataset: another dataset's id does not find it.
    expect((await stage('qa', empty, [item(1)])).status).toBe(404);

    await stage('errors', empty, [item(1)]);
    expect((await t.request('DELETE', '/datasets/errors')).status).toBe(204);
    expect((await t.request('POST', '/datasets/errors/uploads')).status).toBe(409);
    expect((await stage('errors', empty, [item(2)])).status).toBe(409);
    expect((await commit('errors', empty)).status).toBe(409);
    // Discarding is still allowed: the staged items go.
    expect((await t.request('DELETE', `/datasets/errors/uploads/${empty}`)).status).toBe(204);
  });
});

describe('upload access', () => {
  it('needs a key (422 at the header, as FastAPI), a valid one (401), an admin one (403); another project sees neither the dataset nor the upload (404)', async () => {
    const upload = await start('qa');
    await stage('qa', upload, [item(1)]);
    const calls: Array<[string, string, unknown]> = [
      ['POST', '/datasets/qa/uploads', undefined],
      ['POST', `/datasets/qa/uploads/${upload}/items`, { items: [item(2)] }],
      ['POST', `/datasets/qa/uploads/${upload}/commit`, {}],
      ['DELETE', `/datasets/qa/uploads/${upload}`, undefined],
    ];
    const read = await t.keyFor('read');
    const otherAdmin = await t.keyFor('admin', 'other');
    // The other project has a dataset of the same name: the upload id is still not found there.
    expect((await t.request('POST', '/datasets', { key: otherAdmin, body: { dataset_id: 'qa' } })).status).toBe(201);
    for (const [method, url, body] of calls) {
      const send = (key: string | null) => t.request(method, url, { key, ...(body === undefined ? {} : { body }) });
      const none = await send(null);
      expect([url, none.status, none.json.detail[0].loc]).toEqual([url, 422, ['header', 'x-api-key']]);
      expect([url, (await send('pl_a_not-a-real-key-000000000000000000000000')).status]).toEqual([url, 401]);
      expect([url, (await send(read)).status]).toEqual([url, 403]);
      if (url !== '/datasets/qa/uploads') expect([url, (await send(otherAdmin)).status]).toEqual([url, 404]);
    }
    expect((await t.request('POST', '/datasets/qa/uploads', { key: otherAdmin })).status).toBe(201);
    // Nothing of that changed the upload: it still holds its one item.
    expect((await stage('qa', upload, [item(3)])).json.item_count).toBe(2);
  });
});
