import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNTIME_MAX } from '../../src/modules/runtimeLimits.js';
import { startTestApp, type TestApp } from '../support/harness.js';

// Oversized and deeply nested input: a documented 4xx for each, nothing stored, the server unharmed.
let t: TestApp;
let runtime: string;
const count = (table: string) => t.sqlite.prepare(`SELECT count(*) FROM ${table}`).pluck().get();

beforeAll(async () => {
  t = await startTestApp();
  runtime = await t.keyFor('runtime');
  await t.request('POST', '/prompts', { body: { prompt_id: 'p', template: 'Hi {{name}}' } });
});
afterAll(async () => t.cleanup());

const long = (n: number) => 'x'.repeat(n + 1);

describe('every string field of the runtime endpoints has a maximum length', () => {
  it.each([
    ['/track_outcome', 'prompt_id', RUNTIME_MAX.promptId],
    ['/track_outcome', 'prompt_run_id', RUNTIME_MAX.promptRunId],
    ['/track_outcome', 'external_user_id', RUNTIME_MAX.externalUserId],
    ['/track_outcome', 'event_type', RUNTIME_MAX.eventType],
    ['/track_outcome', 'label', RUNTIME_MAX.label],
    ['/track_outcome', 'value', RUNTIME_MAX.value],
    ['/track_outcome', 'source', RUNTIME_MAX.source],
    ['/get_prompt', 'prompt_id', RUNTIME_MAX.promptId],
    ['/get_prompt', 'external_user_id', RUNTIME_MAX.externalUserId],
    ['/run_prompt', 'prompt_id', RUNTIME_MAX.promptId],
    ['/run_prompt', 'external_user_id', RUNTIME_MAX.externalUserId],
  ])('%s %s: at most %d characters', async (url, field, max) => {
    const base: Record<string, unknown> = url === '/track_outcome' ? { prompt_id: 'p' } : { prompt_id: 'p', inputs: { name: 'A' } };
    const before = [count('outcomes'), count('runs')];
    const res = await t.request('POST', url, { key: runtime, body: { ...base, [field]: long(max) } });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      {
        type: 'string_too_long',
        loc: ['body', field],
        msg: `String should have at most ${max} characters`,
        input: long(max),
        ctx: { max_length: max },
      },
    ]);
    expect([count('outcomes'), count('runs')]).toEqual(before);
    // Exactly the maximum is accepted (validation passes; an unknown prompt is then a 404).
    const atMax = await t.request('POST', url, { key: runtime, body: { ...base, [field]: 'x'.repeat(max) } });
    expect([200, 404]).toContain(atMax.status);
  });

  it.each(['/get_prompt', '/run_prompt'])('%s: at most 256 inputs', async (url) => {
    const inputs = Object.fromEntries(Array.from({ length: RUNTIME_MAX.inputs + 1 }, (_, i) => [`k${i}`, 'v']));
    const res = await t.request('POST', url, { key: runtime, body: { prompt_id: 'p', inputs } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0]).toMatchObject({
      type: 'too_long',
      loc: ['body', 'inputs'],
      msg: 'Dictionary should have at most 256 items after validation, not 257',
      ctx: { field_type: 'Dictionary', max_length: 256, actual_length: 257 },
    });
  });
});

describe('metadata is bounded in size and depth', () => {
  const nested = (depth: number): unknown => (depth === 1 ? {} : { a: nested(depth - 1) });

  it('accepts 10 levels and refuses 11', async () => {
    const ok = await t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'p', metadata: nested(10) } });
    expect(ok.status).toBe(200);
    const before = count('outcomes');
    const deep = await t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'p', metadata: nested(11) } });
    expect(deep.status).toBe(422);
    expect(deep.json.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'metadata'], msg: 'Value error, metadata may nest at most 10 levels deep' });
    const veryDeep = await t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'p', metadata: nested(900) } });
    expect(veryDeep.status).toBe(422);
    expect(count('outcomes')).toBe(before);
  });

  it('counts UTF-8 bytes of the stored JSON', async () => {
    const res = await t.request('POST', '/track_outcome', { key: runtime, body: { prompt_id: 'p', metadata: { note: 'é'.repeat(8_200) } } });
    expect(res.status).toBe(422);
    expect(res.json.detail[0].msg).toBe('Value error, metadata must serialise to at most 16384 bytes of JSON');
  });
});

describe('bodies beyond what the parser allows', () => {
  it.each([
    ['JSON nested deeper than Python parses', `{"prompt_id":"p","metadata":${'['.repeat(5000)}${']'.repeat(5000)}}`, 400],
    ['an integer of 5 000 digits', `{"prompt_id":"p","numeric_value":${'9'.repeat(5000)}}`, 400],
    ['a body over 1 MiB', `{"prompt_id":"p","value":"${'v'.repeat(1_048_576)}"}`, 413],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 400],
  ])('%s → %d', async (_name, raw, status) => {
    const before = count('outcomes');
    const res = await t.request('POST', '/track_outcome', { key: runtime, raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(status);
    expect(count('outcomes')).toBe(before);
  });
});
