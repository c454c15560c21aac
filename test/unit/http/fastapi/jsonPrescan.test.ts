import { describe, expect, it } from 'vitest';
import { MAX_BODY_NESTING, prescanJson } from '../../../../src/http/fastapi/jsonPrescan.js';
import { decodePythonJson, INT_MAX_STR_DIGITS, MAX_NESTING_DEPTH } from '../../../../src/http/fastapi/pythonJson.js';

const scan = (text: string, maxDepth = MAX_BODY_NESTING, maxDigits = INT_MAX_STR_DIGITS) => prescanJson(Buffer.from(text, 'utf8'), maxDepth, maxDigits);
const deeper = (text: string, max: number) => scan(text, max).tooDeep;
const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
const objects = (n: number) => `${'{"a":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`;

describe('prescanJson: nesting', () => {
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
    // What passes the pre-scan is within Python's own limit, so the decoder need not check it again.
    expect(MAX_BODY_NESTING).toBeLessThan(MAX_NESTING_DEPTH);
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
    expect(deeper('["]]]]", [[1]]]', 2)).toBe(true);
  });

  it('follows escapes: an escaped quote stays inside the string, an escaped backslash does not hide the quote after it', () => {
    expect(deeper(String.raw`["\"[[[[", 1]`, 1)).toBe(false);
    expect(deeper(String.raw`["\\", [[1]]]`, 2)).toBe(true);
    expect(deeper(String.raw`["\\\"[[", 1]`, 1)).toBe(false);
    expect(deeper(String.raw`["\\\\", [[1]]]`, 2)).toBe(true);
    expect(deeper(String.raw`["\u0022[[[", 1]`, 1)).toBe(false);
    expect(deeper(String.raw`["\"", "\"", [[1]]]`, 2)).toBe(true);
  });

  it('reads multi-byte characters as opaque bytes', () => {
    expect(deeper('["é😀[[", {"ключ": ["日本"]}]', 3)).toBe(false);
    expect(deeper('["é😀[[", {"ключ": [["日本"]]}]', 3)).toBe(true);
  });

  it('takes invalid JSON as it comes: an unterminated string ends the scan, stray closers lower the depth', () => {
    expect(deeper(`["${'['.repeat(500)}`, 1)).toBe(false);
    expect(deeper(`["${'\\'.repeat(501)}`, 1)).toBe(false);
    expect(deeper('['.repeat(101), 100)).toBe(true);
    // The parser fails at the first stray "]", before it could build anything deep after it.
    expect(deeper(`]]]${arrays(102)}`, 100)).toBe(false);
  });

  it('refuses 1 MiB of "[[[…" in a few milliseconds, and reads 1 MiB of strings as fast', () => {
    const started = performance.now();
    expect(scan(arrays(524_288)).tooDeep).toBe(true);
    const strings = JSON.stringify({ pad: 'x'.repeat(900_000), list: Array(20_000).fill('\\"[') });
    expect(scan(strings)).toStrictEqual({ tooDeep: false, longDigitRun: false });
    expect(performance.now() - started).toBeLessThan(100);
  });
});

describe('prescanJson: digit runs', () => {
  const digits = (n: number) => '7'.repeat(n);

  it('finds a run longer than the maximum outside strings only', () => {
    expect(scan(`[${digits(4300)}]`).longDigitRun).toBe(false);
    expect(scan(`[${digits(4301)}]`).longDigitRun).toBe(true);
    expect(scan(`[-${digits(4301)}.5]`).longDigitRun).toBe(true);
    expect(scan(`["${digits(5000)}"]`).longDigitRun).toBe(false);
    expect(scan(`[${`${digits(4300)},`.repeat(100)}1]`).longDigitRun).toBe(false);
    expect(scan(`[${digits(2000)}.${digits(2000)}]`).longDigitRun).toBe(false);
  });

  it('agrees with the decoder: what it passes decodes the same with or without the decoder\'s own checks', () => {
    const texts = [`[1, ${digits(4300)}]`, `{"a": "${digits(9000)}", "b": [${arrays(50)}]}`, '[1.5e3, -0, "x"]', `[${digits(4301)}]`];
    for (const text of texts) {
      const pre = scan(text);
      const checked = decodePythonJson(text);
      const trusted = decodePythonJson(text, { withinPythonLimits: !pre.tooDeep && !pre.longDigitRun });
      expect(trusted).toStrictEqual(checked);
    }
  });
});
