import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../../src/modules/prompts/template.js';
import { templateVariables } from '../../../web/src/lib/variables.js';
import { contentText, settingChanges, wordDiff } from '../../../web/src/lib/versionDiff.js';
import type { Version } from '../../../web/src/lib/types.js';

describe("the editor's live variables agree with what the server stores", () => {
  it.each([
    'Hi {{name}}',
    'Hi {{name}}, {{name}} again, and {{{raw}}} and {{&amp}}',
    '{{#items}}{{title}} {{.}}{{/items}}{{^items}}none{{/items}} for {{user.name}}',
    '{{! a comment }}{{#a}}{{#b}}{{c}}{{/b}}{{/a}}',
    'no variables at all',
    '{{.}} alone',
  ])('%s', (template) => {
    expect(templateVariables([template])).toEqual({ variables: [...compileTemplate(template).variables], error: null });
  });

  it('joins the messages of a chat prompt, and names what the server would refuse', () => {
    expect(templateVariables(['You help {{company}}.', 'Hi, I am {{name}} from {{company}}']).variables).toEqual(['company', 'name']);
    expect(templateVariables(['{{> partial}}']).error).toBe('partials ({{> name}}) are not supported');
    expect(templateVariables(['{{=<% %>=}}']).error).toBe('delimiter changes ({{=<% %>=}}) are not supported');
    expect(templateVariables(['{{#open}} never closed']).error).toMatch(/Unclosed section "open"/);
  });
});

const version = (over: Partial<Version>): Version => ({
  prompt_id: 'p',
  version: 1,
  type: 'text',
  template: 'Hi {{name}}',
  messages: null,
  model: null,
  params: {},
  fallbacks: [],
  variables: ['name'],
  commit_message: null,
  labels: [],
  created_at: '2026-01-01T00:00:00.000Z',
  source: null,
  ...over,
});

describe('comparing two versions', () => {
  it('marks words removed and added, keeping whitespace and line breaks', () => {
    const left = 'Write a short welcome\nfor {{name}}.';
    const right = 'Write a warm welcome\nfor {{name}}!';
    const segments = wordDiff(left, right);
    const text = (kinds: string[]) => segments.filter((s) => kinds.includes(s.kind)).map((s) => s.text);
    expect(text(['removed'])).toEqual(['short', '.']);
    expect(text(['added'])).toEqual(['warm', '!']);
    // Each side is exactly what it shares plus what only it has.
    expect(text(['same', 'removed']).join('')).toBe(left);
    expect(text(['same', 'added']).join('')).toBe(right);
  });

  it('reads a chat prompt as role: content blocks', () => {
    expect(contentText(version({ type: 'chat', template: null, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi {{name}}' }] }))).toBe(
      'system: Be brief.\n\nuser: Hi {{name}}',
    );
  });

  it('lists only the settings that differ', () => {
    expect(settingChanges(version({}), version({ model: 'openai/gpt-4o-mini', params: { temperature: 0.2 } }))).toEqual([
      { field: 'model', left: 'the server default', right: 'openai/gpt-4o-mini' },
      { field: 'params', left: '{}', right: '{"temperature":0.2}' },
    ]);
    expect(settingChanges(version({}), version({ version: 2, commit_message: 'x' }))).toEqual([]);
  });
});
