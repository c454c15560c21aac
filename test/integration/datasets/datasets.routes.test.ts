import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

/** /datasets: versions made by appending, replacing, deleting and from runs; what each version holds; errors and roles. */
let t: TestApp;
const count = async (table: string) => (await t.store.sql.value<number>(`SELECT count(*) FROM ${table}`)) as number;
const items = async (id: string, query = '') => {
  const res = await t.request('GET', `/datasets/${id}/items${query}`);
  expect(res.status).toBe(200);
  return res.json;
};

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.cleanup());

describe('datasets and their versions', () => {
  it('creates a dataset with no version, then each edit makes a new version; old versions keep their items', async () => {
    const created = await t.request('POST', '/datasets', { body: { dataset_id: 'qa', description: 'support questions' } });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      dataset_id: 'qa',
      description: 'support questions',
      latest_version: 0,
      item_count: 0,
      created_at: expect.any(String),
      archived_at: null,
    });
    expect(await items('qa')).toEqual({ dataset_id: 'qa', version: 0, data: [], next_cursor: null });

    const v1 = await t.request('POST', '/datasets/qa/items', {
      body: { items: [{ inputs: { q: 'refund?' }, expected: 'Within 30 days.', metadata: { topic: 'billing' } }, { inputs: { q: 'hours?' } }] },
    });
    expect(v1.status).toBe(201);
    expect(v1.json).toEqual({
      dataset_id: 'qa',
      version: 1,
      source: 'append',
      item_count: 2,
      added: 2,
      removed: 0,
      details: null,
      created_at: expect.any(String),
    });
    const first = await items('qa');
    expect(first.data).toEqual([
      {
        item_id: expect.stringMatching(/^itm_/),
        inputs: { q: 'refund?' },
        expected: 'Within 30 days.',
        metadata: { topic: 'billing' },
        source_run_id: null,
        added_in: 1,
      },
      { item_id: expect.stringMatching(/^itm_/), inputs: { q: 'hours?' }, expected: null, metadata: {}, source_run_id: null, added_in: 1 },
    ]);

    const v2 = await t.request('POST', '/datasets/qa/items', { body: { items: [{ inputs: { q: 'json?' }, expected: { answer: 42, tags: ['a'] } }] } });
    expect(v2.json).toMatchObject({ version: 2, item_count: 3, added: 1, removed: 0 });
    const second = await items('qa');
    expect(second.version).toBe(2);
    // An item keeps its id in every version it is in: that is what pairs two versions' scores.
    expect(second.data.slice(0, 2)).toEqual(first.data);
    expect(second.data[2]).toMatchObject({ expected: { answer: 42, tags: ['a'] }, added_in: 2 });

    const v3 = await t.request('DELETE', `/datasets/qa/items/${first.data[0].item_id}`);
    expect(v3.status).toBe(201);
    expect(v3.json).toMatchObject({ version: 3, source: 'delete', item_count: 2, added: 0, removed: 1 });
    expect((await items('qa')).data.map((i: { item_id: string }) => i.item_id)).toEqual([first.data[1].item_id, second.data[2].item_id]);
    expect((await t.request('DELETE', `/datasets/qa/items/${first.data[0].item_id}`)).json).toEqual({
      detail: `Item '${first.data[0].item_id}' is not in the latest version`,
    });

    const v4 = await t.request('PUT', '/datasets/qa/items', { body: { items: [{ inputs: { q: 'only one' }, expected: 'yes' }] } });
    expect(v4.json).toMatchObject({ version: 4, source: 'replace', item_count: 1, added: 1, removed: 2 });
    expect((await items('qa')).data.map((i: { inputs: unknown }) => i.inputs)).toEqual([{ q: 'only one' }]);

    // Every version still holds exactly what it held.
    expect((await items('qa', '?version=1')).data).toEqual(first.data);
    expect((await items('qa', '?version=2')).data).toEqual(second.data);
    expect((await items('qa', '?version=3')).data).toHaveLength(2);
    expect(await count('dataset_items')).toBe(4); // nothing copied: 2 + 1 + 1 rows for four versions

    const versions = (await t.request('GET', '/datasets/qa/versions')).json;
    expect(versions.data.map((v: { version: number; source: string }) => [v.version, v.source])).toEqual([
      [4, 'replace'],
      [3, 'delete'],
      [2, 'append'],
      [1, 'append'],
    ]);
    expect((await t.request('GET', '/datasets/qa/versions?limit=3')).json.next_cursor).toBe('2');
    expect((await t.request('GET', '/datasets/qa/versions?cursor=2')).json.data.map((v: { version: number }) => v.version)).toEqual([1]);
    expect((await t.request('GET', '/datasets/qa/versions/2')).json).toEqual(v2.json);
    expect((await t.request('GET', '/datasets/qa')).json).toMatchObject({ latest_version: 4, item_count: 1 });

    const audit = (await t.request('GET', '/audit?target_type=dataset&target_id=qa')).json.data;
    expect(audit.map((e: { action: string }) => e.action)).toEqual([...Array(4).fill('dataset.version_created'), 'dataset.created']);
  });

  it('pages the items of a version in order', async () => {
    await t.request('POST', '/datasets', { body: { dataset_id: 'paged' } });
    await t.request('POST', '/datasets/paged/items', { body: { items: Array.from({ length: 7 }, (_, i) => ({ inputs: { n: i } })) } });
    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page = await items('paged', `?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`);
      seen.push(...page.data.map((i: { inputs: { n: number } }) => i.inputs.n));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('lists datasets newest first, archived ones only when asked; an archived dataset is readable and takes no version', async () => {
    await t.request('POST', '/datasets', { body: { dataset_id: 'old' } });
    expect((await t.request('DELETE', '/datasets/old')).status).toBe(204);
    const listed = (await t.request('GET', '/datasets')).json.data.map((d: { dataset_id: string }) => d.dataset_id);
    expect(listed).not.toContain('old');
    expect(listed.slice(0, 2)).toEqual(['paged', 'qa']);
    expect((await t.request('GET', '/datasets?include_archived=true')).json.data[0]).toMatchObject({ dataset_id: 'old', archived_at: expect.any(String) });
    const refused = await t.request('POST', '/datasets/old/items', { body: { items: [{ inputs: {} }] } });
    expect([refused.status, refused.json]).toEqual([409, { detail: "Dataset 'old' is archived" }]);
    expect((await t.request('GET', '/datasets/old')).status).toBe(200);
  });

  it('answers bad requests with 422 or 404 or 409, and stores nothing', async () => {
    const before = [await count('datasets'), await count('dataset_versions'), await count('dataset_items'), await count('audit_log')];
    const cases: Array<[string, string, unknown, number, unknown[][]?]> = [
      ['POST', '/datasets', { dataset_id: 'has space' }, 422, [['body', 'dataset_id']]],
      ['POST', '/datasets', { dataset_id: 'x', extra: 1 }, 422, [['body', 'extra']]],
      ['POST', '/datasets', { dataset_id: 'qa' }, 409],
      ['POST', '/datasets/qa/items', { items: [] }, 422, [['body', 'items']]],
      [
        'POST',
        '/datasets/qa/items',
        { items: [{ expected: 'x' }, { inputs: 'text' }] },
        422,
        [
          ['body', 'items', 0, 'inputs'],
          ['body', 'items', 1, 'inputs'],
        ],
      ],
      ['POST', '/datasets/qa/items', { items: [{ inputs: {}, metadata: [1] }] }, 422, [['body', 'items', 0, 'metadata']]],
      ['POST', '/datasets/nope/items', { items: [{ inputs: {} }] }, 404],
      ['PUT', '/datasets/nope/items', { items: [{ inputs: {} }] }, 404],
      ['DELETE', '/datasets/qa/items/itm_nope', undefined, 404],
      ['POST', '/datasets/qa/from_runs', { prompt_id: 'none', limit: 5 }, 422, [['body', 'prompt_id']]],
      ['POST', '/datasets/qa/from_runs', { prompt_id: 'none' }, 422, [['body', 'limit']]],
      ['POST', '/datasets/qa/from_runs', { prompt_id: 'none', limit: 5, since: 'yesterday' }, 422, [['body', 'since']]],
    ];
    for (const [method, url, body, status, locs] of cases) {
      const res = await t.request(method, url, body === undefined ? {} : { body });
      expect([method, url, res.status]).toEqual([method, url, status]);
      if (locs !== undefined) expect(res.json.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(locs);
    }
    for (const [url, status] of [
      ['/datasets/nope', 404],
      ['/datasets/qa/items?version=99', 404],
      ['/datasets/qa/items?cursor=x', 422],
      ['/datasets/qa/versions/99', 404],
      ['/datasets/qa/versions?cursor=x', 422],
    ] as const) {
      expect([url, (await t.request('GET', url)).status]).toEqual([url, status]);
    }
    expect([await count('datasets'), await count('dataset_versions'), await count('dataset_items'), await count('audit_log')]).toEqual(before);
  });

  it('a read key reads, only an admin key writes', async () => {
    const read = await t.keyFor('read');
    expect((await t.request('GET', '/datasets/qa/items', { key: read })).status).toBe(200);
    expect((await t.request('POST', '/datasets/qa/items', { key: read, body: { items: [{ inputs: {} }] } })).status).toBe(403);
  });
});

describe('a dataset from runs', () => {
  beforeAll(async () => {
    await givenPrompt(t, { prompt_id: 'greet', template: 'Hello {{name}}', versions: ['Hi {{name}}'] });
    for (const name of ['a', 'b', 'c', 'd']) await t.request('POST', '/run_prompt', { body: { prompt_id: 'greet', inputs: { name } } });
    // A playground run is a trial, never a dataset's item.
    await t.request('POST', '/prompts/greet/versions/1/run', { body: { inputs: { name: 'playground' } } });
    await t.request('POST', '/datasets', { body: { dataset_id: 'from-runs' } });
  });

  it("takes the newest matching API runs: inputs → inputs, output → expected, the run's id kept", async () => {
    const res = await t.request('POST', '/datasets/from-runs/from_runs', { body: { prompt_id: 'greet', limit: 3 } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ version: 1, source: 'from_runs', item_count: 3, added: 3 });
    expect(res.json.details).toMatchObject({ prompt_id: 'greet', status: 'ok', limit: 3, sample: false, seed: null, runs_considered: 3 });
    const data = (await items('from-runs')).data;
    expect(data.map((i: { inputs: unknown }) => i.inputs)).toEqual([{ name: 'd' }, { name: 'c' }, { name: 'b' }]);
    const run = (await t.request('GET', `/runs/${data[0].source_run_id}`)).json;
    expect(data[0]).toMatchObject({ expected: run.output, source_run_id: run.run_id });
    expect(run.output).toContain('d');
  });

  it('filters by version and time; a seeded sample is repeatable; replace keeps only the new items; playground runs never come', async () => {
    const version = await t.request('POST', '/datasets/from-runs/from_runs', { body: { prompt_id: 'greet', version: 1, limit: 10 } });
    expect(version.status).toBe(422); // every API run served version 2 (the latest)
    const future = await t.request('POST', '/datasets/from-runs/from_runs', { body: { prompt_id: 'greet', since: '2999-01-01T00:00:00Z', limit: 10 } });
    expect(future.status).toBe(422);

    const sample = { prompt_id: 'greet', limit: 2, sample: true, seed: 7, replace: true };
    const a = await t.request('POST', '/datasets/from-runs/from_runs', { body: sample });
    expect(a.json).toMatchObject({ source: 'from_runs', item_count: 2, added: 2, removed: 3, details: { sample: true, seed: 7, runs_considered: 4 } });
    const first = (await items('from-runs')).data.map((i: { source_run_id: string }) => i.source_run_id);
    await t.request('POST', '/datasets/from-runs/from_runs', { body: sample });
    expect((await items('from-runs')).data.map((i: { source_run_id: string }) => i.source_run_id)).toEqual(first);

    const all = await t.request('POST', '/datasets/from-runs/from_runs', { body: { prompt_id: 'greet', limit: 100, replace: true } });
    expect(all.json.item_count).toBe(4);
    const names = (await items('from-runs')).data.map((i: { inputs: { name: string } }) => i.inputs.name);
    expect(names).not.toContain('playground');
  });
});
