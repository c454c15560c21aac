import { describe, expect, it } from 'vitest';
import { decodePythonJson, INT_MAX_STR_DIGITS, MAX_NESTING_DEPTH } from '../../../../src/http/fastapi/pythonJson.js';

// Generated with CPython 3.11: json.loads(b'\xef\xbb\xbf' + text.encode()) (FastAPI hands the body
// bytes to json.loads; a leading BOM is stripped by the caller, so a second one is data), e.pos, e.msg.
const ERRORS: [string, number, string][] = [
  ["", 0, "Expecting value"],
  ["   ", 3, "Expecting value"],
  ["{bad", 1, "Expecting property name enclosed in double quotes"],
  ["{\"a\"", 4, "Expecting ':' delimiter"],
  ["{\"a\":1", 6, "Expecting ',' delimiter"],
  ["{} x", 3, "Extra data"],
  ["\"abc", 0, "Unterminated string starting at"],
  ["{\"a\":1,}", 7, "Expecting property name enclosed in double quotes"],
  ["[1,]", 3, "Expecting value"],
  ["01", 1, "Extra data"],
  ["-", 0, "Expecting value"],
  ["tru", 0, "Expecting value"],
  ["[1 2]", 3, "Expecting ',' delimiter"],
  ["{\"a\" 1}", 5, "Expecting ':' delimiter"],
  ["{\"a\":}", 5, "Expecting value"],
  ["[", 1, "Expecting value"],
  ["]", 0, "Expecting value"],
  ["{", 1, "Expecting property name enclosed in double quotes"],
  ["}", 0, "Expecting value"],
  [",", 0, "Expecting value"],
  ["nul", 0, "Expecting value"],
  ["NAN", 0, "Expecting value"],
  ["nan", 0, "Expecting value"],
  ["-nan", 0, "Expecting value"],
  ["+1", 0, "Expecting value"],
  [".5", 0, "Expecting value"],
  ["1.", 1, "Extra data"],
  ["1e", 1, "Extra data"],
  ["1e+", 1, "Extra data"],
  ["-Infinityx", 9, "Extra data"],
  ["Infinit", 0, "Expecting value"],
  ["[1,2", 4, "Expecting ',' delimiter"],
  ["[1,2,", 5, "Expecting value"],
  ["{\"a\":1 \"b\":2}", 7, "Expecting ',' delimiter"],
  ["{\"a\":1,\"b\"}", 10, "Expecting ':' delimiter"],
  ["{1:2}", 1, "Expecting property name enclosed in double quotes"],
  ["{'a':1}", 1, "Expecting property name enclosed in double quotes"],
  ["\"\\x\"", 1, "Invalid \\escape"],
  ["\"\\u12\"", 2, "Invalid \\uXXXX escape"],
  ["\"\\uZZZZ\"", 2, "Invalid \\uXXXX escape"],
  ["\"\\ud83d\\uZZZZ\"", 8, "Invalid \\uXXXX escape"],
  ["\"\\ud83d\\ude0\"", 8, "Invalid \\uXXXX escape"],
  ["\"\\u1234", 2, "Invalid \\uXXXX escape"],
  ["\"a\\", 0, "Unterminated string starting at"],
  ["\"\\", 0, "Unterminated string starting at"],
  ["\"a\u0001b\"", 2, "Invalid control character at"],
  ["\"tab\there\"", 4, "Invalid control character at"],
  ["\"line\nbreak\"", 5, "Invalid control character at"],
  ["[1]]", 3, "Extra data"],
  ["[1] [2]", 4, "Extra data"],
  ["null null", 5, "Extra data"],
  ["\"\u00e9\ud83d\ude00\" x", 5, "Extra data"],
  ["{\"\u00e9\ud83d\ude00\":1,}", 8, "Expecting property name enclosed in double quotes"],
  ["[\"\ud83d\ude00\ud83d\ude00\", x]", 7, "Expecting value"],
  ["{\"k\ud83d\ude00\":\"v\ud83d\ude00\" \"k2\":1}", 11, "Expecting ',' delimiter"],
  ["\"\ud83d\ude00\\q\"", 2, "Invalid \\escape"],
  ["\"\ud83d\ude00\u001f\"", 2, "Invalid control character at"],
  ["[\"\ud83d\ude00", 1, "Unterminated string starting at"],
  ["\ufeff{}", 0, "Expecting value"],
  ["\u00a0{}", 0, "Expecting value"],
  ["{\"a\":[1,{\"b\":}]}", 13, "Expecting value"],
  ["[[[[[", 5, "Expecting value"],
  ["{\"a\":{\"b\":{\"c\":", 15, "Expecting value"],
  ["1 2", 2, "Extra data"],
  ["-01", 2, "Extra data"],
  ["00", 1, "Extra data"],
  ["0x10", 1, "Extra data"],
  ["1_000", 1, "Extra data"],
  ["{\"a\":1}}", 7, "Extra data"],
  ["{\"a\":1]", 6, "Expecting ',' delimiter"],
  ["[1}", 2, "Expecting ',' delimiter"],
  ["{\"a\":NaN,}", 9, "Expecting property name enclosed in double quotes"],
  ["[Infinity,-Infinity,NaN,]", 24, "Expecting value"],
  ["\t\n\r x", 4, "Expecting value"],
  ["\f{}", 0, "Expecting value"],
  ["truefalse", 4, "Extra data"],
  ["true false", 5, "Extra data"],
  ["[-]", 1, "Expecting value"],
  ["[-Infinity-]", 10, "Expecting ',' delimiter"],
  ["{\"\ud83d\ude00\ud83d\ude00\ud83d\ude00\": [1, 2, 3,, 4]}", 17, "Expecting value"],
  ["\"\ud83d\ude00\ud83d\ude00\ud83d\ude00\\uD83D\\u00\"", 11, "Invalid \\uXXXX escape"],
  ["{\"a\":\"b\\\"}", 5, "Unterminated string starting at"],
  ["\ud834\udd1e", 0, "Expecting value"],
  ["[\"\ud834\udd1e\", \"\ud834\udd1e\" \"x\"]", 10, "Expecting ',' delimiter"],
];
const VALID: [string, unknown][] = [
  ["{\"a\":1}", { "a": 1 }],
  [" \t\n\r{\"a\" : [ 1 , 2.5 , -3e2 , true , false , null ] }\r\n", { "a": [1, 2.5, -300.0, true, false, null] }],
  ["NaN", NaN],
  ["[NaN, Infinity, -Infinity]", [NaN, Infinity, -Infinity]],
  ["{\"x\":-Infinity}", { "x": -Infinity }],
  ["1e400", Infinity],
  ["-1e400", -Infinity],
  // biome-ignore lint/correctness/noPrecisionLoss: the double JSON.parse makes of this literal is the expected value
  ["123456789012345678901234567890", 123456789012345678901234567890],
  ["\"\\ud800\"", "\ud800"],
  ["\"\\udc00\\ud800x\"", "\udc00\ud800x"],
  ["\"\\ud83d\\ude00\"", "\ud83d\ude00"],
  ["\"\\ud83d\\u0041\"", "\ud83dA"],
  ["\"\u00e9\ud83d\ude00\\n\\t\\\"\\\\\\/\\b\\f\\r\"", "\u00e9\ud83d\ude00\n\t\"\\/\b\f\r"],
  ["{\"a\":1,\"b\":2,\"a\":3}", { "a": 3, "b": 2 }],
  ["\"\u2028\u2029\"", "\u2028\u2029"],
  ["[]", []],
  ["{}", {  }],
  ["0", 0],
  ["-0.0", -0.0],
  ["1E5", 100000.0],
  ["1.5e-3", 0.0015],
  ["\"\\u00E9\"", "\u00e9"],
  ["\"\u007f\"", "\u007f"],
  ["{\"\ud83d\ude00\":{\"\u00e9\":[\"x\",{\"\":null}]}}", { "\ud83d\ude00": { "\u00e9": ["x", { "": null }] } }],
  ["[[[[]]]]", [[[[]]]]],
  ["\"\ud83d\ude00\"", "\ud83d\ude00"],
  ["[1,\"\ud83d\ude00\",{\"k\":\"\ud83d\ude00\"}]", [1, "\ud83d\ude00", { "k": "\ud83d\ude00" }]],
];

