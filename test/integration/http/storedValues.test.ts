import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';

// What is acknowledged is what is stored (docs/management-api.md, "Values both backends store, or
// a 422"): a lone UTF-16 surrogate (SQLite kept three U+FFFD, PostgreSQL one) and a number JSON
// decodes as NaN or ±Infinity (both kept null) are refused with pydantic's item naming the field,
// and nothing of the request is stored; the same on PostgreSQL (PROMPTLINE_TEST_BACKEND=postgres).
// unstorableInput.test.ts tries every field of every route; this file follows one request of each
// kind of value into each kind of stored value, and reads back what is accepted.

let t: TestApp;

/** The tables a refused request could have written to. */
const TABLES = [
  'prompts',
  'prompt_versions',
  'prompt_labels',
  'experiments',
  'runs',
  'outcomes',
  'assignments',
  'datasets',
  'dataset_versions',
  'dataset_items',
  'dataset_uploads',
  'dataset_upload_items',
  'evaluators',
  'evaluator_versions',
  'online_evaluators',
  'api_keys',
  'webhooks',
  'audit_log',
];
async function rowCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) counts[table] = Number(await t.store.sql.value<number>(`SELECT count(*) FROM ${table}`));
  return counts;
}

/** Sends `body` as JSON text whose `"@NaN"`-style strings are replaced by the literal after the @ (JSON.stringify has no NaN). */
function send(method: string, url: string, body: unknown) {
  const text = JSON.stringify(body).replace(/"@(NaN|-?Infinity|-?\d[\de+.]*)"/g, '$1');
  return t.request(method, url, { raw: text, headers: { 'content-type': 'application/json' } });
}

const LONE = ['x\ud800 {{q}}', '\udc00', 'a\ude00\ud83d'];
const NON_FINITE = ['@NaN', '@Infinity', '@-Infinity', '@1e309', `@${'9'.repeat(401)}`];

beforeAll(async () => {
  t = await startTestApp();
  const ok = async (method: string, url: string, body: unknown) => {
    const res = await t.request(method, url, { body });
    expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
  };
  await ok('POST', '/prompts', { prompt_id: 'p', template: 'Q: {{q}}', labels: ['production'] });
  await ok('POST', '/prompts/p/versions', { template: 'Q2: {{q}}' });
  await ok('POST', '/datasets', { dataset_id: 'd' });
  await ok('POST', '/evaluators', { evaluator_id: 'e', kind: 'exact_match' });
  await ok('POST', '/experiments', {
    experiment_id: 'x',
    prompt_id: 'p',
    variants: [
      { key: 'a', version: 1 },
      { key: 'b', version: 2 },
    ],
  });
});
afterAll(async () => t.cleanup());

/** Where a bad value goes: the request, with `value` at the field the 422 must name. */
interface Target {
  what: string;
  method: string;
  url: string;
  body: (value: unknown) => unknown;
  loc: (string | number)[];
}

const STRING_TARGETS: Target[] = [
  { what: 'a template', method: 'POST', url: '/prompts', body: (v) => ({ prompt_id: 'n', template: v }), loc: ['template'] },
  {
    what: "a chat message's content",
    method: 'POST',
    url: '/prompts/p/versions',
    body: (v) => ({ messages: [{ role: 'user', content: v }] }),
    loc: ['messages', 0, 'content'],
  },
  { what: "a prompt's description", method: 'POST', url: '/prompts', body: (v) => ({ prompt_id: 'n', description: v }), loc: ['description'] },
  { what: "a key's name", method: 'POST', url: '/keys', body: (v) => ({ name: v, role: 'read' }), loc: ['name'] },
  { what: "a dataset's description", method: 'POST', url: '/datasets', body: (v) => ({ dataset_id: 'n', description: v }), loc: ['description'] },
  { what: "an evaluator's setting", method: 'POST', url: '/evaluators', body: (v) => ({ evaluator_id: 'n', kind: 'contains', value: v }), loc: ['value'] },
  {
    what: "an experiment's hypothesis",
    method: 'PATCH',
    url: '/experiments/x',
    body: (v) => ({ hypothesis: v }),
    loc: ['hypothesis'],
  },
  {
    what: "a metric's name",
    method: 'PATCH',
    url: '/experiments/x',
    body: (v) => ({ metrics: [{ event_type: 'buy', kind: 'success_rate', role: 'primary', name: v }] }),
    loc: ['metrics', 0, 'name'],
  },
  { what: "a run's input", method: 'POST', url: '/run_prompt', body: (v) => ({ prompt_id: 'p', inputs: { q: v } }), loc: ['inputs', 'q'] },
  { what: "an outcome's label", method: 'POST', url: '/track_outcome', body: (v) => ({ prompt_id: 'p', label: v }), loc: ['label'] },
];

/** Free JSON, where numbers go too: each target takes a string or a number at the same place. */
const JSON_TARGETS: Target[] = [
  { what: "an outcome's metadata", method: 'POST', url: '/track_outcome', body: (v) => ({ prompt_id: 'p', metadata: { k: [v] } }), loc: ['metadata', 'k', 0] },
  {
    what: "a dataset item's input",
    method: 'POST',
    url: '/datasets/d/items',
    body: (v) => ({ items: [{ inputs: { q: 'fine' } }, { inputs: { q: v } }] }),
    loc: ['items', 1, 'inputs', 'q'],
  },
  {
    what: "a dataset item's expected value",
    method: 'PUT',
    url: '/datasets/d/items',
    body: (v) => ({ items: [{ inputs: { q: 'a' }, expected: { n: v } }] }),
    loc: ['items', 0, 'expected', 'n'],
  },
  {
    what: "a dataset item's metadata",
    method: 'POST',
    url: '/datasets/d/items',
    body: (v) => ({ items: [{ inputs: {}, metadata: { m: v } }] }),
    loc: ['items', 0, 'metadata', 'm'],
  },
  {
    what: "a json_schema evaluator's schema",
    method: 'POST',
    url: '/evaluators',
    body: (v) => ({ evaluator_id: 'n', kind: 'json_schema', schema: { type: 'object', examples: [v] } }),
    loc: ['schema', 'examples', 0],
  },
  {
    what: "a version's params",
    method: 'POST',
    url: '/prompts/p/versions',
    body: (v) => ({ template: 'x', params: { seed_note: v } }),
    loc: ['params', 'seed_note'],
  },
  {
    what: "a playground run's input",
    method: 'POST',
    url: '/prompts/p/versions/1/run',
    body: (v) => ({ inputs: { q: 'ok', extra: v } }),
    loc: ['inputs', 'extra'],
  },
];

