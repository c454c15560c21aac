import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';

/** GET /audit: every management change, with who made it, before and after, in the change's own transaction. */
let t: TestApp;
let ops: string;
let opsId: string;
const audit = async (query = '', key: string | null = ops) => {
  const res = await t.request('GET', `/audit${query}`, { key });
  expect(res.status).toBe(200);
  return res.json as { data: any[]; next_cursor: string | null };
};
const count = async () => (await t.store.sql.value<number>('SELECT count(*) FROM audit_log')) as number;

beforeAll(async () => {
  t = await startTestApp();
  const created = await t.request('POST', '/keys', { body: { name: 'ops', role: 'admin' } });
  ops = created.json.key;
  opsId = created.json.key_id ?? created.json.id;
});
afterAll(async () => t.cleanup());

describe('the audit log', () => {
  it('records who changed what, with the object before and after, newest first', async () => {
    const as = { key: ops };
    await t.request('POST', '/prompts', { ...as, body: { prompt_id: 'ap', template: 'one' } });
    await t.request('POST', '/prompts/ap/versions', { ...as, body: { template: 'two' } });
    await t.request('PUT', '/prompts/ap/labels/production', { ...as, body: { version: 2 } });
    await t.request('POST', '/experiments', {
      ...as,
      body: {
        experiment_id: 'ae',
        prompt_id: 'ap',
        variants: [
          { key: 'a', version: 1 },
          { key: 'b', version: 2 },
        ],
      },
    });
    await t.request('PATCH', '/experiments/ae', { ...as, body: { name: 'renamed' } });
    await t.request('POST', '/experiments/ae/start', as);
    // Nobody was exposed, so the ship needs an override, and its reason is audited.
    await t.request('POST', '/experiments/ae/stop', { ...as, body: { winner: 'a', ship: true, override: true, reason: 'back to version 1' } });

    const { data } = await audit('?limit=20');
    expect(data.map((e) => [e.action, e.target_type, e.target_id])).toEqual([
      ['experiment.stopped', 'experiment', 'ae'],
      ['prompt.label_moved', 'prompt', 'ap'],
      ['experiment.started', 'experiment', 'ae'],
      ['experiment.updated', 'experiment', 'ae'],
      ['experiment.created', 'experiment', 'ae'],
      ['prompt.label_moved', 'prompt', 'ap'],
      ['prompt.version_created', 'prompt', 'ap'],
      ['prompt.created', 'prompt', 'ap'],
      ['key.created', 'key', opsId],
    ]);
    for (const e of data.slice(0, -1)) expect([e.key_id, e.key_name]).toEqual([opsId, 'ops']);
    expect(data.at(-1)).toMatchObject({ key_name: 'bootstrap', after: { name: 'ops', role: 'admin' } }); // made with the bootstrap key
    // Stop-and-ship: the experiment and the label it moved, in the same transaction as the stop.
    const override = { override: true, reason: 'back to version 1' };
    expect(data[0]).toMatchObject({ before: { status: 'running' }, after: { status: 'stopped', winner: 'a', shipped_version: 1, ...override } });
    expect(data[1]).toMatchObject({
      before: { label: 'production', version: 2 },
      after: { label: 'production', version: 1, experiment_id: 'ae', ...override },
    });
    expect(data[3]).toMatchObject({ before: { name: null }, after: { name: 'renamed' } });
    expect(data[5]).toMatchObject({ before: { label: 'production', version: null }, after: { label: 'production', version: 2 } });
    expect(data[6].after).toMatchObject({ version: 2, template: 'two' });
    expect(data[7]).toMatchObject({ before: null, after: { prompt_id: 'ap' } });
  });

  it('records keys without their secret', async () => {
    const created = await t.request('POST', '/keys', { key: ops, body: { name: 'ci', role: 'read' } });
    await t.request('PATCH', `/keys/${created.json.key_id ?? created.json.id}`, { key: ops, body: { name: 'ci-renamed' } });
    await t.request('DELETE', `/keys/${created.json.key_id ?? created.json.id}`, { key: ops });
    const { data } = await audit('?target_type=key&limit=3');
    expect(data.map((e) => e.action)).toEqual(['key.revoked', 'key.updated', 'key.created']);
    expect(data[1]).toMatchObject({ before: { name: 'ci' }, after: { name: 'ci-renamed' } });
    expect(data[0].after.revoked_at).toEqual(expect.any(String));
    expect(JSON.stringify(data)).not.toContain(created.json.key);
    expect(JSON.stringify(await t.store.sql.all('SELECT * FROM audit_log'))).not.toContain(created.json.key);
  });

  it('records nothing for a change that did not happen', async () => {
    const before = await count();
    expect((await t.request('POST', '/experiments/ae/start', { key: ops })).status).toBe(409);
    expect((await t.request('POST', '/prompts', { key: ops, body: { prompt_id: 'ap', template: 'dup' } })).status).toBe(409);
    expect((await t.request('PUT', '/prompts/ap/labels/x', { key: ops, body: { version: 99 } })).status).toBe(422);
    expect(await count()).toBe(before);
  });

  it('filters by action, target and key, and pages with a cursor', async () => {
    expect((await audit('?action=prompt.label_moved')).data.map((e) => e.target_id)).toEqual(['ap', 'ap']);
    expect((await audit('?target_id=ae')).data).toHaveLength(4);
    expect((await audit('?until=2000-01-01T00:00:00Z')).data).toEqual([]);
    expect((await audit('?since=2000-01-01T00:00:00Z&target_id=ae')).data).toHaveLength(4);
    expect((await audit(`?key_id=${opsId}&target_type=prompt`)).data.map((e) => e.action)).toEqual([
      'prompt.label_moved',
      'prompt.label_moved',
      'prompt.version_created',
      'prompt.created',
    ]);
    const first = await audit('?limit=2');
    const second = await audit(`?limit=2&cursor=${first.next_cursor}`);
    expect(second.data[0].id).not.toBe(first.data[1].id);
    const all = (await audit('?limit=500')).data.map((e) => e.id);
    expect([...first.data, ...second.data].map((e) => e.id)).toEqual(all.slice(0, 4));
  });

  it('rejects bad filters with 422', async () => {
    for (const [query, loc] of [
      ['?target_type=planet', ['query', 'target_type']],
      ['?limit=0', ['query', 'limit']],
      ['?since=yesterday', ['query', 'since']],
    ] as const) {
      const res = await t.request('GET', `/audit${query}`, { key: ops });
      expect(res.status).toBe(422);
      expect(res.json.detail[0].loc).toEqual(loc);
    }
  });

  it('refuses a missing or unknown key, and shows a project only its own entries', async () => {
    expect((await t.request('GET', '/audit', { key: null })).status).toBe(422);
    expect((await t.request('GET', '/audit', { key: 'pl_a_not-a-real-key-000000000000000000' })).status).toBe(401);
    const other = await t.keyFor('admin', 'other-audit');
    const theirs = (await audit('', other)).data;
    expect(theirs.map((e) => e.target_id)).not.toContain('ap');
  });
});