describe('decodePythonJson: CPython error messages and code-point positions', () => {
  it.each(ERRORS)('%j -> pos %i %s', (text, pos, msg) => {
    expect(decodePythonJson(text)).toStrictEqual({ ok: false, pos, msg });
  });

  it('covers the contract examples', () => {
    expect(ERRORS.length).toBeGreaterThanOrEqual(40);
    const contract: [string, number, string][] = [
      ['{bad', 1, 'Expecting property name enclosed in double quotes'],
      ['   ', 3, 'Expecting value'],
      ['{"a"', 4, "Expecting ':' delimiter"],
      ['{"a":1', 6, "Expecting ',' delimiter"],
      ['{} x', 3, 'Extra data'],
      ['"abc', 0, 'Unterminated string starting at'],
      ['{"a":1,}', 7, 'Expecting property name enclosed in double quotes'],
      ['', 0, 'Expecting value'],
    ];
    for (const [text, pos, msg] of contract) expect(decodePythonJson(text)).toStrictEqual({ ok: false, pos, msg });
  });

  it('counts a non-BMP character as one position', () => {
    expect(decodePythonJson('["😀😀", x]')).toStrictEqual({ ok: false, pos: 7, msg: 'Expecting value' });
    expect(decodePythonJson('"😀\\q"')).toStrictEqual({ ok: false, pos: 2, msg: 'Invalid \\escape' });
  });
});

