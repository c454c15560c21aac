import { describe, expect, it } from 'vitest';
import { findSameContent } from '../../../../src/cli/import/plan.js';
import type { VersionContent } from '../../../../src/cli/import/types.js';

/** Which server version an imported one already is: what makes a second import create nothing. */
describe('findSameContent', () => {
  const server = (version: number, fields: Partial<{ template: string; messages: Array<{ role: string; content: string }>; model: string | null; params: object }>) => ({
    version,
    template: fields.template ?? null,
    messages: fields.messages ?? null,
    model: fields.model ?? null,
    params: (fields.params ?? {}) as Record<string, unknown>,
  });
  const content = (fields: Partial<VersionContent>): VersionContent => ({ model: null, params: {}, commit_message: null, ...fields });

  it.each([
    ['the same template', content({ template: 'Hi {{n}}' }), [server(1, { template: 'Hi {{n}}' })], 1],
    ['another template', content({ template: 'Hi {{n}}!' }), [server(1, { template: 'Hi {{n}}' })], null],
    ['the commit message is no content', content({ template: 'x', commit_message: 'new words' }), [server(2, { template: 'x' })], 2],
    ['params in another key order', content({ template: 'x', params: { b: 1, a: { d: 2, c: 3 } } }), [server(1, { template: 'x', params: { a: { c: 3, d: 2 }, b: 1 } })], 1],
    ['other params', content({ template: 'x', params: { temperature: 0.2 } }), [server(1, { template: 'x', params: { temperature: 0.3 } })], null],
    ['the same messages', content({ messages: [{ role: 'user', content: 'q' }] }), [server(3, { messages: [{ role: 'user', content: 'q' }] })], 3],
    ['a text template and a chat version', content({ template: 'q' }), [server(1, { messages: [{ role: 'user', content: 'q' }] })], null],
    ['another model', content({ template: 'x', model: 'openai/gpt-4o' }), [server(1, { template: 'x', model: 'openai/gpt-4.1' })], null],
    ['kept without its model once', content({ template: 'x', model: 'anthropic/claude-3' }), [server(4, { template: 'x', model: null })], 4],
    ['the exact match wins over the model-less one', content({ template: 'x', model: 'openai/gpt-4o' }), [server(1, { template: 'x' }), server(2, { template: 'x', model: 'openai/gpt-4o' })], 2],
    ['nothing on the server', content({ template: 'x' }), [], null],
  ])('%s', (_name, imported, existing, expected) => expect(findSameContent(imported, existing)).toBe(expected));
});
