import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';
import { createTestDatabase, testBackend } from '../../support/postgres.js';

/**
 * GET /prompts/{id}/versions/{v}/impact on the real app: calls made through the runtime API with a
 * runtime key, the summary written by an explicit flush (the timer's own work), and the clock
 * pinned so that the window and the 7-day pruning are exact.
 */
const HOUR = 3_600_000;
const BAD_KEY = 'pl_a_not-a-real-key-0000000000000000';
let nowMs = Date.parse('2026-11-27T14:30:00.000Z');
const clock = { now: () => new Date(nowMs) };

let t: TestApp;
let runtime: string;
beforeAll(async () => {
  t = await startTestApp({}, { clock });
  runtime = await t.keyFor('runtime');
  // v1 needs name; v2 also needs agent_name and the section items (tone is optional: an inverted
  // section; x is read inside items, so it is not needed by every render).
  await givenPrompt(t, {
    prompt_id: 'agent',
    template: 'Hi {{name}}',
    labels: ['production'],
    versions: ['Hi {{name}}, I am {{agent_name}}{{^tone}}.{{/tone}} {{#items}}{{x}}{{/items}}', 'Hi {{name}}!'],
  });
});
afterAll(async () => t.cleanup());

const getPrompt = (body: unknown, key: string | null = runtime) => t.request('POST', '/get_prompt', { key, body });
const impact = (path: string) => t.request('GET', `/prompts/${path}`);

