import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.cleanup());

const count = (table: string) => t.store.sql.value(`SELECT count(*) FROM ${table}`);

describe('POST /prompts', () => {
  it('creates a text prompt with version 1, its variables and labels', async () => {
    const res = await t.request('POST', '/prompts', {
      body: { prompt_id: 'greet', description: 'hello', template: 'Hi {{name}}, {{#vip}}welcome back{{/vip}} {{name}}', labels: ['production'] },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ prompt_id: 'greet', description: 'hello', latest_version: 1, labels: { production: 1 }, archived_at: null });
    expect(res.json.version).toMatchObject({
      version: 1,
      type: 'text',
      variables: ['name', 'vip'],
      model: null,
      params: {},
      fallbacks: [],
      labels: ['production'],
    });
  });

  it('creates a chat prompt', async () => {
    const res = await t.request('POST', '/prompts', {
      body: {
        prompt_id: 'chat',
        messages: [
          { role: 'system', content: 'You are {{persona}}' },
          { role: 'user', content: '{{question}}' },
        ],
        model: 'echo/echo',
        params: { temperature: 0.2 },
      },
    });
    expect(res.status).toBe(201);
    expect(res.json.version).toMatchObject({ type: 'chat', template: null, variables: ['persona', 'question'], params: { temperature: 0.2 } });
  });

  it('creates a prompt without content (no version yet)', async () => {
    const res = await t.request('POST', '/prompts', { body: { prompt_id: 'empty' } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ latest_version: null, version: null, labels: {} });
    expect((await t.request('POST', '/get_prompt', { body: { prompt_id: 'empty' } })).json).toEqual({ detail: "Prompt 'empty' has no version to serve" });
  });

  it('answers 409 for a duplicate id', async () => {
    const res = await t.request('POST', '/prompts', { body: { prompt_id: 'greet', template: 'x' } });
    expect(res.status).toBe(409);
    expect(res.json).toEqual({ detail: "Prompt 'greet' already exists" });
  });

  it.each([
    ['partials', { prompt_id: 'p1', template: 'a {{> other}}' }, ['body', 'template'], 'partials'],
    ['delimiter changes', { prompt_id: 'p2', template: '{{=<% %>=}} <% x %>' }, ['body', 'template'], 'delimiter'],
    ['unclosed sections', { prompt_id: 'p3', template: '{{#a}} x' }, ['body', 'template'], 'Unclosed section'],
    ['both template and messages', { prompt_id: 'p4', template: 'x', messages: [{ role: 'user', content: 'y' }] }, ['body'], 'exactly one'],
    ['an unconfigured provider', { prompt_id: 'p5', template: 'x', model: 'nowhere/model-1' }, ['body', 'model'], "provider 'nowhere' is not configured"],
    ['a reserved param', { prompt_id: 'p6', template: 'x', params: { stream: true } }, ['body', 'params', 'stream'], 'set by the service'],
    ['a bad chat template', { prompt_id: 'p7', messages: [{ role: 'user', content: '{{> x}}' }] }, ['body', 'messages', 0, 'content'], 'partials'],
    ['an empty template', { prompt_id: 'p8', template: '', labels: ['production'] }, ['body', 'template'], 'the template is empty'],
    ['a template of blanks only', { prompt_id: 'p9', template: ' \n\t ' }, ['body', 'template'], 'the template is empty'],
    [
      'chat messages that are all empty',
      {
        prompt_id: 'p10',
        messages: [
          { role: 'system', content: '' },
          { role: 'user', content: '  ' },
        ],
      },
      ['body', 'messages'],
      "every message's content is empty",
    ],
  ])('rejects %s with a 422 and stores nothing', async (_name, body, loc, why) => {
    const before = [await count('prompts'), await count('prompt_versions')];
    const res = await t.request('POST', '/prompts', { body });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].type).toBe('value_error');
    expect(res.json.detail[0].loc).toEqual(loc);
    expect(res.json.detail[0].msg).toContain(why);
    expect([await count('prompts'), await count('prompt_versions')]).toEqual(before);
  });

  it('validates the schema strictly', async () => {
    const res = await t.request('POST', '/prompts', { body: { prompt_id: 'bad id!', template: 1, surprise: true } });
    expect(res.status).toBe(422);
    expect(res.json.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc])).toEqual([
      ['string_pattern_mismatch', ['body', 'prompt_id']],
      ['string_type', ['body', 'template']],
      ['extra_forbidden', ['body', 'surprise']],
    ]);
  });

  it('needs an admin key', async () => {
    expect((await t.request('POST', '/prompts', { key: await t.keyFor('read'), body: { prompt_id: 'x' } })).status).toBe(403);
    expect((await t.request('POST', '/prompts', { key: 'nope', body: { prompt_id: 'x' } })).status).toBe(401);
    expect((await t.request('POST', '/prompts', { key: null, body: { prompt_id: 'x' } })).status).toBe(422);
  });
});