describe('a lone surrogate in a stored string', () => {
  it.each(STRING_TARGETS.concat(JSON_TARGETS).map((target) => [target.what, target] as const))(
    '%s → 422 string_unicode naming it, nothing stored',
    async (_what, target) => {
      const before = await rowCounts();
      for (const value of LONE) {
        const res = await send(target.method, target.url, target.body(value));
        expect([res.status, res.json?.detail], `${target.method} ${target.url}`).toEqual([
          422,
          [
            {
              type: 'string_unicode',
              loc: ['body', ...target.loc],
              msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
              input: value,
            },
          ],
        ]);
      }
      expect(await rowCounts()).toEqual(before);
    },
  );

  it('in an object key of stored JSON → 422 naming the key', async () => {
    const res = await send('POST', '/track_outcome', { prompt_id: 'p', metadata: { 'k\ud800': 1 } });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      {
        type: 'string_unicode',
        loc: ['body', 'metadata', 'k\ud800', '[key]'],
        msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
        input: 'k\ud800',
      },
    ]);
  });
});

describe('a non-finite number in stored JSON (NaN, ±Infinity, 1e309, a 401-digit integer)', () => {
  it.each(JSON_TARGETS.map((target) => [target.what, target] as const))('%s → 422 finite_number naming it, nothing stored', async (_what, target) => {
    const before = await rowCounts();
    for (const value of NON_FINITE) {
      const res = await send(target.method, target.url, target.body(value));
      // The echo of a non-finite number is null, as for the runtime contract's numeric_value.
      expect([res.status, res.text], `${value} at ${target.method} ${target.url}`).toEqual([
        422,
        JSON.stringify({ detail: [{ type: 'finite_number', loc: ['body', ...target.loc], msg: 'Input should be a finite number', input: null }] }),
      ]);
    }
    expect(await rowCounts()).toEqual(before);
  });

  it("a typed number field says the same (numeric_value, a numeric evaluator's tolerance)", async () => {
    const before = await rowCounts();
    for (const [url, body, loc] of [
      ['/track_outcome', { prompt_id: 'p', numeric_value: '@1e309' }, 'numeric_value'],
      ['/evaluators', { evaluator_id: 'n', kind: 'numeric', tolerance: '@Infinity' }, 'tolerance'],
    ] as const) {
      const res = await send('POST', url, body);
      expect([res.status, res.json?.detail?.[0]?.type, res.json?.detail?.[0]?.loc]).toEqual([422, 'finite_number', ['body', loc]]);
    }
    expect(await rowCounts()).toEqual(before);
  });
});

describe('what is accepted reads back exactly, on either backend', () => {
  it('paired surrogates, the extreme doubles and long integers round-trip through a dataset item and an outcome', async () => {
    const item = {
      inputs: { q: 'emoji 😀 and 𝄞', big: 1.7976931348623157e308, tiny: 5e-324, neg: -1.7976931348623157e308, int: 9007199254740991 },
      expected: { score: 0.1, list: [1e21, -0, 123456789.123] },
      metadata: { '😀': 'key with a pair' },
    };
    const made = await t.request('PUT', '/datasets/d/items', { body: { items: [item] } });
    expect(made.status).toBe(201);
    const read = await t.request('GET', '/datasets/d/items');
    expect(read.json.data).toHaveLength(1);
    // -0 is written as 0 by JSON itself; everything else comes back as sent.
    expect(read.json.data[0]).toMatchObject({ ...item, expected: { score: 0.1, list: [1e21, 0, 123456789.123] } });

    const tracked = await t.request('POST', '/track_outcome', { body: { prompt_id: 'p', label: '😀', metadata: { n: 1.7976931348623157e308, s: '𝄞' } } });
    expect(tracked.status).toBe(200);
    const outcomes = await t.request('GET', '/outcomes?prompt_id=p');
    expect(outcomes.json.data[0]).toMatchObject({ label: '😀', metadata: { n: 1.7976931348623157e308, s: '𝄞' } });
  });

  it("/get_prompt's inputs are rendered, never stored: a lone surrogate and NaN render as the client SDKs render them", async () => {
    const res = await send('POST', '/get_prompt', { prompt_id: 'p', inputs: { q: 'x\ud800' } });
    expect([res.status, res.json.prompt_text]).toEqual([200, 'Q: x\ud800']);
    const nan = await send('POST', '/get_prompt', { prompt_id: 'p', inputs: { q: '@NaN' } });
    expect([nan.status, nan.json.prompt_text]).toEqual([200, 'Q: NaN']);
    // Its other fields are stored (an experiment's assignment keeps the user id): checked as ever.
    const user = await send('POST', '/get_prompt', { prompt_id: 'p', inputs: { q: 'a' }, external_user_id: 'u\ud800' });
    expect([user.status, user.json.detail?.[0]?.type]).toEqual([422, 'string_unicode']);
  });
});
