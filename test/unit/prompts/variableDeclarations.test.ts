import { codePointLength } from '../../../src/lib/pythonText.js';
import { describe, expect, it } from 'vitest';
import { Invalid } from '../../../src/lib/errors.js';
import { compileInputChecks } from '../../../src/modules/prompts/inputChecks.js';
import { compileTemplate } from '../../../src/modules/prompts/template.js';
import {
  checkDeclarations,
  checkString,
  compilePattern,
  namesUsed,
  normaliseDeclarations,
  type StringRules,
} from '../../../src/modules/prompts/variableDeclarations.js';

/** Each issue as [path, a few words of its reason]. */
const issuesOf = (declared: unknown, used: string[]) => checkDeclarations(declared, used).map((i) => [i.path, i.reason]);

describe('checkDeclarations: declarations against the names the templates use', () => {
  it.each<[string, unknown, string[], Array<[Array<string | number>, string]>]>([
    ['all declared and used', { a: {}, b: { required: false, default: 'x' } }, ['a', 'b'], []],
    ['nothing used, nothing declared', {}, [], []],
    ['a used name undeclared', { a: {} }, ['a', 'b'], [[['b'], 'not declared']]],
    ['a declared name unused', { a: {}, z: {} }, ['a'], [[['z'], 'no template uses it']]],
    ['not an object', ['a'], ['a'], [[[], 'must be an object']]],
    ['a declaration not an object', { a: 'string' }, ['a'], [[['a'], 'must be an object']]],
    ['an unknown key', { a: { type: 'string' } }, ['a'], [[['a', 'type'], "unknown key 'type'"]]],
    ['required not a boolean', { a: { required: 'no' } }, ['a'], [[['a', 'required'], 'true or false']]],
    ['a required one with a default', { a: { default: 'x' } }, ['a'], [[['a', 'default'], 'only an optional']]],
    ['required: true with a default', { a: { required: true, default: 'x' } }, ['a'], [[['a', 'default'], 'only an optional']]],
    ['a default not a string', { a: { required: false, default: 3 } }, ['a'], [[['a', 'default'], 'must be a string']]],
    ['an empty enum', { a: { enum: [] } }, ['a'], [[['a', 'enum'], 'empty']]],
    ['an enum of numbers', { a: { enum: [1] } }, ['a'], [[['a', 'enum'], 'list of strings']]],
    ['an enum with a value twice', { a: { enum: ['x', 'x'] } }, ['a'], [[['a', 'enum'], 'twice']]],
    ['min over max', { a: { min_length: 2, max_length: 1 } }, ['a'], [[['a', 'min_length'], 'greater than max_length']]],
    ['min equal to max', { a: { min_length: 2, max_length: 2 } }, ['a'], []],
    ['a negative length', { a: { max_length: -1 } }, ['a'], [[['a', 'max_length'], 'whole number']]],
    ['a fractional length', { a: { min_length: 1.5 } }, ['a'], [[['a', 'min_length'], 'whole number']]],
    ['a pattern that does not compile', { a: { pattern: '(' } }, ['a'], [[['a', 'pattern'], 'not a valid regular expression']]],
    ['a pattern valid only without u', { a: { pattern: '\\-' } }, ['a'], [[['a', 'pattern'], 'not a valid regular expression']]],
    ['a back-reference', { a: { pattern: '(a)\\1' } }, ['a'], [[['a', 'pattern'], 'uses a back-reference (\\1), which the linear-time engine does not support']]],
    ['a look-ahead', { a: { pattern: '^(?=x)' } }, ['a'], [[['a', 'pattern'], 'uses a look-ahead']]],
    ['nested repetition runs in linear time: accepted', { a: { pattern: '(a*)*b' } }, ['a'], []],
    ['a default outside the enum', { a: { required: false, enum: ['x'], default: 'y' } }, ['a'], [[['a', 'default'], "Input should be 'x'"]]],
    ['a default too short', { a: { required: false, min_length: 2, default: 'y' } }, ['a'], [[['a', 'default'], 'at least 2 characters']]],
    ['a default off the pattern', { a: { required: false, pattern: '^\\d+$', default: 'y' } }, ['a'], [[['a', 'default'], 'should match pattern']]],
    ['an empty default within the rules', { a: { required: false, max_length: 3, default: '' } }, ['a'], []],
    [
      'every problem at once',
      { a: { enum: [] }, b: { min_length: 3, max_length: 1 } },
      ['a', 'c'],
      [
        [['a', 'enum'], 'empty'],
        [['b'], 'no template uses it'],
        [['b', 'min_length'], 'greater than'],
        [['c'], 'not declared'],
      ],
    ],
  ])('%s', (_, declared, used, expected) => {
    const issues = issuesOf(declared, used);
    expect(issues.map(([path]) => path)).toEqual(expected.map(([path]) => path));
    for (const [i, [, words]] of expected.entries()) expect(issues[i]![1]).toContain(words);
  });

  it('refuses a declared name whose fields the templates read', () => {
    expect(issuesOf({ user: {} }, ['user']).length).toBe(0);
    expect(checkDeclarations({ user: {} }, ['user'], ['user']).map((i) => [i.path, i.reason])).toEqual([
      [['user'], expect.stringContaining('a declared variable is a string')],
    ]);
  });

  it.each<[string, string[], string[]]>([
    ['Hi {{name}}', ['name'], []],
    ['{{#vip}}Dear {{name}}{{/vip}}{{^vip}}{{.}}{{/vip}}', ['vip', 'name'], []],
    ['{{user.name}} {{#a}}{{b.c}}{{/a}}', ['user', 'a', 'b'], ['user', 'b']],
    ['{{! comment }}text', [], []],
  ])('namesUsed(%s): every depth, and the dotted ones', (source, used, dotted) => {
    expect(namesUsed([compileTemplate(source)])).toEqual({ used, dotted });
  });

  it('normalises: required always present, keys in one order', () => {
    expect(normaliseDeclarations({ a: { default: '', required: false, max_length: 3 }, b: {} })).toEqual({
      a: { required: false, max_length: 3, default: '' },
      b: { required: true },
    });
    expect(Object.keys(normaliseDeclarations({ a: { default: '', required: false, max_length: 3 } }).a!)).toEqual(['required', 'max_length', 'default']);
  });
});

