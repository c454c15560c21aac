import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenPrompt } from '../../support/fixtures.js';

/** /evaluators: each kind's settings, versions, refusals at creation (unsafe patterns, bad schemas), roles. */
let t: TestApp;
const count = async (table: string) => (await t.store.sql.value<number>(`SELECT count(*) FROM ${table}`)) as number;
const create = (body: Record<string, unknown>) => t.request('POST', '/evaluators', { body });

beforeAll(async () => {
  t = await startTestApp();
  await givenPrompt(t, { prompt_id: 'judge', template: 'Rubric: {{rubric}}\nInput: {{input}}\nOutput: {{output}}\nExpected: {{expected}}' });
});
afterAll(async () => t.cleanup());

describe('evaluators', () => {
  it('creates one of each kind, with its defaults filled in', async () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, string]> = [
      [{ kind: 'exact_match' }, { case_sensitive: true, normalize_whitespace: false }, 'pass_fail'],
      [{ kind: 'contains', value: 'refund', case_sensitive: false }, { case_sensitive: false, value: 'refund' }, 'pass_fail'],
      [{ kind: 'regex', pattern: '^\\d{4}-\\d{2}$', flags: 'm' }, { pattern: '^\\d{4}-\\d{2}$', flags: 'm' }, 'pass_fail'],
      [{ kind: 'json_schema' }, {}, 'pass_fail'],
      [{ kind: 'json_schema', schema: { type: 'object', required: ['a'] } }, { schema: { type: 'object', required: ['a'] } }, 'pass_fail'],
      [{ kind: 'numeric', tolerance: 0.01, relative: true }, { tolerance: 0.01, relative: true }, 'pass_fail'],
      [{ kind: 'length', max_chars: 280 }, { max_chars: 280 }, 'pass_fail'],
      [
        { kind: 'llm_judge', prompt_id: 'judge', scale: '1-5', rubric: 'Is it polite?' },
        { prompt_id: 'judge', label: null, version: null, scale: '1-5', rubric: 'Is it polite?' },
        '1-5',
      ],
      [
        { kind: 'llm_judge', prompt_id: 'judge', version: 1, rubric: 'Cites a source' },
        { prompt_id: 'judge', label: null, version: 1, scale: 'pass_fail', rubric: 'Cites a source' },
        'pass_fail',
      ],
    ];
    for (const [i, [body, settings, scale]] of cases.entries()) {
      const res = await create({ evaluator_id: `e${i}`, ...body });
      expect([body, res.status]).toEqual([body, 201]);
      expect(res.json).toEqual({
        evaluator_id: `e${i}`,
        kind: body.kind,
        description: null,
        latest_version: { evaluator_id: `e${i}`, version: 1, kind: body.kind, scale, settings, created_at: expect.any(String) },
        created_at: expect.any(String),
        archived_at: null,
      });
      expect((await t.request('GET', `/evaluators/e${i}`)).json).toEqual(res.json);
    }
    expect((await t.request('GET', '/evaluators?limit=3')).json.data.map((e: { evaluator_id: string }) => e.evaluator_id)).toEqual(['e8', 'e7', 'e6']);
  });

  it('an update is a new version of the same kind; earlier versions stay', async () => {
    await create({ evaluator_id: 'short', kind: 'length', max_chars: 100, description: 'tweet-sized' });
    const v2 = await t.request('POST', '/evaluators/short/versions', { body: { min_chars: 10, max_chars: 280 } });
    expect(v2.status).toBe(201);
    expect(v2.json).toMatchObject({ evaluator_id: 'short', version: 2, kind: 'length', settings: { min_chars: 10, max_chars: 280 } });
    expect((await t.request('GET', '/evaluators/short')).json).toMatchObject({ description: 'tweet-sized', latest_version: { version: 2 } });
    expect((await t.request('GET', '/evaluators/short/versions/1')).json.settings).toEqual({ max_chars: 100 });
    expect((await t.request('GET', '/evaluators/short/versions')).json.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const otherKind = await t.request('POST', '/evaluators/short/versions', { body: { kind: 'regex', pattern: 'a' } });
    expect(otherKind.status).toBe(422);
    expect(otherKind.json.detail[0].loc).toEqual(['body', 'kind']);
    const audit = (await t.request('GET', '/audit?target_type=evaluator&target_id=short')).json.data;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['evaluator.version_created', 'evaluator.created']);

    expect((await t.request('DELETE', '/evaluators/short')).status).toBe(204);
    expect((await t.request('POST', '/evaluators/short/versions', { body: { max_chars: 5 } })).status).toBe(409);
    expect((await t.request('GET', '/evaluators')).json.data.map((e: { evaluator_id: string }) => e.evaluator_id)).not.toContain('short');
    expect((await t.request('GET', '/evaluators?include_archived=true')).json.data[0].evaluator_id).toBe('short');
  });

  it('refuses bad settings at creation with a 422 at the field, and stores nothing', async () => {
    const before = [await count('evaluators'), await count('evaluator_versions'), await count('audit_log')];
    const cases: Array<[Record<string, unknown>, Array<[unknown[], string | RegExp]>]> = [
      [{ kind: 'regex', pattern: '(a)\\1' }, [[['body', 'pattern'], /uses a back-reference \(\\1\), which the linear-time engine does not support/]]],
      [{ kind: 'regex', pattern: '(unclosed' }, [[['body', 'pattern'], /not a valid regular expression/]]],
      [{ kind: 'regex', pattern: 'a', flags: 'g' }, [[['body', 'flags'], /flags may be any of i, m and s/]]],
      [{ kind: 'regex' }, [[['body', 'pattern'], 'Field required']]],
      [
        { kind: 'json_schema', schema: { type: 'object', properties: { age: { type: 'integr' } } } },
        [[['body', 'schema', 'properties', 'age', 'type'], /not a valid JSON Schema/]],
      ],
      [{ kind: 'json_schema', schema: { typo_keyword: true } }, [[['body', 'schema'], /unknown keyword: "typo_keyword"/]]],
      [{ kind: 'numeric' }, [[['body', 'tolerance'], 'Field required']]],
      [{ kind: 'numeric', tolerance: -1 }, [[['body', 'tolerance'], /greater than or equal to 0/]]],
      [{ kind: 'length' }, [[['body', 'max_chars'], 'Field required']]],
      [{ kind: 'length', min_chars: 10, max_chars: 5 }, [[['body', 'max_chars'], /max_chars is below min_chars/]]],
      [
        { kind: 'exact_match', pattern: 'x', tolerance: 1 },
        [
          [['body', 'pattern'], /not a setting of kind exact_match/],
          [['body', 'tolerance'], /not a setting of kind exact_match/],
        ],
      ],
      [{ kind: 'llm_judge', prompt_id: 'judge' }, [[['body', 'rubric'], 'Field required']]],
      [{ kind: 'llm_judge', prompt_id: 'nope', rubric: 'r' }, [[['body', 'prompt_id'], /no prompt 'nope' in this project/]]],
      [{ kind: 'llm_judge', prompt_id: 'judge', version: 9, rubric: 'r' }, [[['body', 'version'], /has no version 9/]]],
      [{ kind: 'llm_judge', prompt_id: 'judge', version: 1, label: 'production', rubric: 'r' }, [[['body', 'version'], /label or version, not both/]]],
      [{ kind: 'llm_judge', prompt_id: 'judge', rubric: 'r', scale: '1-10' }, [[['body', 'scale'], /Input should be 'pass_fail' or '1-5'/]]],
      [{ kind: 'bleu' }, [[['body', 'kind'], /Input should be/]]],
    ];
    for (const [body, expected] of cases) {
      const res = await create({ evaluator_id: 'bad', ...body });
      expect([body, res.status]).toEqual([body, 422]);
      expect(res.json.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(expected.map(([loc]) => loc));
      for (const [i, d] of (res.json.detail as Array<{ msg: string }>).entries()) expect(d.msg).toMatch(expected[i]![1]);
    }
    expect((await create({ evaluator_id: 'e0', kind: 'exact_match' })).status).toBe(409);
    expect((await t.request('GET', '/evaluators/nope')).status).toBe(404);
    expect((await t.request('GET', '/evaluators/e0/versions/5')).status).toBe(404);
    expect((await t.request('POST', '/evaluators/nope/versions', { body: {} })).status).toBe(404);
    expect([await count('evaluators'), await count('evaluator_versions'), await count('audit_log')]).toEqual(before);
  });

  it('a read key reads, only an admin key writes', async () => {
    const read = await t.keyFor('read');
    expect((await t.request('GET', '/evaluators/e0', { key: read })).status).toBe(200);
    expect((await t.request('POST', '/evaluators', { key: read, body: { evaluator_id: 'r', kind: 'exact_match' } })).status).toBe(403);
  });
});
