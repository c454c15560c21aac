import { describe, expect, it } from 'vitest';
import { MAX_BODY_NESTING, nestsDeeperThan } from '../../../src/http/jsonNesting.js';

const deeper = (text: string, max: number) => nestsDeeperThan(Buffer.from(text, 'utf8'), max);
const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
const objects = (n: number) => `${'{"a":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`;

describe('nestsDeeperThan: the body pre-scan', () => {
  it('counts arrays and objects, the outermost being level 1', () => {
    expect(deeper('1', 0)).toBe(false);
    expect(deeper('[]', 0)).toBe(true);
    expect(deeper('[]', 1)).toBe(false);
    expect(deeper('[[],[],{}]', 2)).toBe(false);
    expect(deeper('[[],[{}],{}]', 2)).toBe(true);
    expect(deeper(objects(5), 5)).toBe(false);
    expect(deeper(objects(6), 5)).toBe(true);
  });

  it('accepts exactly the limit and refuses one level more', () => {
    expect(MAX_BODY_NESTING).toBe(100);
    expect(deeper(arrays(MAX_BODY_NESTING), MAX_BODY_NESTING)).toBe(false);
    expect(deeper(arrays(MAX_BODY_NESTING + 1), MAX_BODY_NESTING)).toBe(true);
    expect(deeper(objects(MAX_BODY_NESTING), MAX_BODY_NESTING)).toBe(false);
    expect(deeper(objects(MAX_BODY_NESTING + 1), MAX_BODY_NESTING)).toBe(true);
    // Depth is what is open at once, not how many containers there are.
    expect(deeper(`[${`${arrays(99)},`.repeat(1000)}1]`, MAX_BODY_NESTING)).toBe(false);
  });

  it('ignores brackets inside strings, keys included', () => {
    expect(deeper('["[[[[[[", "{{{{{{"]', 1)).toBe(false);
    expect(deeper('{"[[[[": "]]]]", "{{": [1]}', 2)).toBe(false);
    expect(deeper(`{"a":"${'['.repeat(10_000)}"}`, 1)).toBe(false);
  });

  it('follows escapes: an escaped quote stays inside the string, an escaped backslash does not hide the quote after it', () => {
    expect(deeper(String.raw`["\"[[[[", 1]`, 1)).toBe(false);
    expect(deeper(String.raw`["\\", [[1]]]`, 2)).toBe(true);
    expect(deeper(String.raw`["\\\"[[", 1]`, 1)).toBe(false);
    expect(deeper(String.raw`["\u0022[[[", 1]`, 1)).toBe(false);
  });

  it('reads multi-byte characters as opaque bytes', () => {
    expect(deeper('["é😀[[", {"ключ": ["日本"]}]', 3)).toBe(false);
    expect(deeper('["é😀[[", {"ключ": [["日本"]]}]', 3)).toBe(true);
  });

  it('takes invalid JSON as it comes: an unterminated string ends the count, stray closers lower it', () => {
    expect(deeper(`["${'['.repeat(500)}`, 1)).toBe(false);
    expect(deeper('['.repeat(101), 100)).toBe(true);
    // The parser fails at the first stray "]", before it could build anything deep after it.
    expect(deeper(`]]]${arrays(102)}`, 100)).toBe(false);
  });

  it('refuses 1 MiB of "[[[…" in a few milliseconds', () => {
    const body = Buffer.from(arrays(524_288));
    const started = performance.now();
    expect(nestsDeeperThan(body, MAX_BODY_NESTING)).toBe(true);
    const flat = Buffer.from(JSON.stringify({ pad: 'x'.repeat(1_000_000), list: Array(20_000).fill([1]) }));
    expect(nestsDeeperThan(flat, MAX_BODY_NESTING)).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });
});
