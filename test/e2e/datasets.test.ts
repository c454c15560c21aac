import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAsync, tempDataDir } from '../support/processes.js';
import { timeLimit } from '../support/timeLimits.js';

/** `promptline datasets` as an operator runs it, on the local database: errors by line with nothing stored, then a round trip. */
let dataDir: string;
let env: Record<string, string>;
const file = (name: string, text: string) => {
  const p = path.join(dataDir, name);
  fs.writeFileSync(p, text);
  return p;
};

const SETUP_LIMIT = timeLimit({ starts: 2 }); // two CLI commands
beforeAll(async () => {
  dataDir = tempDataDir();
  env = { PROMPTLINE_URL: '', PROMPTLINE_API_KEY: '', PROMPTLINE_DATABASE_URL: '', PROMPTLINE_DATA_DIR: dataDir };
  expect((await cliAsync(['projects', 'create', 'default'], env)).status).toBe(0);
  expect((await cliAsync(['datasets', 'create', 'qa', '--description', 'help desk'], env)).status).toBe(0);
}, SETUP_LIMIT);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('promptline datasets', () => {
  it('import: a wrong file → exit 1, each problem as file:line, and no version made', { timeout: timeLimit({ starts: 2 }) }, async () => {
    const bad = file('bad.csv', 'inputs.q,expected\nfine,yes\nshort\n"quoted, ok",no\ntoo,many,cells\n');
    const res = await cliAsync(['datasets', 'import', 'qa', bad], env);
    expect([res.status, res.stdout]).toEqual([1, '']);
    expect(res.stderr).toBe(`promptline: ${bad}:3: 1 cells, the header has 2\n${bad}:5: 3 cells, the header has 2\n`);
    const shown = JSON.parse((await cliAsync(['--output', 'json', 'datasets', 'show', 'qa'], env)).stdout);
    expect(shown).toMatchObject({ dataset_id: 'qa', latest_version: 0, item_count: 0, versions: [] });
  });

  it('import then export: JSONL in, the version out as CSV and JSONL', { timeout: timeLimit({ starts: 5 }) }, async () => {
    const good = file('good.jsonl', '{"inputs": {"q": "refund?"}, "expected": "30 days", "metadata": {"topic": "billing"}}\n{"inputs": {"q": "hours?"}}\n');
    const res = await cliAsync(['datasets', 'import', 'qa', good], env);
    expect([res.status, res.stderr, res.stdout]).toEqual([0, '', 'qa: 2 items imported as version 1, which holds 2 items\n']);
    const csv = await cliAsync(['datasets', 'export', 'qa', '1', '--format', 'csv'], env);
    expect([csv.status, csv.stdout]).toEqual([0, 'inputs.q,expected,metadata.topic\r\nrefund?,30 days,billing\r\nhours?,,\r\n']);
    const out = path.join(dataDir, 'v1.jsonl');
    const jsonl = await cliAsync(['datasets', 'export', 'qa', '--out', out], env);
    expect([jsonl.status, jsonl.stderr]).toEqual([0, `qa: version 1 written to ${out}\n`]);
    expect(fs.readFileSync(out, 'utf8')).toBe(
      '{"inputs":{"q":"refund?"},"expected":"30 days","metadata":{"topic":"billing"}}\n{"inputs":{"q":"hours?"},"metadata":{}}\n',
    );
    const missing = path.join(dataDir, 'v9.csv');
    const unknown = await cliAsync(['datasets', 'export', 'qa', '9', '--out', missing], env);
    expect([unknown.status, unknown.stderr, fs.existsSync(missing)]).toEqual([1, "promptline: Dataset 'qa' has no version 9\n", false]);
    const noFormat = await cliAsync(['datasets', 'export', 'qa'], env);
    expect([noFormat.status, noFormat.stderr]).toEqual([1, 'promptline: give --format csv or jsonl: standard output has no name\n']);
  });
});