describe('checkString: pydantic types, messages and ctx', () => {
  const rules: StringRules = { re: null };
  it.each<[string, Partial<StringRules>, string, unknown]>([
    ['passes with no rules', {}, 'x', null],
    ['literal_error of two', { enum: ['free', 'pro'] }, 'gold', { type: 'literal_error', msg: "Input should be 'free' or 'pro'", ctx: { expected: "'free' or 'pro'" } }],
    ['literal_error of three, a quote inside', { enum: ['a', 'b', "c'd"] }, 'z', { type: 'literal_error', msg: `Input should be 'a', 'b' or "c'd"`, ctx: { expected: `'a', 'b' or "c'd"` } }],
    ['literal_error of one', { enum: ['a'] }, 'z', { type: 'literal_error', msg: "Input should be 'a'", ctx: { expected: "'a'" } }],
    ['too short, singular', { min: 1 }, '', { type: 'string_too_short', msg: 'String should have at least 1 character', ctx: { min_length: 1 } }],
    ['too long, plural', { max: 2 }, 'abc', { type: 'string_too_long', msg: 'String should have at most 2 characters', ctx: { max_length: 2 } }],
    ['lengths in code points', { max: 2 }, '😀😀', null],
    ['pattern: search semantics', { re: /\d/u, pattern: '\\d' }, 'ab1', null],
    ['pattern mismatch', { re: /^\d+$/u, pattern: '^\\d+$' }, 'ab1', { type: 'string_pattern_mismatch', msg: "String should match pattern '^\\d+$'", ctx: { pattern: '^\\d+$' } }],
    ['enum before length', { enum: ['abc'], max: 1 }, 'zz', { type: 'literal_error', msg: "Input should be 'abc'", ctx: { expected: "'abc'" } }],
    ['length before pattern', { max: 1, re: /^a$/u, pattern: '^a$' }, 'zz', { type: 'string_too_long', msg: 'String should have at most 1 character', ctx: { max_length: 1 } }],
  ])('%s', (_, given, value, expected) => expect(checkString({ ...rules, ...given }, value)).toEqual(expected));

  it('counts code points as pydantic does (a lone surrogate is one)', () => {
    expect(['', 'abc', '😀', 'a😀b', '\ud800', '\udc00x'].map(codePointLength)).toEqual([0, 3, 1, 3, 1, 2]);
  });

  it('compiles patterns once for the linear-time engine, and refuses what it cannot run', () => {
    const re = compilePattern('^[a-z]+$');
    expect(typeof re === 'object' && [re.test('abc'), re.test('ab1')]).toEqual([true, false]);
    expect(compilePattern('x'.repeat(501))).toContain('at most 500');
    expect(compilePattern('(a)\\1')).toBe('the pattern uses a back-reference (\\1), which the linear-time engine does not support');
    const evil = compilePattern('^(\\d|\\w)+$');
    expect(typeof evil === 'object' && evil.test(`${'1'.repeat(29)}!`)).toBe(false);
  });
});

describe('compileInputChecks: the runtime check of one call', () => {
  const checks = compileInputChecks({
    tier: { required: true, enum: ['free', 'pro'] },
    note: { required: false, default: 'none' },
    flag: { required: false },
  });
  const failure = (inputs: Record<string, unknown>) => {
    try {
      checks.apply(inputs);
    } catch (error) {
      if (error instanceof Invalid) return error.issues.map((i) => ({ path: i.path, kind: i.kind, type: i.type }));
      throw error;
    }
    throw new Error('no failure');
  };

  it('fills absent optional inputs (their default, else "") and keeps extra ones', () => {
    expect(checks.apply({ tier: 'pro', x: 1 })).toEqual({ tier: 'pro', x: 1, note: 'none', flag: '' });
    const given = { tier: 'free', note: 'n', flag: 'f' };
    expect(checks.apply(given)).toBe(given); // nothing to fill: no copy
  });

  it('lists every problem in declaration order: missing, not a string, rules', () => {
    expect(failure({ note: 3 })).toEqual([
      { path: ['inputs', 'tier'], kind: 'missing', type: undefined },
      { path: ['inputs', 'note'], kind: 'constraint', type: 'string_type' },
    ]);
    expect(failure({ flag: null, tier: 'gold' })).toEqual([
      { path: ['inputs', 'tier'], kind: 'constraint', type: 'literal_error' },
      { path: ['inputs', 'flag'], kind: 'constraint', type: 'string_type' },
    ]);
  });
});
