import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import {
  ajvRegExp,
  compileLinear,
  MAX_PATTERNS_PROGRAM,
  PatternBudget,
  refusedSchemaPatterns,
  schemaPatterns,
  type LinearPattern,
} from '../../../src/lib/linearPattern.js';

const compiled = (pattern: string, flags = ''): LinearPattern => {
  const c = compileLinear(pattern, flags);
  if (typeof c === 'string') throw new Error(`refused: ${c}`);
  return c;
};

/**
 * The patterns the star-height check let through, each with a text that made JavaScript's engine
 * backtrack for seconds (or, for the polynomial ones, minutes on 100 KB), and what it must answer.
 */
const ones = `${'1'.repeat(29)}!`;
const EVIL: Array<[string, string, boolean]> = [
  ['^(\\d|\\w)+$', ones, false],
  ['^(\\d|\\w)+$', `${'1'.repeat(100_000)}!`, false],
  ['^(a|a)*$', `${'a'.repeat(100_000)}!`, false],
  ['^(a|aa)+$', `${'a'.repeat(100_000)}!`, false],
  ['^(?:a|b|ab)*c$', `${'ab'.repeat(50_000)}!`, false],
  ['[a-z]+@[a-z]+\\.com', `${'a@'.repeat(50_000)}`, false],
  ['[a-z]+@[a-z]+\\.com', `${'a@'.repeat(50_000)}a.com`, true],
  ['\\s*,\\s*x', `${' '.repeat(100_000)},`, false],
  ['(.*),(.*),(.*),(.*)x', ','.repeat(100_000), false],
  ['a*a*a*a*a*a*b', 'a'.repeat(100_000), false],
  ['(a+)+$', `${'a'.repeat(100_000)}!`, false],
  ['(a+)+$', 'a'.repeat(100_000), true],
  ['(a*)*b', 'a'.repeat(100_000), false],
];

describe('compileLinear: the families that stalled the backtracking engine answer right', () => {
  it.each(EVIL)('%s on %#', (pattern, text, want) => {
    expect(compiled(pattern).test(text)).toBe(want);
  });
});

describe('compileLinear: JavaScript meaning, RE2 engine', () => {
  it.each<[string, string, string, boolean]>([
    // [pattern, flags, text, matches]
    ['\\d{3}', '', 'call 555 now', true],
    ['^\\d{3}$', '', 'call 555 now', false],
    ['^[A-Z]{2}\\d+$', '', 'AB12', true],
    ['^yes', 'i', 'YES sir', true],
    ['^b$', 'm', 'a\nb\nc', true],
    ['^b$', '', 'a\nb\nc', false],
    ['a.c', '', 'a\nc', false],
    ['a.c', 's', 'a\nc', true],
    // JavaScript's `.` stops at \r and U+2028 too (RE2's only at \n)
    ['a.c', '', 'a\rc', false],
    ['a.c', '', 'a\u2028c', false],
    ['^.$', '', '😀', true],
    ['^..$', '', '😀', false],
    ['^.$', '', 'é', true],
    // JavaScript's \s: \v and the Unicode spaces (RE2's has neither)
    ['^\\s$', '', '\u00a0', true],
    ['^\\s$', '', '\v', true],
    ['^\\s$', '', '\ufeff', true],
    ['^\\S$', '', '\u00a0', false],
    ['^[\\S]$', '', 'x', true],
    ['^[^\\s]$', '', '\u3000', false],
    ['^[a\\s]+$', '', 'a\u2003a', true],
    ['^\\w+$', '', 'abc_09', true],
    ['^\\w+$', '', 'é', false],
    ['^\\d$', '', '٣', false],
    ['\\bcat\\b', '', 'a cat!', true],
    ['\\bcat\\b', '', 'concatenate', false],
    ['^\\p{L}+$', '', 'héllo', true],
    ['^\\p{Lu}$', '', 'É', true],
    ['^\\p{Letter}+$', '', 'abc', true],
    ['^\\p{Script=Greek}+$', '', 'αβγ', true],
    ['^\\p{sc=Greek}+$', '', 'abc', false],
    ['^\\P{L}$', '', '1', true],
    ['^[\\p{N}x]+$', '', '12x', true],
    ['^\\p{ASCII}+$', '', 'abc', true],
    ['^\\p{ASCII}+$', '', 'é', false],
    ['^(?<year>\\d{4})-(?<month>\\d{2})$', '', '2026-05', true],
    ['^(?:ab)+?$', '', 'abab', true],
    ['^\\u0041\\u{1F600}\\x41$', '', 'A😀A', true],
    ['^\\cJ$', '', '\n', true],
    ['^\\0$', '', '\0', true],
    ['^[\\-a]+$', '', 'a-a', true],
    ['^\\/\\.\\*\\$$', '', '/.*$', true],
    ['^[]$', '', '', false],
    ['^[^]$', '', '\n', true],
    ['^a{2,3}$', '', 'aaaa', false],
    ['^a{990}$', '', 'a'.repeat(990), true],
    ['^\\p{Alphabetic}+$', '', 'éa', true],
    ['^k$', 'i', '\u212a', true],
    ['^É$', 'i', 'é', true],
    ['^[a-z]+$', 'i', 'ABC', true],
    ['^$', '', '', true],
  ])('/%s/%s on %j → %s', (pattern, flags, text, want) => {
    expect(compiled(pattern, flags).test(text)).toBe(want);
    // The same answer as JavaScript's own engine, which these texts cannot stall.
    expect(new RegExp(pattern, `${flags}u`).test(text)).toBe(want);
  });

  it('keeps the source and flags, and says them as a RegExp would', () => {
    const re = compiled('^a+$', 'im');
    expect([re.source, re.flags, String(re)]).toEqual(['^a+$', 'im', '/^a+$/im']);
  });
});

