import { describe, expect, it } from 'vitest';
import { applyChecks, prepareChecks } from '../src/declarations.js';

// Typed variables' patterns, checked in-process with the server's engine (re2js): linear time on
// any pattern, search semantics, and a pattern that engine refuses leaves the prompt to the server.

const checksFor = (pattern: string) => prepareChecks({ code: { required: true, pattern } });

/** The items of a local check of one value, or [] when it passes. */
function itemsOf(pattern: string, value: string): unknown[] {
  const checks = checksFor(pattern);
  if (checks === null) throw new Error(`${pattern} was left to the server`);
  const result = applyChecks(checks, { code: value });
  return Array.isArray(result) ? result : [];
}

const mismatch = (pattern: string, value: string) => ({
  type: 'string_pattern_mismatch',
  loc: ['body', 'inputs', 'code'],
  msg: `String should match pattern '${pattern}'`,
  input: value,
  ctx: { pattern },
});

describe('a pattern that backtracks exponentially in a backtracking engine', () => {
  // Each froze a backtracking engine for seconds to hours on inputs like these (^(\d|\w)+$ on 29
  // ones and a "!": about 100 s); an automaton answers in one pass.
  const ones = `${'1'.repeat(9999)}!`;
  it.each<[string, string, boolean]>([
    ['^(\\d|\\w)+$', `${'1'.repeat(29)}!`, false],
    ['^(\\d|\\w)+$', ones, false],
    ['^(\\d|\\w)+$', '1'.repeat(10_000), true],
    ['^(a|a)*$', `${'a'.repeat(9999)}!`, false],
    ['^(a|aa)+$', `${'a'.repeat(9999)}!`, false],
    ['^(?:a|b|ab)*c$', 'ab'.repeat(5000), false],
    ['^(?:a|b|ab)*c$', `${'ab'.repeat(4999)}c`, true],
    ['[a-z]+@[a-z]+\\.com', `${'a'.repeat(5000)}@${'a'.repeat(4999)}`, false],
    ['\\s*,\\s*x', `${' '.repeat(5000)},${' '.repeat(4999)}`, false],
    ['(.*),(.*),(.*),(.*)x', ','.repeat(10_000), false],
    ['a*a*a*a*a*a*b', 'a'.repeat(10_000), false],
    ['(a+)+$', `${'a'.repeat(9999)}!`, false],
  ])('%s on %#: matches = %s, in linear time', (pattern, value, matches) => {
    expect(itemsOf(pattern, value)).toEqual(matches ? [] : [mismatch(pattern, value)]);
  });
});

describe('what a pattern means: JavaScript’s, as on the server', () => {
  it.each<[string, string, boolean]>([
    // Search semantics: a pattern matches anywhere unless anchored.
    ['\\d', 'ab1', true],
    ['^\\d+$', 'ab1', false],
    ['^[A-Z]{2}\\d{2}$', 'AB12', true],
    ['^[A-Z]{2}\\d{2}$', 'AB123', false],
    // $ is the end of the value, not before a final newline.
    ['^a$', 'a\n', false],
    ['\\bpro\\b', 'a pro plan', true],
    ['\\bpro\\b', 'approve', false],
    ['^(?:x|y)*?z$', 'xyxz', true],
    ['^.$', '😀', true],
    ['^\\p{Lu}+$', 'ÉTÉ', true],
    ['^\\p{Script=Greek}+$', 'αβ', true],
    ['^\\u0041\\u{42}$', 'AB', true],
    // Where RE2's own shorthands differ, JavaScript's meaning: \s holds \v and the Unicode spaces,
    // . stops at \r, [] matches nothing and [^] anything.
    ['^\\s+$', '\v\u00a0\u2028\ufeff', true],
    ['^\\S$', '\v', false],
    ['^.$', '\r', false],
    ['^.$', '\u2029', false],
    ['[]|[a]', '|', false],
    ['^[^]$', '\n', true],
  ])('%s on %j: matches = %s', (pattern, value, matches) => {
    expect(itemsOf(pattern, value)).toEqual(matches ? [] : [mismatch(pattern, value)]);
  });
});

describe('a pattern the engine refuses leaves the version to the server', () => {
  it.each([
    '(a)\\1', // a back-reference
    '(?<n>a)\\k<n>',
    'a(?=b)', // look-around
    'a(?!b)',
    '(?<=a)b',
    'a{1001}', // more repetitions than RE2 counts
    '(?i)a', // RE2's syntax, not JavaScript's
    '\\p{Foo}',
    '[',
  ])('%s', (pattern) => {
    expect(checksFor(pattern)).toBeNull();
  });

  it('and a version without patterns is still checked here', () => {
    expect(prepareChecks({ code: { required: true, min_length: 2 } })).not.toBeNull();
  });
});
