import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mapOpenAI } from '../../../../src/cli/import/openai.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../../fixtures/import/openai');
const fixture = (name: string): unknown => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));

describe('mapOpenAI on the exported prompt fixture', () => {
  const mapped = mapOpenAI(fixture('prompt.json'));
  const prompt = mapped.prompts[0]!;

  it('one prompt named by its id, described by its name, versions in order', () => {
    expect(mapped.prompts).toHaveLength(1);
    expect(prompt.prompt_id).toBe('pmpt_6849a1b2c3d4e5f6');
    expect(prompt.description).toBe('Support reply');
    expect(prompt.versions.map((v) => v.origin)).toEqual(['version 1', 'version 2']);
  });

  it('instructions become the system message, input parts their text, model settings chat parameters', () => {
    expect(prompt.versions[0]!.content).toEqual({
      messages: [
        { role: 'system', content: 'You are a helpful support assistant for {{company}}. Be concise.' },
        { role: 'user', content: 'Customer {{customer_name}} asks about: {{issue}}' },
      ],
      model: 'openai/gpt-4.1',
      params: { temperature: 0.3, max_completion_tokens: 400 },
      commit_message: 'imported from OpenAI prompt pmpt_6849a1b2c3d4e5f6 version 1',
    });
    expect(prompt.versions[1]!.content).toMatchObject({
      messages: [
        { role: 'system', content: 'You are a friendly support assistant for {{company}}. Answer in JSON.' },
        { role: 'user', content: 'Customer {{customer_name}} asks about: {{issue}}' },
      ],
      model: 'openai/gpt-5',
      params: {
        reasoning_effort: 'low',
        verbosity: 'low',
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'reply', schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] }, strict: true },
        },
      },
    });
  });

  it('reports variable values, tools and image inputs', () => {
    expect(mapped.problems).toEqual([
      { prompt: 'pmpt_6849a1b2c3d4e5f6', version: 'version 1', reason: expect.stringContaining('variable values company, customer_name, issue') },
      { prompt: 'pmpt_6849a1b2c3d4e5f6', version: 'version 2', reason: '1 tool(s): Promptline versions carry no tools, left out' },
      { prompt: 'pmpt_6849a1b2c3d4e5f6', version: 'version 3', reason: expect.stringContaining('skipped the version') },
    ]);
  });
});

describe('mapOpenAI: shapes and vectors', () => {
  const one = (extra: Record<string, unknown>) => ({ id: 'pmpt_1', version: '1', instructions: 'Hi {{name}}', model: 'gpt-4o', ...extra });

  it.each([
    ['one object', one({})],
    ['a list', [one({})]],
    ["OpenAI's list envelope", { object: 'list', data: [one({})] }],
    ['a prompt with versions', { id: 'pmpt_1', versions: [{ version: '1', instructions: 'Hi {{name}}', model: 'gpt-4o' }] }],
  ])('%s', (_name, json) => {
    expect(mapOpenAI(json).prompts.map((p) => [p.prompt_id, p.versions.map((v) => v.content.messages)])).toEqual([
      ['pmpt_1', [[{ role: 'system', content: 'Hi {{name}}' }]]],
    ]);
  });

  it.each([
    ['no id', { version: '1', instructions: 'x' }, 'not an OpenAI prompt (no id): skipped'],
    ['no content', one({ instructions: undefined }), 'no instructions or messages: skipped'],
    ['a Mustache section', one({ instructions: '{{#a}}x{{/a}}' }), expect.stringContaining('not a plain {{variable}}')],
    ['a text format it cannot carry', one({ text: { format: { type: 'grammar' } } }), "text format 'grammar': left out"],
  ])('%s is reported', (_name, json, reason) => {
    expect(mapOpenAI(json).problems.map((p) => p.reason)).toEqual([reason]);
  });

  it('--provider replaces the default openai provider', () => {
    expect(mapOpenAI(one({}), { provider: 'azure' }).prompts[0]!.versions[0]!.content.model).toBe('azure/gpt-4o');
  });

  it('json_object output becomes response_format json_object', () => {
    expect(mapOpenAI(one({ text: { format: { type: 'json_object' } } })).prompts[0]!.versions[0]!.content.params).toEqual({ response_format: { type: 'json_object' } });
  });
});