describe('versions and labels', () => {
  it('numbers versions, keeps them immutable, serves production else latest', async () => {
    const v2 = await t.request('POST', '/prompts/greet/versions', { body: { template: 'Hello {{name}}!', commit_message: 'friendlier' } });
    expect(v2.status).toBe(201);
    expect(v2.json).toMatchObject({ version: 2, commit_message: 'friendlier', labels: [] });
    // production still points at 1
    expect((await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', inputs: { name: 'Ann', vip: false } } })).json.prompt_version).toBe(1);
    const moved = await t.request('PUT', '/prompts/greet/labels/production', { body: { version: 2 } });
    expect(moved.status).toBe(200);
    expect(moved.json.labels).toEqual({ production: 2 });
    expect((await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', inputs: { name: 'Ann' } } })).json).toEqual({
      prompt_text: 'Hello Ann!',
      variant_assigned: null,
      experiment_id: null,
      prompt_version: 2,
    });
    const del = await t.request('DELETE', '/prompts/greet/labels/production');
    expect(del.status).toBe(204);
    const v3 = await t.request('POST', '/prompts/greet/versions', { body: { template: 'Yo {{name}}', labels: ['staging'] } });
    expect(v3.json.labels).toEqual(['staging']);
    // no production label: the latest version is served
    expect((await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', inputs: { name: 'Ann' } } })).json.prompt_text).toBe('Yo Ann');
    const list = await t.request('GET', '/prompts/greet/versions', { key: await t.keyFor('read') });
    expect(list.json.data.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    const one = await t.request('GET', '/prompts/greet/versions/1', { key: await t.keyFor('read') });
    expect(one.json.template).toBe('Hi {{name}}, {{#vip}}welcome back{{/vip}} {{name}}');
  });

  it('refuses an empty new version with a 422 naming template, and stores nothing', async () => {
    const before = await count('prompt_versions');
    const res = await t.request('POST', '/prompts/greet/versions', { body: { template: '', labels: ['production'] } });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'template'],
        msg: 'Value error, the template is empty: a prompt needs some text to send',
        input: '',
        ctx: { error: 'the template is empty: a prompt needs some text to send' },
      },
    ]);
    expect(await count('prompt_versions')).toBe(before);
  });

  it('answers 404 for unknown versions, labels and prompts, and 422 for a label on a missing version', async () => {
    expect((await t.request('GET', '/prompts/greet/versions/99')).json).toEqual({ detail: "Version 99 of prompt 'greet' not found" });
    expect((await t.request('DELETE', '/prompts/greet/labels/nolabel')).status).toBe(404);
    expect((await t.request('GET', '/prompts/nope')).json).toEqual({ detail: "Prompt 'nope' not found" });
    expect((await t.request('POST', '/prompts/nope/versions', { body: { template: 'x' } })).status).toBe(404);
    const bad = await t.request('PUT', '/prompts/greet/labels/production', { body: { version: 42 } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0].loc).toEqual(['body', 'version']);
    expect((await t.request('PUT', '/prompts/greet/labels/Bad Label', { body: { version: 1 } })).status).toBe(422);
    expect((await t.request('GET', '/prompts/greet/versions/abc')).json.detail[0]).toMatchObject({ type: 'int_parsing', loc: ['path', 'version'] });
  });

  it('keeps prompts of other projects invisible (404, never 403)', async () => {
    const other = await t.keyFor('admin', 'other');
    expect((await t.request('GET', '/prompts/greet', { key: other })).status).toBe(404);
    expect((await t.request('POST', '/prompts/greet/versions', { key: other, body: { template: 'x' } })).status).toBe(404);
    expect((await t.request('PUT', '/prompts/greet/labels/production', { key: other, body: { version: 1 } })).status).toBe(404);
    expect((await t.request('DELETE', '/prompts/greet', { key: other })).status).toBe(404);
    expect((await t.request('POST', '/get_prompt', { key: other, body: { prompt_id: 'greet', inputs: {} } })).json).toEqual({
      detail: "Prompt 'greet' not found",
    });
    // the same id can exist independently in another project
    expect((await t.request('POST', '/prompts', { key: other, body: { prompt_id: 'greet', template: 'theirs' } })).status).toBe(201);
    expect((await t.request('POST', '/get_prompt', { key: other, body: { prompt_id: 'greet' } })).json.prompt_text).toBe('theirs');
  });
});

describe('GET /prompts and archive', () => {
  it('lists newest first with a cursor', async () => {
    for (const id of ['l1', 'l2', 'l3']) await givenPrompt(t, { prompt_id: id, template: id });
    const first = await t.request('GET', '/prompts?limit=2', { key: await t.keyFor('read') });
    expect(first.json.data.map((p: { prompt_id: string }) => p.prompt_id)).toEqual(['l3', 'l2']);
    const second = await t.request('GET', `/prompts?limit=2&cursor=${first.json.next_cursor}`);
    expect(second.json.data[0].prompt_id).toBe('l1');
    expect((await t.request('GET', '/prompts?cursor=garbage')).status).toBe(422);
    expect((await t.request('GET', '/prompts?limit=0')).json.detail[0].type).toBe('greater_than_equal');
  });

  it('archives: runtime calls answer 404, history stays readable', async () => {
    await givenPrompt(t, { prompt_id: 'old', template: 'old {{x}}' });
    expect((await t.request('POST', '/run_prompt', { body: { prompt_id: 'old', inputs: { x: '1' } } })).status).toBe(200);
    expect((await t.request('DELETE', '/prompts/old')).status).toBe(204);
    expect((await t.request('POST', '/get_prompt', { body: { prompt_id: 'old', inputs: { x: 1 } } })).status).toBe(404);
    expect((await t.request('POST', '/run_prompt', { body: { prompt_id: 'old', inputs: { x: '1' } } })).status).toBe(404);
    expect((await t.request('POST', '/track_outcome', { body: { prompt_id: 'old' } })).status).toBe(404);
    expect((await t.request('GET', '/prompts/old')).json.archived_at).not.toBeNull();
    expect((await t.request('GET', '/prompts')).json.data.some((p: { prompt_id: string }) => p.prompt_id === 'old')).toBe(false);
    expect((await t.request('GET', '/prompts?include_archived=true&limit=500')).json.data.some((p: { prompt_id: string }) => p.prompt_id === 'old')).toBe(true);
    expect((await t.request('GET', '/runs?prompt_id=old')).json.data).toHaveLength(1);
  });
});
