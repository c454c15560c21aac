import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.cleanup());

const count = (table: string) => t.store.sql.value(`SELECT count(*) FROM ${table}`);
const sync = (body: Record<string, unknown>, key?: string) => t.request('POST', '/prompts/sync', { body, ...(key === undefined ? {} : { key }) });
const file = (promptId: string, document: Record<string, unknown>) => ({
  path: `prompts/${promptId}.prompt.yaml`,
  document: { prompt_id: promptId, ...document },
});
const SOURCE = { commit: 'a'.repeat(40), author: 'Ada <ada@example.com>' };

describe('POST /prompts/sync', () => {
  it('plans a new prompt on a dry run and changes nothing', async () => {
    const before = await count('prompt_versions');
    const res = await sync({ files: [file('fresh', { template: 'Hi {{name}}', labels: ['staging'] })], dry_run: true });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      dry_run: true,
      applied: false,
      changes: 1,
      state: {},
      prompts: [
        {
          prompt_id: 'fresh',
          path: 'prompts/fresh.prompt.yaml',
          action: 'create_prompt',
          version: 1,
          label_moves: [{ label: 'staging', from: null, to: 1 }],
          served: { before: null, after: 1, new_required: [] },
          conflicts: [],
          breaking: [],
        },
      ],
    });
    expect(await count('prompt_versions')).toBe(before);
    expect((await t.request('GET', '/prompts/fresh')).status).toBe(404);
  });

  it('creates the prompt, records the source, and a second push creates nothing', async () => {
    const body = { files: [file('fresh', { description: 'from git', template: 'Hi {{name}}', labels: ['staging'] })], source: SOURCE };
    const first = await sync(body);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ applied: true, changes: 1, state: { fresh: { latest_version: 1, labels: { staging: 1 } } } });
    const version = await t.request('GET', '/prompts/fresh/versions/1');
    expect(version.json).toMatchObject({ template: 'Hi {{name}}', labels: ['staging'], source: { path: 'prompts/fresh.prompt.yaml', ...SOURCE } });
    // Pushed from a repository, so marked managed in Git (the console warns before an edit there).
    expect((await t.request('GET', '/prompts/fresh')).json).toMatchObject({ description: 'from git', managed_in_git: true });
    const again = await sync({ ...body, bases: first.json.state });
    expect(again.json).toMatchObject({ changes: 0, prompts: [{ action: 'unchanged', version: 1, label_moves: [] }] });
    expect((await t.request('GET', '/prompts/fresh')).json.latest_version).toBe(1);
  });

  it('adds a version when the content changes, moves labels, and audits each change', async () => {
    const base = { fresh: { latest_version: 1, labels: { staging: 1 } } };
    const res = await sync({ files: [file('fresh', { template: 'Hello {{name}}', labels: ['staging'] })], bases: base, source: SOURCE });
    expect(res.json).toMatchObject({ changes: 1, prompts: [{ action: 'new_version', version: 2, label_moves: [{ label: 'staging', from: 1, to: 2 }] }] });
    expect((await t.request('GET', '/prompts/fresh')).json).toMatchObject({ latest_version: 2, labels: { staging: 2 } });
    const audit = await t.request('GET', '/audit?target_id=fresh');
    // The mark is recorded once, on the first push.
    expect(audit.json.data.map((e: { action: string }) => e.action)).toEqual(['prompt.version_created', 'prompt.updated', 'prompt.created']);
    // Moving a label to a version that already holds the content adds no version.
    const move = await sync({
      files: [file('fresh', { template: 'Hello {{name}}', labels: ['staging', 'production'] })],
      bases: { fresh: { latest_version: 2, labels: { staging: 2 } } },
    });
    expect(move.json.prompts[0]).toMatchObject({ action: 'unchanged', version: 2, label_moves: [{ label: 'production', from: null, to: 2 }] });
    expect((await t.request('GET', '/prompts/fresh')).json).toMatchObject({ latest_version: 2, labels: { staging: 2, production: 2 } });
  });

  it('refuses a breaking change for the served version with 409, and applies it with allow_breaking', async () => {
    const bases = { fresh: { latest_version: 2, labels: { staging: 2, production: 2 } } };
    const body = { files: [file('fresh', { template: 'Hello {{name}} of {{tier}}', labels: ['production'] })], bases };
    const plan = await sync({ ...body, dry_run: true });
    expect(plan.json.prompts[0]).toMatchObject({ action: 'new_version', served: { before: 2, after: 3, new_required: ['tier'] } });
    expect(plan.json.prompts[0].breaking).toEqual([expect.stringContaining('production would serve version 3')]);
    const refused = await sync(body);
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toContain('fresh: breaking:');
    expect((await t.request('GET', '/prompts/fresh')).json.latest_version).toBe(2);
    const allowed = await sync({ ...body, allow_breaking: true });
    expect(allowed.status).toBe(200);
    expect((await t.request('GET', '/prompts/fresh')).json).toMatchObject({ latest_version: 3, labels: { production: 3 } });
  });

  it('reports changes made on the server since the pull as conflicts, and refuses to apply them', async () => {
    await givenPrompt(t, { prompt_id: 'shared', template: 'v1 {{x}}', labels: ['production'] });
    const bases = { shared: { latest_version: 1, labels: { production: 1 } } };
    await t.request('POST', '/prompts/shared/versions', { body: { template: 'v2 {{x}}', labels: ['production'] } });
    const body = { files: [file('shared', { template: 'v3 {{x}}', labels: ['production'] })], bases };
    const plan = await sync({ ...body, dry_run: true });
    expect(plan.json.prompts[0].conflicts).toEqual([
      'version 2 was created on the server since the last pull',
      'label production was moved from version 1 to version 2 on the server since the last pull',
    ]);
    const refused = await sync(body);
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toContain('shared: conflict: version 2 was created');
    expect((await t.request('GET', '/prompts/shared')).json.latest_version).toBe(2);
    // A prompt that exists but was never pulled is a conflict too.
    expect((await sync({ files: body.files, dry_run: true })).json.prompts[0].conflicts).toEqual([
      'the prompt exists on the server but was never pulled here: pull first',
    ]);
  });

  it('is all or nothing: one refused prompt stops every other', async () => {
    const res = await sync({
      files: [file('third', { template: 'new one' }), file('shared', { template: 'v3 {{x}}' })],
      bases: { shared: { latest_version: 1, labels: { production: 1 } } },
    });
    expect(res.status).toBe(409);
    expect((await t.request('GET', '/prompts/third')).status).toBe(404);
  });

  it('answers 422 with every invalid file, located in the body', async () => {
    const res = await sync({
      files: [
        file('bad', { template: 'x', messages: [{ role: 'user', content: 'y' }] }),
        file('bad', { template: '{{#open}}' }),
        file('p2', { template: 'x', params: { stream: true } }),
      ],
    });
    expect(res.status).toBe(422);
    const locs = res.json.detail.map((d: { loc: unknown[] }) => d.loc);
    expect(locs).toEqual(
      expect.arrayContaining([
        ['body', 'files', 0, 'document'],
        ['body', 'files', 1, 'document', 'prompt_id'],
        ['body', 'files', 1, 'document', 'template'],
        ['body', 'files', 2, 'document', 'params', 'stream'],
      ]),
    );
    const unknown = await sync({ files: [file('x', { template: 'x', colour: 'red' })] });
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0]).toMatchObject({ type: 'extra_forbidden', loc: ['body', 'files', 0, 'document', 'colour'] });
  });

  it('needs an admin key, and acts on the key\u2019s own project only', async () => {
    expect((await sync({ files: [] }, await t.keyFor('read'))).status).toBe(403);
    const other = await t.keyFor('admin', 'other');
    const res = await sync({ files: [file('shared', { template: 'v1 {{x}}' })], dry_run: true }, other);
    expect(res.json.prompts[0]).toMatchObject({ action: 'create_prompt', conflicts: [] });
  });
});

describe('a version records its source', () => {
  it('POST /prompts/{id}/versions takes an optional source; versions without one answer null', async () => {
    await givenPrompt(t, { prompt_id: 'sourced', template: 'one' });
    expect((await t.request('GET', '/prompts/sourced/versions/1')).json.source).toBeNull();
    const created = await t.request('POST', '/prompts/sourced/versions', {
      body: { template: 'two', source: { path: 'p/sourced.prompt.yaml', commit: 'abc' } },
    });
    expect(created.status).toBe(201);
    expect(created.json.source).toEqual({ path: 'p/sourced.prompt.yaml', commit: 'abc', author: null });
    const bad = await t.request('POST', '/prompts/sourced/versions', { body: { template: 'three', source: { path: 'x', branch: 'main' } } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0]).toMatchObject({ type: 'extra_forbidden', loc: ['body', 'source', 'branch'] });
  });
});

describe('GET /schemas/prompt-file.json', () => {
  it('answers the JSON Schema without a key, cacheable', async () => {
    const res = await t.request('GET', '/schemas/prompt-file.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(res.json).toMatchObject({ $id: 'urn:promptline:schema:prompt-file', type: 'object', required: ['prompt_id'] });
  });
});
