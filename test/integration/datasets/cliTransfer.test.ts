import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type ApiClient, type HttpMethod, type RequestOptions } from '../../../src/cli/api/client.js';
import { ItemFileError } from '../../../src/cli/datasets/itemFiles.js';
import { exportItems, importItems, refusedAt } from '../../../src/cli/datasets/transfer.js';
import { startTestApp, type TestApp } from '../../support/harness.js';

/** `promptline datasets import|export` against the real API: files read whole before anything is sent, line numbers in errors, round trips. */
let t: TestApp;
let api: ApiClient;
let dir: string;
const count = async (table: string) => (await t.store.sql.value<number>(`SELECT count(*) FROM ${table}`)) as number;
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};
async function exported(datasetId: string, format: 'csv' | 'jsonl', version?: number): Promise<string> {
  let text = '';
  await exportItems(api, datasetId, version, format, async (chunk) => {
    text += chunk;
  });
  return text;
}
async function problemsOf(promise: Promise<unknown>): Promise<readonly string[]> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ItemFileError);
  return (error as ItemFileError).problems;
}

beforeAll(async () => {
  t = await startTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promptline-items-'));
  // The CLI's ApiClient, answered by the test app (as the local connection answers it in-process).
  api = {
    target: 'test',
    async request<T>(method: string, url: string, options: { body?: unknown; query?: Record<string, unknown> } = {}): Promise<T> {
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query.set(k, String(v));
      const res = await t.request(method, query.size === 0 ? url : `${url}?${query}`, options.body === undefined ? {} : { body: options.body });
      if (res.status >= 400) throw new ApiError(res.status, res.json?.detail);
      return res.json as T;
    },
  };
  await t.request('POST', '/datasets', { body: { dataset_id: 'cli' } });
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await t.cleanup();
});

