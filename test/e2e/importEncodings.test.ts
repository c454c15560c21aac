import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callServer, cliAsync, startServerOnTestBackend, tempDataDir, type RunningServer } from '../support/processes.js';

/**
 * The CLI's imports read files as UTF-8 the same way in every format (docs/evaluations.md "Files",
 * docs/importing.md): a byte-order mark is skipped, bytes of another encoding and numbers no double
 * holds are refused as `file:line: message`, and nothing is stored. Run as an operator runs it,
 * against the built server on the suite's backend (PostgreSQL with PROMPTLINE_TEST_BACKEND=postgres).
 */
const ADMIN = 'pl_a_e2e-encodings-admin-key-0000000000000';
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const NOT_UTF8 = 'not UTF-8 text: save the file as UTF-8 (its bytes here are another encoding, such as Latin-1)';
let server: RunningServer;
let dir: string;
let connection: string[];
const env = { PROMPTLINE_URL: '', PROMPTLINE_API_KEY: '' };

/** A file of these parts (text, or bytes as they are). */
function file(name: string, ...parts: Array<string | Buffer>): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part))));
  return p;
}
const promptline = (...args: string[]) => cliAsync([...args, ...connection], env);
const items = async (dataset: string) => (await callServer(server.origin, `/datasets/${dataset}/items`, ADMIN, undefined, 'GET')).json;
const dataset = async (id: string) => (await callServer(server.origin, `/datasets/${id}`, ADMIN, undefined, 'GET')).json;

beforeAll(async () => {
  server = await startServerOnTestBackend(ADMIN);
  connection = ['--url', server.origin, '--api-key', ADMIN];
  dir = tempDataDir();
  for (const id of ['bom', 'bad']) expect((await promptline('datasets', 'create', id)).status).toBe(0);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
});

describe('datasets import', () => {
  it('JSONL with a byte-order mark: imported, the mark not part of the first item', async () => {
    const jsonl = file('bom.jsonl', BOM, '{"inputs": {"q": "é first"}, "expected": 1.7976931348623157e308}\r\n{"inputs": {"q": "second"}}\r\n');
    const res = await promptline('datasets', 'import', 'bom', jsonl);
    expect([res.status, res.stderr, res.stdout]).toEqual([0, '', 'bom: 2 items imported as version 1, which holds 2 items\n']);
    expect((await items('bom')).data.map((i: { inputs: unknown; expected: unknown }) => [i.inputs, i.expected])).toEqual([
      [{ q: 'é first' }, 1.7976931348623157e308],
      [{ q: 'second' }, null],
    ]);
  }, 60_000);

  it('CSV with a byte-order mark: imported as before', async () => {
    const csv = file('bom.csv', BOM, 'inputs.q,expected\r\nthird,3\r\n');
    const res = await promptline('datasets', 'import', 'bom', csv);
    expect([res.status, res.stderr]).toEqual([0, '']);
    expect((await items('bom')).data.at(-1)).toMatchObject({ inputs: { q: 'third' }, expected: '3' });
  }, 60_000);

  it('JSONL: Latin-1 bytes and numbers beyond a double → each at its line, exit 1, nothing stored', async () => {
    const jsonl = file(
      'bad.jsonl',
      '{"inputs": {"q": "fine"}}\n',
      Buffer.from('{"inputs": {"q": "caf\xe9"}}\n', 'latin1'),
      '{"inputs": {"q": "x"}, "expected": 1e309}\n',
      `{"inputs": {"n": ${'9'.repeat(401)}}}\n`,
      '{"inputs": {"q": "y"}, "metadata": {"m": [-1e400]}}\r\n',
      '{"inputs": {"q": "the text 1e309 is a string"}}\n',
    );
    const res = await promptline('datasets', 'import', 'bad', jsonl);
    expect([res.status, res.stdout]).toEqual([1, '']);
    expect(res.stderr).toBe(
      `promptline: ${jsonl}:2: ${NOT_UTF8}\n` +
        `${jsonl}:3: the number 1e309 is out of range (a number is at most ±1.7976931348623157e308)\n` +
        `${jsonl}:4: the number 999999999999…999999 (401 characters) is out of range (a number is at most ±1.7976931348623157e308)\n` +
        `${jsonl}:5: the number -1e400 is out of range (a number is at most ±1.7976931348623157e308)\n`,
    );
    expect(await dataset('bad')).toMatchObject({ latest_version: 0, item_count: 0 });
  }, 60_000);

  it('CSV: an expected_json number beyond a double and Latin-1 bytes → at their lines, exit 1, nothing stored', async () => {
    const csv = file('bad.csv', 'inputs.q,expected_json\n', 'a,1e309\n', 'b,"{""n"": 2}"\n', Buffer.from('caf\xe9,1\n', 'latin1'), 'd,4\n');
    const res = await promptline('datasets', 'import', 'bad', csv);
    expect([res.status, res.stderr]).toEqual([
      1,
      `promptline: ${csv}:2: expected_json: the number 1e309 is out of range (a number is at most ±1.7976931348623157e308)\n${csv}:4: ${NOT_UTF8}\n`,
    ]);
    expect(await dataset('bad')).toMatchObject({ latest_version: 0, item_count: 0 });
  }, 60_000);

  it('export escapes formulas, and the file imports back to the same items', async () => {
    expect((await callServer(server.origin, '/datasets/bad/items', ADMIN, { items: [{ inputs: { q: '=HYPERLINK("http://x","y")', r: '-7' } }] })).status).toBe(
      201,
    );
    const out = path.join(dir, 'formulas.csv');
    expect((await promptline('datasets', 'export', 'bad', '--out', out)).status).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toBe('inputs.q,inputs.r,expected\r\n"\'=HYPERLINK(""http://x"",""y"")",-7,\r\n');
    expect((await promptline('datasets', 'import', 'bad', out, '--replace')).status).toBe(0);
    expect((await items('bad')).data.map((i: { inputs: unknown }) => i.inputs)).toEqual([{ q: '=HYPERLINK("http://x","y")', r: '-7' }]);
  }, 60_000);
});

