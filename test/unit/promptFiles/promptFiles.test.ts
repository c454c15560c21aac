import { describe, expect, it } from 'vitest';
import { checkPromptFile } from '../../../src/cli/prompts/check.js';
import { canonicalJson, contentHash, fileContentHash, versionContent } from '../../../src/promptFiles/hash.js';
import { parsePromptFile } from '../../../src/promptFiles/parse.js';
import type { PromptFile } from '../../../src/promptFiles/schema.js';
import { serialisePromptFile } from '../../../src/promptFiles/serialise.js';

const lines = (...l: string[]) => `${l.join('\n')}\n`;

describe('parsePromptFile', () => {
  it.each([
    ['not YAML', 'prompt_id: [x\n', 2, /Flow sequence/],
    ['a duplicate key', lines('prompt_id: p', 'prompt_id: q'), 2, /Map keys must be unique/],
    ['a list, not a mapping', '- a\n', 1, /a prompt file is a mapping/],
    ['an unknown field', lines('prompt_id: p', 'template: x', 'colour: red'), 3, /^colour: Unexpected property/],
    ['a wrong role', lines('prompt_id: p', 'messages:', '  - role: bot', '    content: hi'), 3, /^messages\.0\.role: /],
    ['a missing prompt_id', lines('template: x'), 1, /^prompt_id: Expected required property/],
    ['both template and messages', lines('prompt_id: p', 'template: x', 'messages:', '  - role: user', '    content: y'), 1, /exactly one of template/],
    ['neither', lines('prompt_id: p'), 1, /exactly one of template/],
    ['a bad label', lines('prompt_id: p', 'template: x', 'labels:', '  - Prod'), 4, /^labels\.0: /],
    ['another name', lines('prompt_id: q', 'template: x'), 1, /does not match the file name \(p\.prompt\.yaml\)/],
  ])('%s', (_name, text, line, message) => {
    const result = parsePromptFile(text, 'p');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]!.line).toBe(line);
    expect(result.problems[0]!.message).toMatch(message);
  });

  it('reads a block scalar as the text it holds, and finds the line of any field', () => {
    const result = parsePromptFile(lines('# greeting', 'prompt_id: p', 'params:', '  temperature: 0.2', 'template: |', '  Hi {{name}},', '  bye.'), 'p');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.file).toEqual({ prompt_id: 'p', params: { temperature: 0.2 }, template: 'Hi {{name}},\nbye.\n' });
    expect([result.lineOf(['params', 'temperature']), result.lineOf(['template']), result.lineOf(['nope'])]).toEqual([4, 5, 2]);
  });
});

describe('serialisePromptFile', () => {
  const files: Array<[string, PromptFile]> = [
    ['one line', { prompt_id: 'a', template: 'Hi {{name}}' }],
    ['lines, indents, trailing blank lines and spaces', { prompt_id: 'b', labels: ['production'], template: 'Hi {{name}},\n  indented\ntrailing \n\n' }],
    ['a leading space', { prompt_id: 'c', template: ' lead\nx' }],
    ['no final newline', { prompt_id: 'd', template: 'a\nb' }],
    [
      'chat, model, params, fallbacks, variables',
      {
        prompt_id: 'e',
        description: 'desc: with a colon',
        tags: ['support'],
        model: 'openai/gpt-4o',
        fallbacks: ['echo/echo'],
        params: { temperature: 0.2, stop: ['\n'] },
        variables: { tier: { enum: ['free', 'pro'] }, note: { required: false, default: '' } },
        messages: [
          { role: 'system', content: 'You are {{persona}}.\nBe brief.' },
          { role: 'user', content: '{{question}}' },
        ],
      },
    ],
  ];
  it.each(files)('%s: parses back to the same file', (_name, file) => {
    const text = serialisePromptFile(file);
    const parsed = parsePromptFile(text, file.prompt_id);
    expect(parsed.ok && parsed.file).toEqual(file);
    expect(serialisePromptFile(file)).toBe(text);
  });

  it('writes multi-line text as a | block, fields in a fixed order, empty ones left out', () => {
    expect(serialisePromptFile({ template: 'Hi {{name}},\nbye.\n', params: {}, fallbacks: [], model: null, labels: ['production'], prompt_id: 'p' })).toBe(
      lines('prompt_id: p', 'labels:', '  - production', 'template: |', '  Hi {{name}},', '  bye.'),
    );
  });
});