describe('GET /prompts/{id}/versions/{v}/impact', () => {
  it('counts the calls that passed the key and the body, rendered or not, and names what they lack', async () => {
    for (let i = 0; i < 3; i++) expect((await getPrompt({ prompt_id: 'agent', inputs: { name: 'Ada' } })).status).toBe(200);
    expect((await getPrompt({ prompt_id: 'agent', inputs: { agent_name: 'Bo', name: 'Ada', items: [] }, external_user_id: 'u1' })).status).toBe(200);
    // Failed to render (v1 needs name): counted, it is what breaks.
    expect((await getPrompt({ prompt_id: 'agent', inputs: { nickname: 'A' } })).status).toBe(422);
    expect((await t.request('POST', '/run_prompt', { key: runtime, body: { prompt_id: 'agent', inputs: { name: 'Ada' } } })).status).toBe(200);
    // Refused before serving: no key, a bad key, a bad body, an unknown prompt: not counted.
    expect((await getPrompt({ prompt_id: 'agent', inputs: { name: 'x' } }, null)).status).toBe(422);
    expect((await getPrompt({ prompt_id: 'agent', inputs: { name: 'x' } }, BAD_KEY)).status).toBe(401);
    expect((await getPrompt({ prompt_id: 'agent', inputs: 'not an object' })).status).toBe(422);
    expect((await getPrompt({ prompt_id: 'nope', inputs: { name: 'x' } })).status).toBe(404);
    await t.inputShapes.flush();

    const res = await impact('agent/versions/2/impact');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      prompt_id: 'agent',
      version: 2,
      label: 'production',
      served_version: 1,
      required_variables: ['name', 'agent_name', 'items'],
      new_required_variables: ['agent_name', 'items'],
      window: { since: '2026-11-26T14:00:00.000Z', until: '2026-11-27T14:30:00.000Z', hours: 24 },
      calls: 6,
      calls_missing_any: 5,
      missing: [
        { variable: 'agent_name', calls: 5 },
        { variable: 'items', calls: 5 },
      ],
      calls_without_user_id: 5,
      calls_with_unrecorded_inputs: 0,
      running_experiment: null,
      warning: '5 of 6 calls in the last 24 h lacked at least one of agent_name, items: version 2 would answer them 422',
    });
  });

  it('says nothing is new for a version that needs no more than the served one (and a playground trial is no caller)', async () => {
    expect((await t.request('POST', '/prompts/agent/versions/3/render', { body: { inputs: { other: 'x' } } })).status).toBe(422);
    await t.inputShapes.flush();
    const res = await impact('agent/versions/3/impact');
    expect(res.json).toMatchObject({
      served_version: 1,
      required_variables: ['name'],
      new_required_variables: [],
      calls: 6,
      calls_missing_any: 0,
      warning: null,
    });
  });

  it('compares with any label, and with nothing when the label is unset (only production falls back to the latest)', async () => {
    expect((await t.request('PUT', '/prompts/agent/labels/staging', { body: { version: 2 } })).status).toBe(200);
    const moved = await impact('agent/versions/2/impact?label=staging&window_hours=168');
    expect(moved.json).toMatchObject({ label: 'staging', served_version: 2, new_required_variables: [], warning: null, window: { hours: 168 } });
    const unset = await impact('agent/versions/1/impact?label=canary');
    expect(unset.json).toMatchObject({
      served_version: null,
      new_required_variables: ['name'],
      calls_missing_any: 1,
      missing: [{ variable: 'name', calls: 1 }],
    });
    expect(unset.json.warning).toBe('1 of 6 calls in the last 24 h sent no name: version 1 would answer them 422');

    await givenPrompt(t, { prompt_id: 'unlabelled', template: 'Hi', versions: ['Hi {{who}}'] });
    const latest = await impact('unlabelled/versions/2/impact');
    expect(latest.json).toMatchObject({ served_version: 2, new_required_variables: [] });
    const back = await impact('unlabelled/versions/1/impact');
    expect(back.json).toMatchObject({ served_version: 2, new_required_variables: [], required_variables: [] });
    const forward = await impact('unlabelled/versions/2/impact?label=production');
    expect(forward.json.calls).toBe(0);
  });

  it('says when no recent call tells whether callers send a new variable', async () => {
    await givenPrompt(t, { prompt_id: 'quiet', template: 'Hi', labels: ['production'], versions: ['Hi {{who}}'] });
    const res = await impact('quiet/versions/2/impact');
    expect(res.json).toMatchObject({ calls: 0, calls_missing_any: 0, new_required_variables: ['who'] });
    expect(res.json.warning).toBe('version 2 needs who, which version 1 does not; no calls in the last 24 h to tell whether callers send it');
  });

  it('names the experiment running on the prompt and counts calls without a user id, which it refuses', async () => {
    await givenPrompt(t, { prompt_id: 'exp-p', template: 'Hi {{name}}', labels: ['production'], versions: ['Yo {{name}} {{mood}}'] });
    await givenExperiment(t, {
      experiment_id: 'exp-1',
      prompt_id: 'exp-p',
      variants: [
        { key: 'a', version: 1, weight: 1 },
        { key: 'b', version: 2, weight: 1 },
      ],
      start: true,
    });
    expect((await getPrompt({ prompt_id: 'exp-p', inputs: { name: 'A' } })).status).toBe(422); // no external_user_id
    await getPrompt({ prompt_id: 'exp-p', inputs: { name: 'A' }, external_user_id: 'u2' });
    await t.inputShapes.flush();
    const res = await impact('exp-p/versions/2/impact');
    expect(res.json).toMatchObject({
      calls: 2,
      calls_without_user_id: 1,
      calls_missing_any: 2,
      running_experiment: {
        experiment_id: 'exp-1',
        status: 'running',
        coverage: 1,
        variants: [
          { key: 'a', version: 1, weight: 0.5 },
          { key: 'b', version: 2, weight: 0.5 },
        ],
      },
    });
  });

  it('keeps at most 16 name sets per prompt and hour, across flushes, and counts the rest as unrecorded', async () => {
    await givenPrompt(t, { prompt_id: 'many', template: 'Hi {{name}}', labels: ['production'], versions: ['Hi {{name}} {{extra}}'] });
    for (let i = 0; i < 12; i++) await getPrompt({ prompt_id: 'many', inputs: { name: 'A', [`k${i}`]: 1 } });
    await t.inputShapes.flush();
    for (let i = 12; i < 20; i++) await getPrompt({ prompt_id: 'many', inputs: { name: 'A', [`k${i}`]: 1 } });
    await getPrompt({ prompt_id: 'many', inputs: { name: 'A', k0: 1 } }); // a kept set still adds up
    await getPrompt({ prompt_id: 'many', inputs: { name: 'A', ['long'.repeat(20)]: 1 } }); // a name too long to keep
    await t.inputShapes.flush();
    const res = await impact('many/versions/2/impact');
    expect(res.json).toMatchObject({ calls: 22, calls_missing_any: 17, calls_with_unrecorded_inputs: 5 });
    expect(await t.store.sql.value("SELECT count(DISTINCT names) FROM input_shapes WHERE prompt_id = 'many' AND names <> '*'")).toBe(16);
  });

  it('looks only at the window asked for, and prunes hours older than 7 days', async () => {
    nowMs += 30 * HOUR;
    expect((await impact('agent/versions/2/impact')).json.calls).toBe(0);
    expect((await impact('agent/versions/2/impact?window_hours=48')).json.calls).toBe(6);
    await getPrompt({ prompt_id: 'agent', inputs: { name: 'Ada' } });
    await t.inputShapes.flush();
    nowMs += 6 * 24 * HOUR;
    expect(await t.inputShapes.prune()).toBeGreaterThan(0);
    expect((await impact('agent/versions/2/impact?window_hours=168')).json.calls).toBe(1);
  });

  it('answers 404 for an unknown prompt or version and for another project, 422 for a bad query', async () => {
    expect((await impact('nope/versions/1/impact')).json).toEqual({ detail: "Prompt 'nope' not found" });
    expect((await impact('agent/versions/9/impact')).json).toEqual({ detail: "Version 9 of prompt 'agent' not found" });
    const other = await t.keyFor('admin', 'other');
    const res = await t.request('GET', '/prompts/agent/versions/1/impact', { key: other });
    expect(res.status).toBe(404);
    for (const query of ['window_hours=0', 'window_hours=169', 'window_hours=x', 'label=Bad!', 'label=']) {
      const bad = await impact(`agent/versions/2/impact?${query}`);
      expect(bad.status, query).toBe(422);
      expect(bad.json.detail[0].loc[0]).toBe('query');
    }
    expect((await impact('agent/versions/0/impact')).status).toBe(422);
  });

  it('needs a key of the read role', async () => {
    expect((await t.request('GET', '/prompts/agent/versions/2/impact', { key: null })).status).toBe(422); // the header item, as FastAPI
    expect((await t.request('GET', '/prompts/agent/versions/2/impact', { key: BAD_KEY })).status).toBe(401);
    expect((await t.request('GET', '/prompts/agent/versions/2/impact', { key: runtime })).status).toBe(403);
    expect((await t.request('GET', '/prompts/agent/versions/2/impact', { key: await t.keyFor('read') })).status).toBe(200);
  });
});

