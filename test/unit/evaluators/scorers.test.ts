import { describe, expect, it } from 'vitest';
import { compileScorer, type RuleDefinition } from '../../../src/modules/evaluators/scorers/index.js';
import { compileJsonSchema, problemPath } from '../../../src/modules/evaluators/scorers/jsonSchema.js';
import { parseJudgeAnswer, type JudgeScale } from '../../../src/modules/evaluators/scorers/judgeAnswer.js';
import { compileRegex } from '../../../src/modules/evaluators/scorers/regex.js';

const P = { score: 1, passed: true };
const F = { score: 0, passed: false };

describe('rule scorers', () => {
  it.each<[string, RuleDefinition, string, unknown, object]>([
    ['exact: same text', { kind: 'exact_match', settings: {} }, 'Paris', 'Paris', P],
    ['exact: case counts by default', { kind: 'exact_match', settings: {} }, 'paris', 'Paris', F],
    ['exact: case ignored', { kind: 'exact_match', settings: { case_sensitive: false } }, 'paris', 'Paris', P],
    ['exact: whitespace counts by default', { kind: 'exact_match', settings: {} }, ' Paris\n', 'Paris', F],
    ['exact: whitespace normalised', { kind: 'exact_match', settings: { normalize_whitespace: true } }, ' New \n York ', 'New York', P],
    ['exact: JSON expected, same value in another order', { kind: 'exact_match', settings: {} }, '{"b": [1, 2], "a": null}', { a: null, b: [1, 2] }, P],
    ['exact: JSON expected, other value', { kind: 'exact_match', settings: {} }, '{"a": 1}', { a: 2 }, F],
    ['exact: JSON expected, array order counts', { kind: 'exact_match', settings: {} }, '[2, 1]', [1, 2], F],
    ['exact: JSON expected, output not JSON', { kind: 'exact_match', settings: {} }, 'a: 1', { a: 1 }, { ...F, reason: 'the output is not JSON, and the expected value is' }],
    ['exact: no expected', { kind: 'exact_match', settings: {} }, 'x', undefined, { error: 'the item has no expected value' }],
    ['contains: expected text', { kind: 'contains', settings: {} }, 'The capital is Paris.', 'Paris', P],
    ['contains: fixed value wins over expected', { kind: 'contains', settings: { value: 'capital' } }, 'The capital is Paris.', 'Rome', P],
    ['contains: case', { kind: 'contains', settings: { case_sensitive: false } }, 'PARIS', 'paris', P],
    ['contains: missing', { kind: 'contains', settings: {} }, 'Rome', 'Paris', F],
    ['contains: expected not text', { kind: 'contains', settings: {} }, '12', 12, { error: 'the expected value is not text' }],
    ['regex: search semantics', { kind: 'regex', settings: { pattern: '\\d{3}' } }, 'call 555 now', undefined, P],
    ['regex: anchored', { kind: 'regex', settings: { pattern: '^\\d{3}$' } }, 'call 555 now', undefined, F],
    ['regex: flag i', { kind: 'regex', settings: { pattern: '^yes', flags: 'i' } }, 'YES sir', undefined, P],
    ['json: valid JSON without schema', { kind: 'json_schema', settings: {} }, '[1, 2]', undefined, P],
    ['json: not JSON', { kind: 'json_schema', settings: {} }, '{a: 1}', undefined, { ...F, reason: 'the output is not valid JSON' }],
    ['json: matches the schema', { kind: 'json_schema', settings: { schema: { type: 'object', required: ['age'], properties: { age: { type: 'integer' } } } } }, '{"age": 3}', undefined, P],
    ['json: fails the schema', { kind: 'json_schema', settings: { schema: { type: 'object', properties: { age: { type: 'integer' } } } } }, '{"age": "3"}', undefined, { ...F, reason: '/age must be integer' }],
    ['json: (a+)+$ on a long mismatch, linear time', { kind: 'json_schema', settings: { schema: { type: 'string', pattern: '(a+)+$' } } }, JSON.stringify(`${'a'.repeat(50_000)}!`), undefined, { ...F, reason: '/ must match pattern "(a+)+$"' }],
    ['json: (a+)+$ matched', { kind: 'json_schema', settings: { schema: { type: 'string', pattern: '(a+)+$' } } }, '"xaa"', undefined, P],
    ['numeric: within absolute tolerance', { kind: 'numeric', settings: { tolerance: 0.5 } }, ' 3.4 ', 3, P],
    ['numeric: outside absolute tolerance', { kind: 'numeric', settings: { tolerance: 0.5 } }, '3.6', '3', F],
    ['numeric: at the bound', { kind: 'numeric', settings: { tolerance: 1 } }, '4', 3, P],
    ['numeric: relative', { kind: 'numeric', settings: { tolerance: 0.1, relative: true } }, '109', 100, P],
    ['numeric: relative, outside', { kind: 'numeric', settings: { tolerance: 0.1, relative: true } }, '111', 100, F],
    ['numeric: output not a number', { kind: 'numeric', settings: { tolerance: 1 } }, '3 apples', 3, { ...F, reason: 'the output is not a number' }],
    ['numeric: expected not a number', { kind: 'numeric', settings: { tolerance: 1 } }, '3', 'three', { error: 'the expected value is not a number' }],
    ['length: within', { kind: 'length', settings: { min_chars: 2, max_chars: 5 } }, 'hello', undefined, P],
    ['length: too long', { kind: 'length', settings: { max_chars: 4 } }, 'hello', undefined, { ...F, reason: '5 characters, more than 4' }],
    ['length: too short', { kind: 'length', settings: { min_chars: 6 } }, 'hello', undefined, { ...F, reason: '5 characters, fewer than 6' }],
    ['length: code points, not UTF-16 units', { kind: 'length', settings: { max_chars: 2 } }, '😀😀', undefined, P],
  ])('%s', (_name, def, output, expected, want) => {
    expect(compileScorer(def)({ output, expected })).toEqual(want);
  });
});