describe('contentHash', () => {
  const base = fileContentHash({ prompt_id: 'p', template: 'Hi {{name}}' });
  it.each<[string, PromptFile, boolean]>([
    ['defaults spelled out', { prompt_id: 'p', template: 'Hi {{name}}', params: {}, fallbacks: [], model: null, variables: {} }, true],
    ['another id, labels, tags, description', { prompt_id: 'q', template: 'Hi {{name}}', labels: ['x'], tags: ['t'], description: 'd' }, true],
    ['another template', { prompt_id: 'p', template: 'Hi {{name}}!' }, false],
    ['a param', { prompt_id: 'p', template: 'Hi {{name}}', params: { temperature: 0 } }, false],
    ['a model', { prompt_id: 'p', template: 'Hi {{name}}', model: 'echo/echo' }, false],
    ['a declaration', { prompt_id: 'p', template: 'Hi {{name}}', variables: { name: {} } }, false],
  ])('%s → same hash: %s', (_name, file, same) => expect(fileContentHash(file) === base).toBe(same));

  it('is the sha256 of canonical JSON: key order changes nothing', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}');
    expect(contentHash(versionContent({ params: { a: 1, b: 2 } }))).toBe(contentHash(versionContent({ params: { b: 2, a: 1 } })));
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('checkPromptFile (offline)', () => {
  it.each([
    ['a template that does not compile', lines('prompt_id: p', 'template: "{{#a}}"'), [{ line: 2, message: expect.stringMatching(/^template: invalid template/) }]],
    [
      'a template error, on its line of a | block',
      lines('prompt_id: p', 'template: |', '  Hello,', '  {{#open}} closed as {{/shut}}', '  bye'),
      [{ line: 4, message: expect.stringMatching(/^template: invalid template: Unclosed section "open" at 27$/) }],
    ],
    [
      'an unclosed section, on the last line of its block',
      lines('prompt_id: p', 'template: |', '  Hello,', '  {{#open}} never closed', '  bye'),
      [{ line: 5, message: expect.stringMatching(/^template: invalid template: Unclosed section "open" at 34$/) }],
    ],
    ['a reserved param', lines('prompt_id: p', 'template: x', 'params:', '  stream: true'), [{ line: 4, message: expect.stringMatching(/^params\.stream: /) }]],
    ['a blank chat', lines('prompt_id: p', 'messages:', '  - role: user', '    content: " "'), [{ line: 3, message: expect.stringMatching(/^messages: every/) }]],
    [
      'a variable read but not declared',
      lines('prompt_id: p', 'template: "{{a}} {{b}}"', 'variables:', '  a: {}'),
      [{ line: 4, message: "variables.b: the templates use 'b' but it is not declared: declare every variable, or none" }],
    ],
    ['a declaration no template reads', lines('prompt_id: p', 'template: "{{a}}"', 'variables:', '  a: {}', '  z: {}'), [{ line: 5, message: "variables.z: 'z' is declared but no template uses it" }]],
  ])('%s', (_name, text, problems) => expect(checkPromptFile(text, 'p')).toEqual({ ok: false, problems }));

  it('passes a valid file, declarations or not (every model accepted: the server knows its providers)', () => {
    expect(checkPromptFile(lines('prompt_id: p', 'model: any/model', 'template: "{{a}}"'), 'p').ok).toBe(true);
    expect(checkPromptFile(lines('prompt_id: p', 'template: "{{a}}"', 'variables:', '  a: {required: false}'), 'p').ok).toBe(true);
  });
});