describe('datasets import', () => {
  it('JSONL: every bad line reported as file:line, and nothing stored', async () => {
    const p = file(
      'bad.jsonl',
      [
        '{"inputs": {"q": "fine"}}',
        '',
        '{"inputs": {"q": "x"}, "expeted": "typo"}',
        'not json',
        '["array"]',
        '{"inputs": "text"}',
        '{"inputs": {}, "metadata": 3}',
        '{"inputs": {"q": "a\\u0000b"}}',
        JSON.stringify({ inputs: { ['n'.repeat(257)]: 'x' } }),
      ].join('\n'),
    );
    expect(await problemsOf(importItems(api, 'cli', p, 'jsonl', false))).toEqual([
      `${p}:3: unknown field(s) "expeted": an item has inputs, expected and metadata`,
      expect.stringMatching(new RegExp(`^${p}:4: not JSON: `)), // the rest is the Node version's wording
      `${p}:5: each line must be a JSON object`,
      `${p}:6: "inputs" must be an object of the prompt's variables`,
      `${p}:7: "metadata" must be an object`,
      `${p}:8: the item holds the NUL character (U+0000), which the API refuses`,
      `${p}:9: "inputs" has a name longer than 256 characters`,
    ]);
    expect([await count('dataset_versions'), await count('dataset_items')]).toEqual([0, 0]);
  });

  it('CSV: a bad header, a row of the wrong width, bad JSON and an unclosed quote are reported by line, and nothing stored', async () => {
    const header = file('header.csv', 'inputs.q,answer\nx,y\n');
    expect(await problemsOf(importItems(api, 'cli', header, 'csv', false))).toEqual([
      `${header}:1: column "answer": columns are inputs.<name>, expected, expected_json and metadata.<name>`,
    ]);
    const long = file('long.csv', `inputs.${'n'.repeat(257)}\nx\n`);
    expect(await problemsOf(importItems(api, 'cli', long, 'csv', false))).toEqual([
      `${long}:1: column "inputs.${'n'.repeat(257)}": a name may have at most 256 characters`,
    ]);
    const rows = file('rows.csv', 'inputs.q,expected_json,metadata.tag\n"multi\nline","{""a"":1}",t\nshort\nok,{bad,t\n');
    expect(await problemsOf(importItems(api, 'cli', rows, 'csv', false))).toEqual([
      `${rows}:4: 1 cells, the header has 3`,
      expect.stringMatching(new RegExp(`^${rows}:5: expected_json is not JSON: `)),
    ]);
    const quote = file('quote.csv', 'inputs.q,expected\nfine,yes\n"unclosed,no\n');
    const problems = await problemsOf(importItems(api, 'cli', quote, 'csv', false));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${quote.replaceAll('.', '\\.')}:\\d+: .*quote`, 'i'));
    expect(await problemsOf(importItems(api, 'cli', file('empty.csv', ''), 'csv', false))).toEqual([`${dir}/empty.csv:1: no header row`]);
    expect(await problemsOf(importItems(api, 'cli', path.join(dir, 'missing.jsonl'), 'jsonl', false))).toEqual([`${dir}/missing.jsonl: no such file`]);
    expect([await count('dataset_versions'), await count('dataset_items')]).toEqual([0, 0]);
  });

  it('a clean file becomes one version; export writes what import reads, in both formats', async () => {
    const jsonl = file(
      'good.jsonl',
      [
        '{"inputs": {"q": "refund?", "lang": "en"}, "expected": "Within 30 days.", "metadata": {"topic": "billing"}}',
        '{"inputs": {"q": "order 7?"}, "expected": {"status": "shipped"}}',
        '{"inputs": {"q": "hi, \\"there\\"\\nsecond line"}}',
        '{"inputs": {"q": "two\\nlines"}, "expected": "a\\r\\nb"}',
      ].join('\r\n'),
    );
    const made = await importItems(api, 'cli', jsonl, 'jsonl', false);
    expect(made.map((v) => [v.version, v.added, v.item_count])).toEqual([[1, 4, 4]]);

    const asJsonl = await exported('cli', 'jsonl');
    expect(
      asJsonl
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { inputs: { q: 'refund?', lang: 'en' }, expected: 'Within 30 days.', metadata: { topic: 'billing' } },
      { inputs: { q: 'order 7?' }, expected: { status: 'shipped' }, metadata: {} },
      { inputs: { q: 'hi, "there"\nsecond line' }, metadata: {} },
      { inputs: { q: 'two\nlines' }, expected: 'a\r\nb', metadata: {} },
    ]);
    const asCsv = await exported('cli', 'csv');
    expect(asCsv).toBe(
      'inputs.lang,inputs.q,expected_json,metadata.topic\r\n' +
        'en,refund?,"""Within 30 days.""",billing\r\n' +
        ',order 7?,"{""status"":""shipped""}",\r\n' +
        ',"hi, ""there""\nsecond line",,\r\n' +
        ',"two\nlines","""a\\r\\nb""",\r\n', // a line break alone is quoted too
    );
    // The CSV read back (with --replace) holds the same items, but that CSV cells are text: an empty cell is "".
    const back = await importItems(api, 'cli', file('back.csv', asCsv), 'csv', true);
    expect(back.map((v) => [v.version, v.source, v.item_count])).toEqual([[2, 'replace', 4]]);
    expect(
      (await exported('cli', 'jsonl'))
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { inputs: { lang: 'en', q: 'refund?' }, expected: 'Within 30 days.', metadata: { topic: 'billing' } },
      { inputs: { lang: '', q: 'order 7?' }, expected: { status: 'shipped' }, metadata: { topic: '' } },
      { inputs: { lang: '', q: 'hi, "there"\nsecond line' }, metadata: { topic: '' } },
      { inputs: { lang: '', q: 'two\nlines' }, expected: 'a\r\nb', metadata: { topic: '' } },
    ]);
    expect(await exported('cli', 'jsonl', 1)).toBe(asJsonl);
  });

  it('CSV export makes text a spreadsheet would run inert, and import reads it back exactly', async () => {
    await t.request('POST', '/datasets', { body: { dataset_id: 'formulas' } });
    const items = [
      { inputs: { q: '=HYPERLINK("http://attacker.example","click")', n: '-5' }, expected: '@SUM(A1:A9)', metadata: { m: '+1+cmd|/C calc!A0' } },
      { inputs: { q: '-2+3', n: '\t=1' }, expected: "'=already marked", metadata: { m: "'hello" } },
      { inputs: { q: 'plain', n: -5 }, expected: { v: '=in JSON' }, metadata: { m: '' } },
    ];
    expect((await t.request('PUT', '/datasets/formulas/items', { body: { items } })).status).toBe(201);
    const csv = await exported('formulas', 'csv');
    expect(csv).toBe(
      'inputs.n,inputs.q,expected_json,metadata.m\r\n' +
        `-5,"'=HYPERLINK(""http://attacker.example"",""click"")","""@SUM(A1:A9)""",'+1+cmd|/C calc!A0\r\n` +
        `'\t=1,'-2+3,"""'=already marked""",'hello\r\n` +
        `-5,plain,"{""v"":""=in JSON""}",\r\n`,
    );
    await importItems(api, 'formulas', file('formulas.csv', csv), 'csv', true);
    const back = (await t.request('GET', '/datasets/formulas/items')).json.data.map((i: { inputs: unknown; expected: unknown; metadata: unknown }) => [
      i.inputs,
      i.expected,
      i.metadata,
    ]);
    // As in every CSV round trip, cells are text: the number -5 comes back as the text "-5".
    expect(back).toEqual([
      [{ n: '-5', q: '=HYPERLINK("http://attacker.example","click")' }, '@SUM(A1:A9)', { m: '+1+cmd|/C calc!A0' }],
      [{ n: '\t=1', q: '-2+3' }, "'=already marked", { m: "'hello" }],
      [{ n: '-5', q: 'plain' }, { v: '=in JSON' }, { m: '' }],
    ]);
  });

  it('a file larger than one request goes through one upload: ONE version, nothing visible before the commit', async () => {
    await t.request('POST', '/datasets', { body: { dataset_id: 'big' } });
    const lines = Array.from({ length: 2500 }, (_, i) => JSON.stringify({ inputs: { n: String(i) }, expected: `answer ${i}` }));
    // Each request the CLI sends is watched: until the commit, the dataset has no version.
    const seen: Array<[string, string, number]> = [];
    const watching: ApiClient = {
      target: 'test',
      async request<T>(method: HttpMethod, url: string, options?: RequestOptions): Promise<T> {
        seen.push([method, url.replace(/upl_\w+/, 'UPL'), (await t.request('GET', '/datasets/big')).json.latest_version as number]);
        return api.request<T>(method, url, options);
      },
    };
    const made = await importItems(watching, 'big', file('big.jsonl', lines.join('\n')), 'jsonl', false);
    expect(made.map((v) => [v.version, v.source, v.added, v.item_count])).toEqual([[1, 'append', 2500, 2500]]);
    expect(seen).toEqual([
      ['POST', '/datasets/big/uploads', 0],
      ['POST', '/datasets/big/uploads/UPL/items', 0],
      ['POST', '/datasets/big/uploads/UPL/items', 0],
      ['POST', '/datasets/big/uploads/UPL/items', 0],
      ['POST', '/datasets/big/uploads/UPL/commit', 0],
    ]);
    const text = await exported('big', 'csv');
    expect(text.split('\r\n')).toHaveLength(2502); // header, 2500 rows, the empty string after the last CRLF
    expect(text.split('\r\n')[1]).toBe('0,answer 0');
    expect(text.split('\r\n')[2500]).toBe('2499,answer 2499');
    // The upload is gone once committed.
    expect([await count('dataset_uploads'), await count('dataset_upload_items')]).toEqual([0, 0]);

    // With --replace (and smaller batches), the one new version holds the file's items only.
    const again = await importItems(api, 'big', file('five.jsonl', lines.slice(0, 5).join('\n')), 'jsonl', true, { items: 2 });
    expect(again.map((v) => [v.version, v.source, v.added, v.removed, v.item_count])).toEqual([[2, 'replace', 5, 2500, 5]]);
  });

  it('an upload refused midway stores nothing: no version, and its staged items are discarded', async () => {
    await t.request('POST', '/datasets', { body: { dataset_id: 'halfway' } });
    const lines = Array.from({ length: 5 }, (_, i) => JSON.stringify({ inputs: { n: String(i) } }));
    // The dataset is archived (by another caller) once the first batch is staged: the next batch is refused (409).
    let staged = 0;
    const racing: ApiClient = {
      target: 'test',
      async request<T>(method: HttpMethod, url: string, options?: RequestOptions): Promise<T> {
        const answer = await api.request<T>(method, url, options);
        if (url.endsWith('/items') && ++staged === 1) expect((await t.request('DELETE', '/datasets/halfway')).status).toBe(204);
        return answer;
      },
    };
    await expect(importItems(racing, 'halfway', file('halfway.jsonl', lines.join('\n')), 'jsonl', false, { items: 2 })).rejects.toThrow(
      "Dataset 'halfway' is archived",
    );
    expect((await t.request('GET', '/datasets/halfway/versions')).json.data).toEqual([]);
    expect([await count('dataset_uploads'), await count('dataset_upload_items')]).toEqual([0, 0]);
  });

  it('a batch the API refuses is reported at the lines of the items it names', () => {
    const detail = [
      { type: 'value_error', loc: ['body', 'items', 2, 'inputs', 'q'], msg: 'Value error, too long', input: 'x' },
      { type: 'missing', loc: ['body', 'items', 0, 'inputs'], msg: 'Field required', input: {} },
    ];
    const error = refusedAt(new ApiError(422, detail), 'f.jsonl', [1, 2, 4, 5, 9], 2);
    expect(error.problems).toEqual(['f.jsonl:9: inputs.q: Value error, too long', 'f.jsonl:4: inputs: Field required']);
  });

  it("the API refuses what the file cannot say (an unknown dataset): the error is the API's", async () => {
    await expect(importItems(api, 'nope', file('one.jsonl', '{"inputs": {}}'), 'jsonl', false)).rejects.toThrow("Dataset 'nope' not found");
  });
});
