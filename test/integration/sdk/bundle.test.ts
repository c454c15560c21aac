import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketRanges } from '../../../src/modules/experiments/assignment.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

let t: TestApp;
let runtimeKey: string;
beforeAll(async () => {
  t = await startTestApp({ PROMPTLINE_RENDER_MAX_BYTES: '70000', PROMPTLINE_BODY_LIMIT_BYTES: '65536' });
  runtimeKey = await t.keyFor('runtime');
  await givenPrompt(t, {
    prompt_id: 'text',
    template: 'Hi {{name}}{{#items}}, {{.}}{{/items}}{{^items}}!{{/items}}',
    labels: ['production'],
    versions: ['v2 {{name}}'],
  });
  await givenPrompt(t, {
    prompt_id: 'chat',
    messages: [
      { role: 'system', content: 'You help {{user.name}}.' },
      { role: 'user', content: '{{question}}' },
    ],
  });
});
afterAll(async () => t.cleanup());

const bundle = (headers: Record<string, string> = {}, key = runtimeKey) => t.request('GET', '/sdk/bundle', { key, headers });
const promptOf = (body: any, id: string) => body.prompts.find((p: any) => p.prompt_id === id);

describe('GET /sdk/bundle', () => {
  it("answers the project's servable prompts as compiled trees, with the limits, an ETag and no-cache", async () => {
    const res = await bundle();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(res.json).toMatchObject({
      format: 1,
      limits: {
        render_max_bytes: 70000,
        render_max_steps: 50000,
        prompt_id_max_length: 128,
        external_user_id_max_length: 256,
        inputs_max_entries: 256,
        body_max_bytes: 65536,
      },
      experiments: [],
    });
    expect(res.json.prompts.map((p: any) => p.prompt_id)).toEqual(['chat', 'text']);
    // production serves version 1 although version 2 is newer; only the served version travels.
    expect(promptOf(res.json, 'text')).toEqual({
      prompt_id: 'text',
      served_version: 1,
      versions: [
        {
          version: 1,
          kind: 'text',
          template: [
            { type: 'text', text: 'Hi ' },
            { type: 'value', name: 'name' },
            {
              type: 'section',
              name: 'items',
              nodes: [
                { type: 'text', text: ', ' },
                { type: 'value', name: '.' },
              ],
            },
            { type: 'inverted', name: 'items', nodes: [{ type: 'text', text: '!' }] },
          ],
          messages: null,
          model: null,
          params: {},
          variables: ['name', 'items'],
          declared_variables: null,
        },
      ],
    });
    // Without a production label, the latest version is served.
    expect(promptOf(res.json, 'chat')).toMatchObject({
      served_version: 1,
      versions: [
        {
          kind: 'chat',
          template: null,
          messages: [
            {
              role: 'system',
              template: [
                { type: 'text', text: 'You help ' },
                { type: 'value', name: 'user.name' },
                { type: 'text', text: '.' },
              ],
            },
            { role: 'user', template: [{ type: 'value', name: 'question' }] },
          ],
        },
      ],
    });
  });

  it('answers 304 to If-None-Match with the current ETag (weak or in a list too), and a new ETag after a change', async () => {
    const first = await bundle();
    const etag = first.headers.etag as string;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await bundle({ 'if-none-match': header });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.etag).toBe(etag);
    }
    expect((await bundle({ 'if-none-match': '"stale"' })).status).toBe(200);

    await givenPrompt(t, { prompt_id: 'later', template: 'new' });
    const changed = await bundle({ 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(promptOf(changed.json, 'later')).toMatchObject({ served_version: 1 });

    // Archived prompts are not servable: gone from the bundle, and the ETag moves again.
    expect((await t.request('DELETE', '/prompts/later')).status).toBe(204);
    const archived = await bundle();
    expect(promptOf(archived.json, 'later')).toBeUndefined();
    expect(archived.headers.etag).toBe(etag);
  });

  it("carries a running experiment's seed, coverage, variants and the server's own ranges, and every version they serve", async () => {
    await givenExperiment(t, {
      experiment_id: 'exp-text',
      prompt_id: 'text',
      variants: [
        { key: 'control', version: 1, weight: 1 },
        { key: 'treatment', version: 2, weight: 2 },
      ],
      start: true,
    });
    await t.request('PATCH', '/experiments/exp-text', { body: {} });
    const res = await bundle();
    const weights = [1 / 3, 2 / 3];
    const ranges = bucketRanges(weights, 1);
    expect(res.json.experiments).toEqual([
      {
        experiment_id: 'exp-text',
        prompt_id: 'text',
        seed: 'exp-text',
        coverage: 1,
        remote_only: false,
        variants: [
          { key: 'control', version: 1, weight: weights[0], range: ranges[0] },
          { key: 'treatment', version: 2, weight: weights[1], range: ranges[1] },
        ],
      },
    ]);
    expect(promptOf(res.json, 'text').versions.map((v: any) => v.version)).toEqual([1, 2]);

    // A paused experiment does not apply: it leaves the bundle, and its extra version with it.
    expect((await t.request('POST', '/experiments/exp-text/pause')).status).toBe(200);
    const paused = await bundle();
    expect(paused.json.experiments).toEqual([]);
    expect(promptOf(paused.json, 'text').versions.map((v: any) => v.version)).toEqual([1]);
  });

  it('marks an experiment remote_only once an update can move users it already assigned, and only then', async () => {
    await givenPrompt(t, { prompt_id: 'moved', template: 'A', versions: ['B'] });
    await givenExperiment(t, { experiment_id: 'exp-moved', prompt_id: 'moved', start: true });
    const remoteOnly = async () => (await bundle()).json.experiments.find((e: any) => e.experiment_id === 'exp-moved')?.remote_only;
    const patch = async (body: unknown) => {
      expect((await t.request('POST', '/experiments/exp-moved/pause')).status).toBe(200);
      expect((await t.request('PATCH', '/experiments/exp-moved', { body })).status).toBe(200);
      expect((await t.request('POST', '/experiments/exp-moved/start')).status).toBe(200);
    };
    // New weights before anyone was assigned move nobody.
    await patch({
      variants: [
        { key: 'a', version: 1, weight: 3 },
        { key: 'b', version: 2, weight: 1 },
      ],
      coverage: 0.5,
    });
    expect(await remoteOnly()).toBe(false);
    const served = await t.request('POST', '/get_prompt', { key: runtimeKey, body: { prompt_id: 'moved', external_user_id: 'someone-inside' } });
    expect(served.status).toBe(200);
    await t.request('POST', '/get_prompt', { key: runtimeKey, body: { prompt_id: 'moved', external_user_id: 'another' } });
    expect(await t.store.sql.value('SELECT count(*) FROM assignments WHERE experiment_id = ?', ['exp-moved'])).toBeGreaterThan(0);
    // Growing coverage only adds users.
    await patch({ coverage: 0.9 });
    expect(await remoteOnly()).toBe(false);
    // New weights with users assigned: their stored variants may now disagree with the hash.
    await patch({
      variants: [
        { key: 'a', version: 1, weight: 1 },
        { key: 'b', version: 2, weight: 1 },
      ],
    });
    expect(await remoteOnly()).toBe(true);
    // And it stays so, whatever comes next.
    await patch({ coverage: 1 });
    expect(await remoteOnly()).toBe(true);
  });

  it('is format 2 once a version declares typed variables, and carries the declarations', async () => {
    const admin = await t.keyFor('admin', 'typed');
    const typed = (await t.keyFor('runtime', 'typed')) as string;
    await givenPrompt(t, { key: admin, prompt_id: 'plain', template: 'Hi {{name}}' });
    expect((await bundle({}, typed)).json.format).toBe(1);
    await givenPrompt(t, { key: admin, prompt_id: 'typed', template: 'Hi {{name}}', variables: { name: { required: false, default: 'you' } } });
    const res = await bundle({}, typed);
    expect(res.json.format).toBe(2);
    expect(promptOf(res.json, 'typed').versions[0].declared_variables).toEqual({ name: { required: false, default: 'you' } });
    expect(promptOf(res.json, 'plain').versions[0].declared_variables).toBeNull();
  });

  it("holds only the key's own project", async () => {
    const otherKey = await t.keyFor('admin', 'other');
    await givenPrompt(t, { prompt_id: 'theirs', template: 'T', key: otherKey });
    const theirs = await bundle({}, otherKey);
    expect(theirs.status).toBe(200);
    expect(theirs.json.prompts.map((p: any) => p.prompt_id)).toEqual(['theirs']);
    expect(promptOf((await bundle()).json, 'theirs')).toBeUndefined();
  });

  it('refuses a missing key (422), a bad key (401); every role may read it', async () => {
    const missing = await t.request('GET', '/sdk/bundle', { key: null });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0]).toEqual({ type: 'missing', loc: ['header', 'x-api-key'], msg: 'Field required', input: null });
    expect((await bundle({}, 'pl_r_not-a-key')).status).toBe(401);
    for (const role of ['runtime', 'read', 'admin'] as const) expect((await bundle({}, await t.keyFor(role))).status).toBe(200);
  });
});