describe('decodePythonJson: accepted documents', () => {
  it.each(VALID)('%j', (text, value) => {
    const r = decodePythonJson(text);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value).toStrictEqual(value);
  });

  it('keeps the first position of a duplicated key and the last value', () => {
    for (const text of ['{"a":1,"b":2,"a":3}', '{"a":1,"b":NaN,"a":3}']) {
      const r = decodePythonJson(text);
      expect(r.ok && Object.keys(r.value as object)).toEqual(['a', 'b']);
      expect(r.ok && (r.value as Record<string, unknown>).a).toBe(3);
    }
  });

  it('stores "__proto__" as an own key on both the fast path and the scanner path', () => {
    for (const text of ['{"__proto__":{"x":1},"a":1}', '{"__proto__":{"x":1},"a":NaN}']) {
      const r = decodePythonJson(text);
      if (!r.ok) throw new Error('expected ok');
      const obj = r.value as Record<string, unknown>;
      expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
      expect(Object.keys(obj)).toEqual(['__proto__', 'a']);
      expect(Object.getOwnPropertyDescriptor(obj, '__proto__')?.value).toEqual({ x: 1 });
    }
  });

  it('keeps lone surrogates from \\u escapes', () => {
    const r = decodePythonJson('["\\udc00", "\\ud800\\u0041"]');
    expect(r).toStrictEqual({ ok: true, value: ['\udc00', '\ud800A'] });
  });
});

