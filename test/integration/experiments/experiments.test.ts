import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { STEP_MS } from '../../support/timeLimits.js';
import { givenExperiment, givenPrompt } from '../../support/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await givenPrompt(t, { prompt_id: 'greet', template: 'A: hi {{name}}', labels: ['production'], versions: ['B: hello {{name}}', 'C: hey {{name}}'] });
});
afterAll(async () => t.cleanup());

const ab = (extra: Record<string, unknown> = {}) => ({
  prompt_id: 'greet',
  variants: [
    { key: 'a', version: 1 },
    { key: 'b', version: 2 },
  ],
  ...extra,
});
const count = async (sql: string, ...args: unknown[]) => (await t.store.sql.value<number>(sql, args)) as number;

describe('experiment management', () => {
  it('creates a draft with defaults: control = first variant, coverage 1, seed = id, weights normalised', async () => {
    const res = await t.request('POST', '/experiments', {
      body: ab({
        experiment_id: 'exp-defaults',
        variants: [
          { key: 'a', version: 1, weight: 3 },
          { key: 'b', version: 2, weight: 1 },
        ],
      }),
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      experiment_id: 'exp-defaults',
      prompt_id: 'greet',
      status: 'draft',
      control: 'a',
      coverage: 1,
      seed: 'exp-defaults',
      winner: null,
      variants: [
        { key: 'a', version: 1, weight: 0.75 },
        { key: 'b', version: 2, weight: 0.25 },
      ],
    });
    const generated = await t.request('POST', '/experiments', {
      body: ab({ control: 'b', name: 'n', hypothesis: 'h', primary_metric: { event_type: 'click', kind: 'success_rate' } }),
    });
    expect(generated.json.experiment_id).toMatch(/^exp_[0-9a-f]{32}$/);
    expect(generated.json).toMatchObject({ control: 'b', seed: generated.json.experiment_id, primary_metric: { event_type: 'click', kind: 'success_rate' } });
  });

  it.each([
    [
      'an unknown version',
      ab({
        variants: [
          { key: 'a', version: 1 },
          { key: 'b', version: 9 },
        ],
      }),
      ['body', 'variants', 1, 'version'],
    ],
    [
      'duplicate keys',
      ab({
        variants: [
          { key: 'a', version: 1 },
          { key: 'a', version: 2 },
        ],
      }),
      ['body', 'variants', 1, 'key'],
    ],
    ['a control that is not a variant', ab({ control: 'z' }), ['body', 'control']],
  ])('rejects %s with 422 and stores nothing', async (_name, body, loc) => {
    const before = await count('SELECT count(*) FROM experiments');
    const res = await t.request('POST', '/experiments', { body });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ type: 'value_error', loc });
    expect(await count('SELECT count(*) FROM experiments')).toBe(before);
  });

  it('validates weights, coverage, keys and unknown fields by schema', async () => {
    const res = await t.request('POST', '/experiments', {
      body: {
        prompt_id: 'greet',
        variants: [
          { key: 'A!', version: 1, weight: 0 },
          { key: 'b', version: 2 },
        ],
        coverage: 1.5,
        bogus: 1,
      },
    });
    expect(res.json.detail.map((d: { type: string }) => d.type)).toEqual(['string_pattern_mismatch', 'greater_than', 'less_than_equal', 'extra_forbidden']);
    expect((await t.request('POST', '/experiments', { body: { prompt_id: 'greet', variants: [{ key: 'a', version: 1 }] } })).json.detail[0].type).toBe(
      'too_short',
    );
  });

  it('answers 404 for an unknown prompt and 409 for a duplicate id', async () => {
    expect((await t.request('POST', '/experiments', { body: { ...ab(), prompt_id: 'nope' } })).json).toEqual({ detail: "Prompt 'nope' not found" });
    expect((await t.request('POST', '/experiments', { body: ab({ experiment_id: 'exp-defaults' }) })).status).toBe(409);
  });

  it('moves through draft → running ⇄ paused → stopped, with 409 where a move is not allowed', async () => {
    await givenExperiment(t, { experiment_id: 'life', prompt_id: 'greet' });
    expect((await t.request('POST', '/experiments/life/pause')).status).toBe(409);
    const started = await t.request('POST', '/experiments/life/start');
    expect(started.json).toMatchObject({ status: 'running' });
    expect(started.json.started_at).not.toBeNull();
    expect((await t.request('PATCH', '/experiments/life', { body: { coverage: 0.5 } })).status).toBe(409);
    expect((await t.request('POST', '/experiments/exp-defaults/start')).json).toEqual({ detail: "Experiment 'life' is already running on prompt 'greet'" });
    expect((await t.request('POST', '/experiments/life/pause')).json.status).toBe('paused');
    expect((await t.request('PATCH', '/experiments/life', { body: { coverage: 0.5, name: 'renamed' } })).json).toMatchObject({
      coverage: 0.5,
      name: 'renamed',
    });
    expect((await t.request('POST', '/experiments/life/stop', { body: { winner: 'zzz' } })).status).toBe(422);
    const stopped = await t.request('POST', '/experiments/life/stop', { body: { winner: 'b' } });
    expect(stopped.json).toMatchObject({ status: 'stopped', winner: 'b' });
    expect((await t.request('POST', '/experiments/life/start')).status).toBe(409);
    expect((await t.request('POST', '/experiments/life/stop')).status).toBe(409);
    expect((await t.request('PATCH', '/experiments/life', { body: { name: 'x' } })).status).toBe(409);
  });

  it('lists with filters and reads one', async () => {
    const read = await t.keyFor('read');
    const stopped = await t.request('GET', '/experiments?status=stopped', { key: read });
    expect(stopped.json.data.map((e: { experiment_id: string }) => e.experiment_id)).toEqual(['life']);
    expect((await t.request('GET', '/experiments?prompt_id=other', { key: read })).json.data).toEqual([]);
    expect((await t.request('GET', '/experiments/life', { key: read })).json.status).toBe('stopped');
    expect((await t.request('GET', '/experiments/none', { key: read })).json).toEqual({ detail: "Experiment 'none' not found" });
  });

  it('refuses an unknown key and hides other projects', async () => {
    expect((await t.request('GET', '/experiments', { key: 'nope' })).status).toBe(401);
    const other = await t.keyFor('admin', 'other');
    expect((await t.request('GET', '/experiments/life', { key: other })).status).toBe(404);
    expect((await t.request('POST', '/experiments/life/pause', { key: other })).status).toBe(404);
    expect((await t.request('PATCH', '/experiments/life', { key: other, body: {} })).status).toBe(404);
    expect((await t.request('GET', '/experiments', { key: other })).json.data).toEqual([]);
    expect((await t.request('POST', '/experiments', { key: other, body: ab() })).json).toEqual({ detail: "Prompt 'greet' not found" });
  });
});