describe('compileRegex refuses what the linear-time engine cannot run or does not compile', () => {
  it.each<[string, string, string | undefined, string]>([
    ['a back-reference', '(a)\\1', undefined, 'the pattern uses a back-reference (\\1), which the linear-time engine does not support'],
    ['a look-behind', '(?<!a)b', undefined, 'the pattern uses a look-behind ((?<!…), which the linear-time engine does not support'],
    ['does not compile', '(unclosed', undefined, 'the pattern is not a valid regular expression: Invalid regular expression: /(unclosed/u: Unterminated group'],
    ['unknown flag', 'a', 'g', 'flags may be any of i, m and s, each once'],
    ['repeated flag', 'a', 'ii', 'flags may be any of i, m and s, each once'],
    ['too long', 'a'.repeat(1001), undefined, 'a pattern may have at most 1000 characters'],
  ])('%s', (_name, pattern, flags, want) => {
    expect(compileRegex(flags === undefined ? { pattern } : { pattern, flags })).toEqual(want);
  });

  it('compiles the rest with its flags, nested repetition included', () => {
    const re = compileRegex({ pattern: '^[a-z]+$', flags: 'im' });
    expect(typeof re === 'object' && [String(re), re.test('x\nABC'), re.test('x1')]).toEqual(['/^[a-z]+$/im', true, false]);
    const nested = compileRegex({ pattern: '(a+)+$' });
    expect(typeof nested === 'object' && nested.test(`${'a'.repeat(50_000)}!`)).toBe(false);
  });

  it('a stored pattern the engine refuses scores every item as an error, never on the backtracking engine', () => {
    expect(compileScorer({ kind: 'regex', settings: { pattern: '(a)\\1' } })({ output: 'aa' })).toEqual({
      error: 'this evaluator version cannot score (the pattern uses a back-reference (\\1), which the linear-time engine does not support): create a new version of the evaluator',
    });
    expect(compileScorer({ kind: 'json_schema', settings: { schema: { properties: { a: { pattern: '(?=a)' } } } } })({ output: '{"a": "a"}' })).toEqual({
      error:
        'this evaluator version cannot score (/properties/a/pattern: the pattern uses a look-ahead ((?=…), which the linear-time engine does not support): create a new version of the evaluator',
    });
  });
});

