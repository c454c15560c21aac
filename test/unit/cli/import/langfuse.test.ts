import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mapLangfuse } from '../../../../src/cli/import/langfuse.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../../fixtures/import/langfuse');
const fixture = (name: string): unknown => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));

const text = (version: number, prompt: unknown, extra: Record<string, unknown> = {}) => ({ name: 'p', version, type: 'text', prompt, config: {}, labels: [], tags: [], ...extra });

describe('mapLangfuse on the paginated list fixture', () => {
  const mapped = mapLangfuse(fixture('prompts.json'));

  it('keeps each prompt, its versions oldest first, the model mapped to a provider and the model parameters', () => {
    const critic = mapped.prompts.find((p) => p.prompt_id === 'movie-critic')!;
    expect(critic.versions.map((v) => v.origin)).toEqual(['v1', 'v2']);
    expect(critic.versions[1]).toEqual({
      origin: 'v2',
      content: {
        template: 'As a {{criticLevel}} movie critic, do you like {{movie}}? Answer in one paragraph.',
        model: 'openai/gpt-4o',
        params: { temperature: 0.7 },
        commit_message: 'one paragraph',
      },
      labels: ['production'],
    });
    expect(critic.versions[0]!.labels).toEqual([]);
  });

  it('maps chat messages, a folder name to dots, and leaves placeholders out', () => {
    const triage = mapped.prompts.find((p) => p.prompt_id === 'support.triage')!;
    expect(triage.versions[0]!.content).toEqual({
      messages: [
        { role: 'system', content: 'You triage tickets for {{product}}.' },
        { role: 'user', content: '{{ticket}}' },
      ],
      model: 'anthropic/claude-3-5-sonnet-20241022',
      params: { max_tokens: 300 },
      commit_message: 'first triage',
    });
    expect(triage.versions[0]!.labels).toEqual(['staging']);
  });

  it('reports what it could not map, per prompt and version, with why', () => {
    expect(mapped.problems).toEqual([
      { prompt: 'listed-only', version: null, reason: expect.stringContaining("only the prompt's metadata") },
      { prompt: 'movie-critic', version: null, reason: 'tags "movies" not kept (Promptline prompts have no tags)' },
      { prompt: 'movie-critic', version: 'v1', reason: expect.stringContaining("label 'Staging Env' does not fit") },
      { prompt: 'movie-critic', version: 'v2', reason: "config 'supported_languages': not a model parameter, left out" },
      { prompt: 'support/triage', version: null, reason: "imported as prompt 'support.triage' (Promptline ids take A-Z a-z 0-9 _ . - only)" },
      { prompt: 'support/triage', version: 'v1', reason: expect.stringContaining("placeholder 'history'") },
      { prompt: 'composed', version: 'v1', reason: expect.stringContaining('references another prompt (@@@langfusePrompt:name=base|label=production@@@)') },
      { prompt: 'conditional', version: 'v1', reason: expect.stringContaining("'{{#vip}}', '{{/vip}}': not a plain {{variable}}") },
    ]);
    expect(mapped.prompts.find((p) => p.prompt_id === 'composed')!.versions).toEqual([]);
  });
});

describe('mapLangfuse: shapes and vectors', () => {
  it('a single prompt object (GET /api/public/v2/prompts/{name})', () => {
    const mapped = mapLangfuse(fixture('single.json'));
    expect(mapped.problems).toEqual([]);
    expect(mapped.prompts).toEqual([
      {
        prompt_id: 'greeter',
        description: null,
        versions: [
          {
            origin: 'v1',
            content: {
              messages: [
                { role: 'system', content: 'You greet people warmly.' },
                { role: 'user', content: 'Greet {{name}}.' },
              ],
              model: 'openai/gpt-4o-mini',
              params: { temperature: 0.2 },
              commit_message: 'first',
            },
            labels: ['production'],
          },
        ],
      },
    ]);
  });

  it.each([
    ['a plain list', [text(1, 'a')], ['v1']],
    ['versions out of order', [text(3, 'c'), text(1, 'a'), text(2, 'b')], ['v1', 'v2', 'v3']],
    ['a version twice', [text(1, 'a'), text(1, 'b')], ['v1']],
    ['a version that is no number', [text(0, 'a'), text(2, 'b')], ['v2']],
  ])('%s → versions %j', (_name, json, origins) => {
    expect(mapLangfuse(json).prompts[0]!.versions.map((v) => v.origin)).toEqual(origins);
  });

  it.each([
    ['no name', [{ version: 1, prompt: 'x' }], { prompt: 'item 1', version: null, reason: 'not a Langfuse prompt (no name): skipped' }],
    ['no prompt', [text(1, undefined)], { prompt: 'p', version: 'v1', reason: 'no prompt text or messages: skipped' }],
    [
      'a tool message',
      [text(1, [{ role: 'tool', content: 'x' }], { type: 'chat' })],
      { prompt: 'p', version: 'v1', reason: 'message 1: not a {role: system|user|assistant, content: string} message: skipped the version' },
    ],
    ['an unknown model', [text(1, 'x', { config: { model: 'llama3:8b' } })], { prompt: 'p', version: 'v1', reason: expect.stringContaining('unknown provider') }],
    ['an unusable name', [{ ...text(1, 'x'), name: '%%%' }], { prompt: '%%%', version: null, reason: expect.stringContaining('cannot be a Promptline prompt id') }],
  ])('%s is reported', (_name, json, problem) => {
    expect(mapLangfuse(json).problems).toEqual([problem]);
  });

  it('--provider names the provider of bare model names', () => {
    const mapped = mapLangfuse([text(1, 'x', { config: { model: 'llama3:8b' } })], { provider: 'local' });
    expect(mapped.prompts[0]!.versions[0]!.content.model).toBe('local/llama3:8b');
  });

  it('a label that moved between versions in the file stays on each version it was on (the plan keeps the later)', () => {
    const mapped = mapLangfuse([text(1, 'a', { labels: ['staging'] }), text(2, 'b', { labels: ['staging'] })]);
    expect(mapped.prompts[0]!.versions.map((v) => v.labels)).toEqual([['staging'], ['staging']]);
  });
});