describe('decodePythonJson: non-JSONDecodeError failures (FastAPI answers 400)', () => {
  const depthMsg = (what: string) =>
    `maximum recursion depth exceeded while decoding a JSON ${what} from a unicode string`;

  it('accepts nesting up to the limit', () => {
    const n = MAX_NESTING_DEPTH;
    expect(decodePythonJson('['.repeat(n) + ']'.repeat(n)).ok).toBe(true);
    expect(decodePythonJson(`${'{"a":'.repeat(n - 1)}[]${'}'.repeat(n - 1)}`).ok).toBe(true);
  });

  it.each([
    ['arrays', '['.repeat(MAX_NESTING_DEPTH + 1) + ']'.repeat(MAX_NESTING_DEPTH + 1), MAX_NESTING_DEPTH, 'array'],
    ['objects', `${'{"a":'.repeat(MAX_NESTING_DEPTH + 1)}1${'}'.repeat(MAX_NESTING_DEPTH + 1)}`, MAX_NESTING_DEPTH * 5, 'object'],
    ['unclosed', '['.repeat(200_000), MAX_NESTING_DEPTH, 'array'],
    ['very deep, valid for V8', '['.repeat(100_000) + ']'.repeat(100_000), MAX_NESTING_DEPTH, 'array'],
  ])('too deep: %s', (_name, text, pos, what) => {
    expect(decodePythonJson(text)).toStrictEqual({ ok: false, pos, msg: depthMsg(what), fatal: true });
  });

  it('counts depth, not brackets: wide documents and brackets inside strings are shallow', () => {
    const wide = JSON.stringify({ rows: Array(5000).fill({ a: [1], b: 'x' }) });
    expect(decodePythonJson(wide)).toStrictEqual({ ok: true, value: JSON.parse(wide) });
    const quoted = JSON.stringify({ s: `${'['.repeat(5000)}\\"${'{'.repeat(5000)}` });
    expect(decodePythonJson(quoted)).toStrictEqual({ ok: true, value: JSON.parse(quoted) });
    const deepInWide = `[${'[],'.repeat(3000)}${'['.repeat(MAX_NESTING_DEPTH)}${']'.repeat(MAX_NESTING_DEPTH)}]`;
    expect(decodePythonJson(deepInWide)).toMatchObject({ ok: false, fatal: true });
  });

  it('reports a syntax error that comes before the depth limit', () => {
    const text = `[x${'['.repeat(MAX_NESTING_DEPTH * 2)}`;
    expect(decodePythonJson(text)).toStrictEqual({ ok: false, pos: 1, msg: 'Expecting value' });
  });

  it('enforces the 4300-digit integer limit', () => {
    const digits = (n: number) => '1'.repeat(n);
    const msg =
      'Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; ' +
      'use sys.set_int_max_str_digits() to increase the limit';
    expect(INT_MAX_STR_DIGITS).toBe(4300);
    expect(decodePythonJson(digits(4300)).ok).toBe(true);
    expect(decodePythonJson(`[1, -${digits(4301)}]`)).toStrictEqual({ ok: false, pos: 4, msg, fatal: true });
    // Floats have no limit, and digits inside strings are not numbers.
    expect(decodePythonJson(`${digits(4301)}.5`)).toStrictEqual({ ok: true, value: Infinity });
    expect(decodePythonJson(`"${digits(5000)}"`)).toStrictEqual({ ok: true, value: digits(5000) });
    // Python raises at the first offending token: a syntax error before it wins, one after it loses.
    expect(decodePythonJson(`[x, ${digits(4301)}]`)).toStrictEqual({ ok: false, pos: 1, msg: 'Expecting value' });
    expect(decodePythonJson(`[${digits(4301)}, x]`)).toMatchObject({ ok: false, pos: 1, fatal: true });
  });

  it('looks for over-long integers in one pass: 1 MB of 4300-digit numbers decodes in milliseconds', () => {
    // A pattern search for 4301 digits restarted at every digit of every run: 3 s of CPU for this body.
    const runs = `[${`${'7'.repeat(4300)},`.repeat(230)}1]`;
    const started = performance.now();
    const decoded = decodePythonJson(runs);
    const ms = performance.now() - started;
    expect(decoded).toMatchObject({ ok: true });
    expect((decoded as { value: unknown[] }).value).toHaveLength(231);
    expect(ms).toBeLessThan(250);
  });
});
