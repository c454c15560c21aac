import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await givenPrompt(t, { template: 'hi {{x}}' });
});
afterAll(async () => t.cleanup());

const count = async (table: string) => (await t.store.sql.value<number>(`SELECT count(*) FROM ${table}`)) as number;
const withKey = (key: string) => ({ 'idempotency-key': key });

describe('Idempotency-Key', () => {
  it('replays the first /track_outcome answer for the same key and body, storing one outcome', async () => {
    const before = await count('outcomes');
    const body = { prompt_id: 'p', event_type: 'buy', numeric_value: 3 };
    const first = await t.request('POST', '/track_outcome', { body, headers: withKey('order-1') });
    const again = await t.request('POST', '/track_outcome', { body, headers: withKey('order-1') });
    expect(first.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(await count('outcomes')).toBe(before + 1);
  });

  it('refuses the same key with another body, storing nothing', async () => {
    const before = await count('outcomes');
    const res = await t.request('POST', '/track_outcome', { body: { prompt_id: 'p', event_type: 'other' }, headers: withKey('order-1') });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({ type: 'value_error', loc: ['header', 'idempotency-key'], input: 'order-1' });
    expect(await count('outcomes')).toBe(before);
  });

  it('lets concurrent twins store one outcome and answer the same', async () => {
    const before = await count('outcomes');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => t.request('POST', '/track_outcome', { body: { prompt_id: 'p', external_user_id: 'u' }, headers: withKey('burst') })),
    );
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers[0]!.status).toBe(200);
    expect(await count('outcomes')).toBe(before + 1);
  });

  it('replays /run_prompt without running again', async () => {
    const before = await count('runs');
    const body = { prompt_id: 'p', inputs: { x: 'y' } };
    const first = await t.request('POST', '/run_prompt', { body, headers: withKey('run-1') });
    const again = await t.request('POST', '/run_prompt', { body, headers: withKey('run-1') });
    expect(first.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(await count('runs')).toBe(before + 1);
  });

  it('scopes keys to a project and rejects over-long keys', async () => {
    const other = await t.keyFor('admin', 'other');
    await givenPrompt(t, { template: 'x', key: other });
    const mine = await t.request('POST', '/track_outcome', { body: { prompt_id: 'p' }, headers: withKey('shared') });
    const theirs = await t.request('POST', '/track_outcome', { key: other, body: { prompt_id: 'p' }, headers: withKey('shared') });
    expect(theirs.json.outcome_id).not.toBe(mine.json.outcome_id);
    expect((await t.request('POST', '/track_outcome', { body: { prompt_id: 'p' }, headers: withKey('k'.repeat(256)) })).status).toBe(422);
  });
});
