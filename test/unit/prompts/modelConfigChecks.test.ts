import { describe, expect, it } from 'vitest';
import { checkModelConfig, compileOutputCheck } from '../../../src/modules/prompts/modelConfigChecks.js';
import { dataUrlPlaceholder, withoutDataUrls } from '../../../src/modules/prompts/messageContent.js';
import type { ResponseFormat } from '../../../src/lib/modelConfig.js';

const schema = (s: Record<string, unknown>): ResponseFormat => ({ type: 'json_schema', json_schema: { name: 'x', schema: s } });
const PERSON = schema({ type: 'object', properties: { age: { type: 'integer', minimum: 0 } }, required: ['age'], additionalProperties: false });

describe('the output check of a response_format', () => {
  it.each([
    [{ type: 'json_object' } as ResponseFormat, '{"a": 1}', { valid: true, error: null }],
    [{ type: 'json_object' } as ResponseFormat, '[1]', { valid: false, error: 'the output is JSON but not an object' }],
    [{ type: 'json_object' } as ResponseFormat, '{"a": ', { valid: false, error: 'the output is not valid JSON' }],
    [PERSON, '{"age": 3}', { valid: true, error: null }],
    [PERSON, '{"age": -1}', { valid: false, error: '/age must be >= 0' }],
    [PERSON, '{"age": 1.5}', { valid: false, error: '/age must be integer' }],
    [PERSON, '{}', { valid: false, error: "/ must have required property 'age'" }],
    [PERSON, '{"age": 1, "b": 2}', { valid: false, error: '/ must NOT have additional properties' }],
  ])('%j on %s', (format, output, verdict) => {
    expect(compileOutputCheck(format)!(output)).toEqual(verdict);
  });

  it('is null for text and for no format', () => {
    expect(compileOutputCheck({ type: 'text' })).toBeNull();
    expect(compileOutputCheck(undefined)).toBeNull();
  });

  it('compiles two versions whose schemas share an $id (nothing stays in ajv)', () => {
    const a = compileOutputCheck(schema({ $id: 'https://example.com/x.json', type: 'string' }))!;
    const b = compileOutputCheck(schema({ $id: 'https://example.com/x.json', type: 'number' }))!;
    expect([a('"s"').valid, b('"s"').valid]).toEqual([true, false]);
  });
});

describe('checking a version config', () => {
  const paths = (input: Parameters<typeof checkModelConfig>[0]) => checkModelConfig(input).issues.map((i) => i.path);
  it.each([
    ['an unknown keyword value', { tools: [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object', minProperties: -1 } } }] }, [['tools', 0, 'function', 'parameters', 'minProperties']]],
    ['an unresolvable $ref', { tools: [{ type: 'function' as const, function: { name: 'f', parameters: { $ref: '#/nowhere' } } }] }, [['tools', 0, 'function', 'parameters']]],
    ['none given', {}, []],
    ['tool_choice none without tools', { tool_choice: 'none' }, []],
    ['json_schema beside json_object', { response_format: { type: 'json_object' as const, json_schema: { name: 'x', schema: {} } } }, [['response_format', 'json_schema']]],
    ['no tools', { tools: [] }, [['tools']]],
    [
      'a pattern that backtracked exponentially, now linear',
      { response_format: { type: 'json_schema' as const, json_schema: { name: 'x', schema: { properties: { a: { type: 'string', pattern: '^(a+)+$' } } } } } },
      [],
    ],
    [
      'a back-reference',
      { response_format: { type: 'json_schema' as const, json_schema: { name: 'x', schema: { properties: { a: { type: 'string', pattern: '(a)\\1' } } } } } },
      [['response_format', 'json_schema', 'schema', 'properties', 'a', 'pattern']],
    ],
    [
      'a look-behind among patternProperties',
      { response_format: { type: 'json_schema' as const, json_schema: { name: 'x', schema: { patternProperties: { '(?<=a)b': {} } } } } },
      [['response_format', 'json_schema', 'schema', 'patternProperties', '(?<=a)b']],
    ],
    [
      'a property named pattern',
      { response_format: { type: 'json_schema' as const, json_schema: { name: 'x', schema: { properties: { pattern: { type: 'string' } } } } } },
      [],
    ],
    ['a nested repetition in a tool', { tools: [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'string', pattern: '^(a+)+$' } } }] }, []],
    [
      'a look-ahead in a tool: ajv compiles its patterns on the same engine',
      { tools: [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'string', pattern: '^(?!x)' } } }] },
      [['tools', 0, 'function', 'parameters', 'pattern']],
    ],
    [
      'a pattern key inside const is data',
      { response_format: { type: 'json_schema' as const, json_schema: { name: 'x', schema: { const: { pattern: '(a)\\1' } } } } },
      [],
    ],
  ])('%s', (_name, input, expected) => {
    expect(paths(input)).toEqual(expected);
  });
});

describe('data URLs kept out of stored runs', () => {
  it('replaces long data URLs at any depth by their placeholder, and nothing else', () => {
    const url = `data:image/jpeg;base64,${'A'.repeat(1000)}`;
    expect(dataUrlPlaceholder(url)).toBe('data:image/jpeg;base64,…(1023 bytes)');
    expect(withoutDataUrls({ a: url, b: ['data:x', { c: url }], d: 'https://x', e: 3 })).toEqual({
      a: 'data:image/jpeg;base64,…(1023 bytes)',
      b: ['data:x', { c: 'data:image/jpeg;base64,…(1023 bytes)' }],
      d: 'https://x',
      e: 3,
    });
  });
});