describe('the summary on shutdown, and across replicas', () => {
  it("writes what it counted when the server closes, and two servers' counts add up", async () => {
    // Two servers on one database (on SQLite, one file): each counts its own calls in memory.
    const database = testBackend() === 'postgres' ? await createTestDatabase() : null;
    // The first server's timer never fires within the test (10 min): only its close can write its count.
    const slow = { PROMPTLINE_INPUT_SUMMARY_FLUSH_MS: '600000' };
    const first = await startTestApp(database === null ? slow : { ...slow, PROMPTLINE_DATABASE_URL: database.url });
    const shared: Record<string, string> = database === null ? { PROMPTLINE_DATA_DIR: first.dataDir } : { PROMPTLINE_DATABASE_URL: database.url };
    const second = await startTestApp(shared);
    try {
      await givenPrompt(first, { prompt_id: 'shared', template: 'Hi {{name}}', labels: ['production'] });
      for (const app of [first, second, second]) {
        const res = await app.request('POST', '/get_prompt', { key: await app.keyFor('runtime'), body: { prompt_id: 'shared', inputs: { name: 'A' } } });
        expect(res.status).toBe(200);
      }
      await second.inputShapes.flush();
      // The first server's count is written by its graceful close, not by a timer.
      await first.close();
      expect((await second.request('GET', '/prompts/shared/versions/1/impact')).json.calls).toBe(3);
    } finally {
      await second.cleanup();
      await database?.drop();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});
