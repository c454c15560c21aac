import type { Static } from '@sinclair/typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { RenderResponse } from '../../../src/modules/prompts/prompts.schemas.js';
import type { PromptStatsSchema, RunPromptResponse } from '../../../src/modules/runs/runs.schemas.js';
import {
  columnRequest,
  formInputs,
  parseJsonInputs,
  statsPath,
  statsWindowOf,
  unionOfVariables,
  type PromptStats,
  type RenderAnswer,
  type RunAnswer,
} from '../../../web/src/lib/playground.js';

describe("the playground's types fit the API's schemas", () => {
  it('render, run and stats', () => {
    expectTypeOf<Static<typeof RenderResponse>>().toExtend<RenderAnswer>();
    expectTypeOf<Static<typeof RunPromptResponse>>().toExtend<RunAnswer>();
    expectTypeOf<Static<typeof PromptStatsSchema>>().toExtend<PromptStats>();
  });
});

describe('JSON inputs', () => {
  it.each([
    ['', {}],
    ['  ', {}],
    ['{"n": 3, "ok": true, "tags": ["a"], "who": {"name": "Ada"}}', { n: 3, ok: true, tags: ['a'], who: { name: 'Ada' } }],
  ])('%j is the inputs %j', (text, inputs) => {
    expect(parseJsonInputs(text)).toEqual({ ok: true, inputs });
  });

  it.each([
    ['{"n": ', /^The inputs are not valid JSON: /],
    ["{'n': 1}", /^The inputs are not valid JSON: /],
    ['[1, 2]', /must be a JSON object/],
    ['3', /must be a JSON object/],
    ['null', /must be a JSON object/],
  ])('%j is refused with a reason', (text, reason) => {
    const parsed = parseJsonInputs(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toMatch(reason);
  });
});

describe('form inputs and columns', () => {
  it('gives every variable asked for, blank ones as empty strings, in order of first appearance', () => {
    expect(unionOfVariables([['a', 'b'], ['b', 'c'], []])).toEqual(['a', 'b', 'c']);
    expect(formInputs(['a', 'b'], { a: 'x\ny', stale: 'z' })).toEqual({ a: 'x\ny', b: '' });
  });

  it('sends the model override only to run, trimmed, and never a blank one', () => {
    const column = { name: 'A' as const, version: 2, model: ' echo/trial ' };
    expect(columnRequest('my prompt', column, 'render', { a: 1 })).toEqual({ path: '/prompts/my%20prompt/versions/2/render', body: { inputs: { a: 1 } } });
    expect(columnRequest('p', column, 'run', {})).toEqual({ path: '/prompts/p/versions/2/run', body: { inputs: {}, model: 'echo/trial' } });
    expect(columnRequest('p', { ...column, model: '  ' }, 'run', {}).body).toEqual({ inputs: {} });
  });
});

describe("the numbers' window", () => {
  it('is read from the URL, 7 days unless a known window is named', () => {
    expect(statsWindowOf('')).toBe('7d');
    expect(statsWindowOf('window=24h&x=1')).toBe('24h');
    expect(statsWindowOf('?window=30d')).toBe('30d');
    expect(statsWindowOf('window=1y')).toBe('7d');
    expect(statsWindowOf('window=toString')).toBe('7d');
  });

  it('asks for [now − window, now)', () => {
    const now = new Date('2030-01-31T12:00:00.000Z');
    expect(statsPath('p', '24h', now)).toBe('/prompts/p/stats?since=2030-01-30T12%3A00%3A00.000Z&until=2030-01-31T12%3A00%3A00.000Z');
    expect(decodeURIComponent(statsPath('p', '30d', now))).toBe('/prompts/p/stats?since=2030-01-01T12:00:00.000Z&until=2030-01-31T12:00:00.000Z');
  });
});
