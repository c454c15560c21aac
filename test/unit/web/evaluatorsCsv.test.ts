import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readItemFile } from '../../../src/cli/datasets/itemFiles.js';
import { parseCsv } from '../../../web/src/lib/csvItems.js';
import { EMPTY_SETTINGS, formOf, settingsBody, settingsText } from '../../../web/src/lib/evaluators.js';

describe("the console's CSV import (the CLI's columns)", () => {
  it('reads inputs.<name>, expected and metadata.<name> columns, quoted cells with commas and line breaks, an empty expected as none', async () => {
    const csv = 'inputs.question,expected,metadata.source\r\n"Capital of France, please?",Paris,atlas\r\n"two\nlines",,\r\n';
    expect(await parseCsv(csv)).toEqual({
      items: [
        { inputs: { question: 'Capital of France, please?' }, expected: 'Paris', metadata: { source: 'atlas' } },
        { inputs: { question: 'two\nlines' }, metadata: { source: '' } },
      ],
      errors: [],
    });
  });

  it('reads expected_json as JSON and skips blank lines', async () => {
    const { items, errors } = await parseCsv('inputs.a,expected_json\n1,"{""n"": 2}"\n\n2,[1]\n');
    expect(errors).toEqual([]);
    expect(items.map((i) => i.expected)).toEqual([{ n: 2 }, [1]]);
  });

  it("reads the CLI's export of text a spreadsheet would run as the text it was (the apostrophe it added removed)", async () => {
    const { items, errors } = await parseCsv(`inputs.a,expected,metadata.m\n'=1+1,'@x,''=kept\n'hello,-5,'-5\n`);
    expect(errors).toEqual([]);
    expect(items).toEqual([
      { inputs: { a: '=1+1' }, expected: '@x', metadata: { m: "'=kept" } },
      { inputs: { a: "'hello" }, expected: '-5', metadata: { m: '-5' } },
    ]);
  });

  it.each([
    ['inputs.a,expected\nx,y,z\n', ['line 2: 3 cells, the header has 2']],
    ['inputs.a,expected_json\nx,{nope\n', ['line 2: expected_json is not JSON']],
    ['question,expected\nx,y\n', ['line 1: column "question": columns are inputs.<name>, expected, expected_json and metadata.<name>']],
    ['expected\ny\n', ['line 1: no inputs.<name> column']],
    ['inputs.a,expected,expected_json\n', ['line 1: give expected or expected_json, not both']],
    ['inputs.a,inputs.a\n', ['line 1: column "inputs.a" appears twice']],
    ['inputs.a\n"unclosed\n', ['line ']],
    ['inputs.a\n', ['line 2: no items under the header row']],
  ])('names the line of each problem in %j and gives no items', async (csv, expected) => {
    const { items, errors } = await parseCsv(csv);
    expect(items).toEqual([]);
    expect(errors).toHaveLength(expected.length);
    for (const [i, start] of expected.entries()) expect(errors[i]?.startsWith(start), errors[i]).toBe(true);
  });

  it('reports every bad line of a file, not only the first, and keeps none of the good ones', async () => {
    const { items, errors } = await parseCsv('inputs.a,expected\nok,1\nbad\nok,2\nalso,bad,row\n');
    expect(errors).toEqual(['line 3: 1 cells, the header has 2', 'line 5: 3 cells, the header has 2']);
    expect(items).toHaveLength(2); // the page sends nothing while errors is not empty
  });

  it("reads a file as the CLI's import does: the same items", async () => {
    const csv = '\uFEFFinputs.q,inputs.lang,expected_json,metadata.tag\r\n"a, b",en,"{""x"": [1]}",t1\r\n"line\nbreak",fr,,\r\n\r\nplain,de,7,t3\r\n';
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'csv-items-')), 'items.csv');
    fs.writeFileSync(file, csv);
    try {
      const cli = await readItemFile(file, 'csv');
      expect(await parseCsv(csv)).toEqual({ items: cli.items, errors: [] });
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });

  it('answers no items and no problem for empty text (the page says so)', async () => {
    expect(await parseCsv('')).toEqual({ items: [], errors: [] });
  });
});

describe("the console's evaluator settings", () => {
  it("sends only the kind's settings, numbers as numbers, blanks left out", () => {
    const form = { ...EMPTY_SETTINGS, value: 'thanks', pattern: '^a', tolerance: '0.5', min_chars: '', max_chars: '200' };
    expect(settingsBody('contains', form)).toEqual({ body: { case_sensitive: true, value: 'thanks' } });
    expect(settingsBody('regex', form)).toEqual({ body: { pattern: '^a', flags: undefined } });
    expect(settingsBody('numeric', form)).toEqual({ body: { tolerance: 0.5, relative: false } });
    expect(settingsBody('length', form)).toEqual({ body: { min_chars: undefined, max_chars: 200 } });
    expect(settingsBody('exact_match', form)).toEqual({ body: { case_sensitive: true, normalize_whitespace: false } });
  });

  it('sends what is not a number as typed, for the API to name under its field', () => {
    expect(settingsBody('numeric', { ...EMPTY_SETTINGS, tolerance: 'abc' })).toEqual({ body: { tolerance: 'abc', relative: false } });
  });

  it('parses the JSON Schema in the page, refusing what is not a JSON object before sending', () => {
    expect(settingsBody('json_schema', { ...EMPTY_SETTINGS, schema: '{"type": "object"}' })).toEqual({ body: { schema: { type: 'object' } } });
    expect(settingsBody('json_schema', EMPTY_SETTINGS)).toEqual({ body: {} });
    expect(settingsBody('json_schema', { ...EMPTY_SETTINGS, schema: '{nope' })).toMatchObject({ field: 'schema' });
    expect(settingsBody('json_schema', { ...EMPTY_SETTINGS, schema: '[1]' })).toMatchObject({ field: 'schema' });
  });

  it("names a judge's version by label or by number, or leaves both out", () => {
    const judge = { ...EMPTY_SETTINGS, prompt_id: 'judge', rubric: 'Is it polite?', scale: '1-5' as const };
    expect(settingsBody('llm_judge', { ...judge, judge_version: 'label:staging' })).toEqual({
      body: { prompt_id: 'judge', label: 'staging', version: undefined, scale: '1-5', rubric: 'Is it polite?' },
    });
    expect(settingsBody('llm_judge', { ...judge, judge_version: 'version:3' })).toMatchObject({ body: { label: undefined, version: 3 } });
    expect(settingsBody('llm_judge', judge)).toMatchObject({ body: { label: undefined, version: undefined } });
  });

  it('starts a new version from the stored settings, and sends them back unchanged', () => {
    const stored = { prompt_id: 'judge', label: null, version: 2, scale: '1-5', rubric: 'Polite?' };
    const form = formOf(stored);
    expect(form.judge_version).toBe('version:2');
    expect(settingsBody('llm_judge', form)).toEqual({ body: { prompt_id: 'judge', label: undefined, version: 2, scale: '1-5', rubric: 'Polite?' } });
    expect(settingsBody('json_schema', formOf({ schema: { type: 'object' } }))).toEqual({ body: { schema: { type: 'object' } } });
    expect(settingsBody('length', formOf({ max_chars: 200 }))).toEqual({ body: { min_chars: undefined, max_chars: 200 } });
  });

  it('writes settings in a line, leaving nulls out', () => {
    expect(settingsText({ max_chars: 200, label: null, pattern: '^a' })).toBe('max_chars: 200, pattern: ^a');
    expect(settingsText({})).toBe('no settings');
  });
});