describe('serving a running experiment', () => {
  it("requires external_user_id, with the contract's exact 422", async () => {
    await givenExperiment(t, {
      experiment_id: 'live',
      prompt_id: 'greet',
      variants: { a: 1, b: 2, c: 3 },
      start: true,
    });
    const res = await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', inputs: { name: 'x' } } });
    expect(res.status).toBe(422);
    expect(res.text).toBe(
      '{"detail":[{"type":"missing","loc":["body","external_user_id"],"msg":"Field required","input":{"prompt_id":"greet","inputs":{"name":"x"}},"ctx":{"reason":"experiment live is running on prompt greet"}}]}',
    );
    const run = await t.request('POST', '/run_prompt', { body: { prompt_id: 'greet', inputs: { name: 'x' }, external_user_id: null } });
    expect(run.json.detail[0].loc).toEqual(['body', 'external_user_id']);
  });

  it('serves each user the same variant on every call and endpoint, and stores one exposure per user', async () => {
    const seen = new Map<string, string>();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 30; i++) {
        const user = `user-${i}`;
        const res = await t.request('POST', round === 1 ? '/run_prompt' : '/get_prompt', {
          body: { prompt_id: 'greet', inputs: { name: user }, external_user_id: user },
        });
        expect(res.status).toBe(200);
        expect(res.json.experiment_id).toBe('live');
        const text = res.json.prompt_text ?? res.json.output;
        expect(text[0]).toBe(res.json.variant_assigned.toUpperCase());
        if (seen.has(user)) expect(res.json.variant_assigned).toBe(seen.get(user));
        seen.set(user, res.json.variant_assigned);
      }
    }
    expect(new Set(seen.values()).size).toBe(3);
    expect(await count("SELECT count(*) FROM assignments WHERE experiment_id = 'live'")).toBe(30);
    const runs = (await t.request('GET', '/runs?experiment_id=live&limit=100')).json.data;
    expect(runs).toHaveLength(30);
    for (const r of runs) expect(r.variant).toBe(seen.get(r.external_user_id));
  });

  it('keeps the first assignment after weights change while paused', async () => {
    const before = new Map(
      (
        await t.store.sql.all<{
          external_user_id: string;
          variant: string;
        }>("SELECT external_user_id, variant FROM assignments WHERE experiment_id = 'live'")
      ).map((r) => [r.external_user_id, r.variant]),
    );
    await t.request('POST', '/experiments/live/pause');
    // paused: production version, no experiment reported, no user needed
    expect((await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', inputs: { name: 'x' } } })).json).toEqual({
      prompt_text: 'A: hi x',
      variant_assigned: null,
      experiment_id: null,
      prompt_version: 1,
    });
    await t.request('PATCH', '/experiments/live', {
      body: {
        variants: [
          { key: 'a', version: 1, weight: 0.001 },
          { key: 'b', version: 2, weight: 0.001 },
          { key: 'c', version: 3, weight: 99.998 },
        ],
      },
    });
    expect(
      (
        await t.request('PATCH', '/experiments/live', {
          body: {
            variants: [
              { key: 'a', version: 1 },
              { key: 'b', version: 2 },
            ],
          },
        })
      ).json.detail[0].msg,
    ).toContain("variant 'c' has");
    await t.request('POST', '/experiments/live/start');
    for (const [user, variant] of before) {
      expect(
        (await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', inputs: { name: user }, external_user_id: user } })).json.variant_assigned,
      ).toBe(variant);
    }
    const fresh = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', inputs: { name: 'n' }, external_user_id: `new-${i}` } }),
      ),
    );
    expect(fresh.every((r) => r.json.variant_assigned === 'c')).toBe(true);
  });

  it('counts exposure calls', async () => {
    // repeat calls are counted in memory and flushed every second
    const row = () =>
      t.store.sql.get(
        "SELECT calls, CASE WHEN first_seen <= last_seen THEN 1 ELSE 0 END AS ordered FROM assignments WHERE experiment_id = 'live' AND external_user_id = 'user-0'",
      );
    await expect.poll(row, { message: "user-0's calls flushed" }).toEqual({ calls: 4, ordered: 1 });
  });

  it('counts the repeat calls of more users than one commit of the flush takes (it commits in slices of a few ms)', async () => {
    const users = Array.from({ length: 1500 }, (_, i) => `many-${i}`);
    const call = (user: string) => t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', inputs: { name: 'm' }, external_user_id: user } });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < users.length; i += 100) await Promise.all(users.slice(i, i + 100).map(call));
    }
    const batches = t.store.writer.batches;
    const counted = () => t.store.sql.all<{ calls: number }>("SELECT calls FROM assignments WHERE experiment_id = 'live' AND external_user_id LIKE 'many-%'");
    await vi.waitFor(async () => expect((await counted()).filter((r) => r.calls === 3)).toHaveLength(users.length), { timeout: STEP_MS, interval: 200 });
    expect(t.store.writer.batches - batches).toBeGreaterThan(1);
  });

  it('serves users outside coverage the production version with nulls and stores nothing for them', async () => {
    await t.request('POST', '/experiments/live/pause');
    await t.request('PATCH', '/experiments/live', { body: { coverage: 0 } });
    await t.request('POST', '/experiments/live/start');
    const res = await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', inputs: { name: 'z' }, external_user_id: 'outsider' } });
    expect(res.json).toEqual({ prompt_text: 'A: hi z', variant_assigned: null, experiment_id: null, prompt_version: 1 });
    expect(await count("SELECT count(*) FROM assignments WHERE external_user_id = 'outsider'")).toBe(0);
    // already-assigned users keep their variant even at coverage 0: stickiness wins
    expect(
      (await t.request('POST', '/get_prompt', { body: { prompt_id: 'greet', inputs: { name: 'z' }, external_user_id: 'user-0' } })).json.experiment_id,
    ).toBe('live');
  });
});