describe('compileLinear: what it refuses, and why', () => {
  it.each<[string, string]>([
    ['(a)\\1', 'the pattern uses a back-reference (\\1), which the linear-time engine does not support'],
    ['(?<q>[\'"]).*\\k<q>', 'the pattern uses a back-reference (\\k<q>), which the linear-time engine does not support'],
    ['foo(?=bar)', 'the pattern uses a look-ahead ((?=…), which the linear-time engine does not support'],
    ['foo(?!bar)', 'the pattern uses a look-ahead ((?!…), which the linear-time engine does not support'],
    ['(?<=\\$)\\d+', 'the pattern uses a look-behind ((?<=…), which the linear-time engine does not support'],
    ['(?<!x)y', 'the pattern uses a look-behind ((?<!…), which the linear-time engine does not support'],
    ['a{1001}', 'the pattern repeats more than 1000 times ({1001}), which the linear-time engine does not support'],
    ['a{2,5000}?', 'the pattern repeats more than 1000 times ({2,5000}?), which the linear-time engine does not support'],
    ['\\p{Script_Extensions=Greek}', 'the pattern uses the Unicode property \\p{Script_Extensions=Greek}, which the linear-time engine does not know (it knows general categories such as \\p{L} and scripts such as \\p{Script=Greek})'],
    ['\\p{sc=Grek}', 'the pattern uses the Unicode property \\p{sc=Grek}, which the linear-time engine does not know (it knows general categories such as \\p{L} and scripts such as \\p{Script=Greek})'],
    ['(unclosed', 'the pattern is not a valid regular expression: Invalid regular expression: /(unclosed/u: Unterminated group'],
    ['\\-', 'the pattern is not a valid regular expression: Invalid regular expression: /\\-/u: Invalid escape'],
    ['(?i:a)', 'the pattern is not a valid regular expression: Invalid regular expression: /(?i:a)/u: Invalid group'],
    ['(?P<n>a)', 'the pattern is not a valid regular expression: Invalid regular expression: /(?P<n>a)/u: Invalid group'],
  ])('%s', (pattern, reason) => {
    expect(compileLinear(pattern)).toBe(reason);
  });

  it('refuses a pattern that compiles to more than 1000 instructions, and patterns together beyond the budget', () => {
    expect(compileLinear('^a{1000}$')).toBe('the pattern is too large for the linear-time engine: it compiles to 1004 instructions, at most 1000 (use smaller repetition counts)');
    expect(compileLinear('(a{10}){200}')).toBe("the pattern's nested repetitions repeat more than 1000 times together, which the linear-time engine does not support");
    const budget = new PatternBudget();
    const many = Array.from({ length: 30 }, (_, i) => compileLinear(`^x${i}[a-z]{500}$`, '', budget));
    const refused = many.findIndex((c) => typeof c === 'string');
    expect(refused).toBeGreaterThan(0);
    expect(many[refused]).toMatch(new RegExp(`^the patterns given together compile to \\d+ instructions of the linear-time engine, more than ${MAX_PATTERNS_PROGRAM}`));
  });
});

describe('schemaPatterns and ajvRegExp: the patterns of a JSON Schema', () => {
  const schema = {
    type: 'object',
    properties: { pattern: { type: 'string', pattern: '^a' }, b: { type: 'array', items: { pattern: '(a)\\1' } } },
    patternProperties: { '^x-': { type: 'string' } },
    $defs: { d: { anyOf: [{ pattern: 'z' }] } },
  };

  it('finds each pattern with its path, and not a property named pattern', () => {
    expect(schemaPatterns(schema)).toEqual([
      [['properties', 'pattern', 'pattern'], '^a'],
      [['properties', 'b', 'items', 'pattern'], '(a)\\1'],
      [['patternProperties', '^x-'], '^x-'],
      [['$defs', 'd', 'anyOf', 0, 'pattern'], 'z'],
    ]);
    expect(refusedSchemaPatterns(schema)).toEqual([
      [['properties', 'b', 'items', 'pattern'], 'the pattern uses a back-reference (\\1), which the linear-time engine does not support'],
    ]);
  });

  it("runs ajv's pattern and patternProperties on the linear-time engine", () => {
    const ajv = new Ajv({ code: { regExp: ajvRegExp }, allowMatchingProperties: true });
    const validate = ajv.compile({
      type: 'object',
      properties: { id: { type: 'string', pattern: '^(\\d|\\w)+$' } },
      patternProperties: { '^(a|aa)+$': { type: 'number' } },
    });
    expect(validate({ id: ones })).toBe(false);
    expect(validate({ id: '123abc' })).toBe(true);
    expect(validate({ [`${'a'.repeat(40)}`]: 'not a number' })).toBe(false);
    expect(validate({ [`${'a'.repeat(40)}!`]: 'not a number' })).toBe(true);
    expect(() => ajv.compile({ type: 'string', pattern: '(?=a)' })).toThrow('"(?=a)": the pattern uses a look-ahead');
  });
});