describe('import --from langfuse | openai | dir', () => {
  const langfuse = (temperature: string) =>
    `{"name": "bom-critic", "version": 1, "type": "text", "prompt": "Review {{movie}}", "config": {"model": "gpt-4o", "temperature": ${temperature}}, "labels": []}\n`;

  it('JSON with a byte-order mark is read', async () => {
    const json = file('bom.json', BOM, langfuse('0.5'));
    const res = await promptline('import', json, '--from', 'langfuse', '--dry-run');
    expect([res.status, res.stderr]).toEqual([0, '']);
    expect(res.stdout).toContain('prompt bom-critic (new)');
  }, 60_000);

  it('JSON with a number beyond a double, or Latin-1 bytes → file:line, exit 1, nothing created', async () => {
    const big = file('big.json', '[\n', langfuse('1e999'), ']\n');
    const tooBig = await promptline('import', big, '--from', 'langfuse');
    expect([tooBig.status, tooBig.stderr]).toEqual([
      1,
      `promptline: ${big}:2: the number 1e999 is out of range (a number is at most ±1.7976931348623157e308)\n`,
    ]);
    const latin = file('latin.json', '[\n', langfuse('0.5'), Buffer.from('\n"caf\xe9"]\n', 'latin1'));
    const notUtf8 = await promptline('import', latin, '--from', 'openai');
    expect([notUtf8.status, notUtf8.stderr]).toEqual([1, `promptline: ${latin}:4: ${NOT_UTF8}\n`]);
    expect((await callServer(server.origin, '/prompts/bom-critic', ADMIN, undefined, 'GET')).status).toBe(404);
  }, 60_000);

  it('a folder of templates: a byte-order mark is not part of the template; a Latin-1 file → file:line, exit 1, nothing created', async () => {
    const templates = path.join(dir, 'templates');
    fs.mkdirSync(templates);
    fs.writeFileSync(path.join(templates, 'marked.txt'), Buffer.concat([BOM, Buffer.from('Hello {{name}}')]));
    const imported = await promptline('import', templates, '--from', 'dir');
    expect([imported.status, imported.stderr]).toEqual([0, '']);
    const [version] = (await callServer(server.origin, '/prompts/marked/versions', ADMIN, undefined, 'GET')).json.data;
    expect(version.template).toBe('Hello {{name}}');

    fs.writeFileSync(path.join(templates, 'latin.txt'), Buffer.from('Line one\nCaf\xe9 {{name}}\n', 'latin1'));
    const refused = await promptline('import', templates, '--from', 'dir');
    expect([refused.status, refused.stderr]).toEqual([1, `promptline: ${path.join(templates, 'latin.txt')}:2: ${NOT_UTF8}\n`]);
    expect((await callServer(server.origin, '/prompts/latin', ADMIN, undefined, 'GET')).status).toBe(404);
  }, 60_000);
});