describe('attribution of outcomes', () => {
  it("attributes by run, else by the user's assignment, else not at all", async () => {
    const run = (await t.request('POST', '/run_prompt', { body: { prompt_id: 'greet', inputs: { name: 'q' }, external_user_id: 'user-1' } })).json;
    const byRun = await t.request('POST', '/track_outcome', { body: { prompt_run_id: run.run_id, prompt_id: 'greet', is_success: true } });
    expect(byRun.json).toMatchObject({ experiment_id: 'live', variant_assigned: run.variant_assigned });
    const byUser = await t.request('POST', '/track_outcome', { body: { prompt_id: 'greet', external_user_id: 'user-2' } });
    const user2 = await t.store.sql.value("SELECT variant FROM assignments WHERE experiment_id = 'live' AND external_user_id = 'user-2'");
    expect(byUser.json).toMatchObject({ experiment_id: 'live', variant_assigned: user2 });
    const none = await t.request('POST', '/track_outcome', { body: { prompt_id: 'greet', external_user_id: 'never-seen' } });
    expect(none.json).toMatchObject({ experiment_id: null, variant_assigned: null });
    const stored = (await t.request('GET', '/outcomes?prompt_id=greet')).json.data.map((o: { attributed_by: string }) => o.attributed_by);
    expect(stored.slice(0, 3)).toEqual(['none', 'assignment', 'run']);
  });

  it('keeps attributing to the latest experiment that assigned the user after it stops, and never across projects', async () => {
    await t.request('POST', '/experiments/live/stop');
    const res = await t.request('POST', '/track_outcome', { body: { prompt_id: 'greet', external_user_id: 'user-3' } });
    expect(res.json.experiment_id).toBe('live');
    const other = await t.keyFor('admin', 'other');
    await givenPrompt(t, { prompt_id: 'greet', template: 'x', key: other });
    const theirs = await t.request('POST', '/track_outcome', { key: other, body: { prompt_id: 'greet', external_user_id: 'user-3' } });
    expect(theirs.json).toMatchObject({ experiment_id: null, variant_assigned: null });
    expect((await t.request('GET', '/outcomes?experiment_id=live', { key: other })).json.data).toEqual([]);
  });
});