describe('compileJsonSchema points at the problem', () => {
  it.each<[string, Record<string, unknown>, string[], RegExp]>([
    ['a wrong type keyword', { type: 'object', properties: { age: { type: 'integr' } } }, ['properties', 'age', 'type'], /must be equal to one of the allowed values|must match a schema in anyOf/],
    ['an unknown keyword (strict)', { type: 'object', propertiez: {} }, [], /unknown keyword: "propertiez"/],
    ['minimum not a number', { minimum: 'one' }, ['minimum'], /must be number/],
    ['a back-reference', { type: 'string', pattern: '(a)\\1' }, ['pattern'], /^the pattern uses a back-reference \(\\1\), which the linear-time engine does not support$/],
    ['a look-ahead in patternProperties', { patternProperties: { '(?=a)': {} } }, ['patternProperties', '(?=a)'], /uses a look-ahead/],
  ])('%s', (_name, schema, path, message) => {
    const out = compileJsonSchema(schema);
    expect(typeof out).toBe('object');
    const problem = out as { pointer: string; message: string };
    expect(problemPath(problem)).toEqual(path);
    expect(problem.message).toMatch(message);
  });
});

describe('parseJudgeAnswer', () => {
  it.each<[string, string, JudgeScale, object]>([
    ['JSON pass/fail', '{"score": "pass", "reasoning": "cites the source"}', 'pass_fail', { score: 1, passed: true, reasoning: 'cites the source' }],
    ['JSON boolean', '{"score": false}', 'pass_fail', { score: 0, passed: false }],
    ['JSON 1/0', '{"score": 1, "reasoning": "ok"}', 'pass_fail', { score: 1, passed: true, reasoning: 'ok' }],
    ['JSON 1-5', '{"score": 4, "reasoning": "mostly right"}', '1-5', { score: 4, passed: null, reasoning: 'mostly right' }],
    ['JSON 1-5 as text', '{"score": "2"}', '1-5', { score: 2, passed: null }],
    ['JSON in a fence, with words around it', 'Here you go:\n```json\n{"score": 5, "reasoning": "perfect"}\n```', '1-5', { score: 5, passed: null, reasoning: 'perfect' }],
    ['JSON inside prose', 'My verdict is {"score": "fail"} as shown', 'pass_fail', { score: 0, passed: false }],
    ['JSON without score', '{"verdict": "pass"}', 'pass_fail', { error: 'the JSON answer has no "score"' }],
    ['JSON score out of range', '{"score": 6}', '1-5', { error: 'the score 6 is not a whole number from 1 to 5' }],
    ['JSON score not whole', '{"score": 3.5}', '1-5', { error: 'the score 3.5 is not a whole number from 1 to 5' }],
    ['JSON score not pass/fail', '{"score": "maybe"}', 'pass_fail', { error: 'the score "maybe" is not pass or fail' }],
    ['plain PASS', 'PASS', 'pass_fail', { score: 1, passed: true }],
    ['plain with reasoning', 'Fail. It invents a date.', 'pass_fail', { score: 0, passed: false, reasoning: 'Fail. It invents a date.' }],
    ['plain Score: 3/5', 'Score: 3/5', '1-5', { score: 3, passed: null, reasoning: 'Score: 3/5' }],
    ['plain bold score', '**Score:** 4', '1-5', { score: 4, passed: null, reasoning: '**Score:** 4' }],
    ['plain digit', '2', '1-5', { score: 2, passed: null }],
    ['plain out of range', '7', '1-5', { error: 'the score 7 is not a whole number from 1 to 5' }],
    ['plain word on a 1-5 scale', 'good', '1-5', { error: 'the score "good" is not a whole number from 1 to 5' }],
    ['nothing', '   ', 'pass_fail', { error: 'no score found in the answer' }],
  ])('%s', (_name, text, scale, want) => {
    expect(parseJudgeAnswer(text, scale)).toEqual(want);
  });
});
