import { describe, expect, it } from 'vitest';
import { boundDetail, boundEcho, boundString, ERROR_BOUNDS, TOO_MANY_ERRORS } from '../../../../src/http/fastapi/errorBounds.js';
import type { ErrorItem } from '../../../../src/http/fastapi/pydanticValidator.js';

const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
const missing = (name: string, input: unknown): ErrorItem => ({ type: 'missing', loc: ['body', 'inputs', name], msg: 'Field required', input });

describe('boundString', () => {
  it('keeps a string of at most 1000 characters as it is', () => {
    for (const s of ['', 'x', 'x'.repeat(1000), '😀'.repeat(1000), 'é'.repeat(1000)]) expect(boundString(s)).toBe(s);
  });

  it('cuts a longer one after 1000 characters and says how many more there were', () => {
    expect(boundString('x'.repeat(1001))).toBe(`${'x'.repeat(1000)}…[truncated: 1 more character]`);
    expect(boundString('ab'.repeat(450_000))).toBe(`${'ab'.repeat(500)}…[truncated: 899000 more characters]`);
    expect(boundString('é'.repeat(1500))).toBe(`${'é'.repeat(1000)}…[truncated: 500 more characters]`);
  });

  it('counts characters as code points and never splits a surrogate pair', () => {
    expect(boundString(`${'x'.repeat(999)}😀😀😀`)).toBe(`${'x'.repeat(999)}😀…[truncated: 2 more characters]`);
    expect(boundString('😀'.repeat(1001))).toBe(`${'😀'.repeat(1000)}…[truncated: 1 more character]`);
  });
});

describe('boundEcho', () => {
  it('returns a value within bounds itself, so it is written byte for byte as before', () => {
    const values = [null, true, 0, -1.5, 1e300, 'text', [], {}, { a: [1, { b: 'x'.repeat(1000) }], 10: 2, 2: null }, Array(500).fill(1)];
    for (const v of values) expect(boundEcho(v)).toBe(v);
  });

  it('cuts the strings inside a container', () => {
    expect(boundEcho({ pad: 'x'.repeat(900_000), name: 'Ann' })).toStrictEqual({ pad: `${'x'.repeat(1000)}…[truncated: 899000 more characters]`, name: 'Ann' });
    expect(boundEcho(['y'.repeat(1005)])).toStrictEqual([`${'y'.repeat(1000)}…[truncated: 5 more characters]`]);
  });

  it('keeps an array in order while it fits 4096 bytes, then one marker item', () => {
    const out = boundEcho(Array(5000).fill(12345)) as unknown[];
    expect(jsonBytes(out)).toBeLessThanOrEqual(ERROR_BOUNDS.containerBytes);
    const marker = out.at(-1) as string;
    const kept = out.length - 1;
    expect(out.slice(0, -1)).toStrictEqual(Array(kept).fill(12345));
    expect(kept).toBeGreaterThan(600);
    expect(marker).toBe(`…[truncated: ${5000 - kept} more items]`);
  });

  it('keeps an object\'s keys in order while they fit, then a marker key whose value is null', () => {
    const big = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`key${i}`, 'v'.repeat(20)]));
    const out = boundEcho(big) as Record<string, unknown>;
    expect(jsonBytes(out)).toBeLessThanOrEqual(ERROR_BOUNDS.containerBytes);
    const keys = Object.keys(out);
    const kept = keys.length - 1;
    expect(keys.slice(0, -1)).toStrictEqual(Object.keys(big).slice(0, kept));
    expect(keys.at(-1)).toBe(`…[truncated: ${1000 - kept} more keys]`);
    expect(out[keys.at(-1)!]).toBeNull();
  });

  it('cuts a nested container that does not fit whole rather than dropping it', () => {
    const out = boundEcho({ prompt_id: 'p', metadata: { list: Array(3000).fill('ab') }, after: 1, more: 'x'.repeat(500) }) as Record<string, any>;
    expect(jsonBytes(out)).toBeLessThanOrEqual(ERROR_BOUNDS.containerBytes);
    expect(out.prompt_id).toBe('p');
    expect(out.metadata.list.at(-1)).toMatch(/^…\[truncated: \d+ more items\]$/);
    // What still fits after a cut member is kept; what does not is counted.
    expect(Object.keys(out).slice(2)).toStrictEqual(['after', '…[truncated: 1 more key]']);
  });

  it('stays within the budget for escapes, multi-byte text and deep nesting', () => {
    const cases = [
      Array(3000).fill('\u0001"é😀\ud800'),
      Array.from({ length: 300 }, () => 'x'.repeat(1500)),
      JSON.parse(`${'['.repeat(99)}${JSON.stringify(Array(3000).fill('x'))}${']'.repeat(99)}`),
      Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`${'k'.repeat(1200)}${i}`, i])),
    ];
    for (const v of cases) {
      const out = boundEcho(v);
      expect(out).not.toBe(v);
      expect(jsonBytes(out)).toBeLessThanOrEqual(ERROR_BOUNDS.containerBytes);
      expect(JSON.stringify(out)).toContain('…[truncated: ');
    }
  });

  it('keeps a key "__proto__" as a key', () => {
    const v = JSON.parse(`{"__proto__": {"x": 1}, "pad": "${'p'.repeat(1200)}"}`);
    const out = boundEcho(v) as Record<string, unknown>;
    expect(Object.keys(out)).toStrictEqual(['__proto__', 'pad']);
    expect(JSON.stringify(out)).toBe(`{"__proto__":{"x":1},"pad":"${'p'.repeat(1000)}…[truncated: 200 more characters]"}`);
  });
});

describe('boundDetail', () => {
  it('leaves a list within bounds as it is, item for item', () => {
    const items: ErrorItem[] = [
      missing('a', { x: 1 }),
      { type: 'string_too_long', loc: ['body', 'v'], msg: 'String should have at most 3 characters', input: 'abcd', ctx: { max_length: 3 } },
    ];
    const out = boundDetail(items);
    expect(JSON.stringify(out)).toBe(JSON.stringify(items));
    out.forEach((item, i) => {
      expect(item).toBe(items[i]);
    });
  });

  it('lists 100 items at most, the last saying how many more were left out', () => {
    const items = Array.from({ length: 5000 }, (_, i) => missing(`v${i}`, {}));
    const out = boundDetail(items);
    expect(out).toHaveLength(ERROR_BOUNDS.items);
    expect(out.slice(0, -1)).toStrictEqual(items.slice(0, 99));
    expect(out.at(-1)).toStrictEqual({ type: TOO_MANY_ERRORS, loc: [], msg: '4901 more errors left out of this answer', input: null, ctx: { omitted: 4901 } });
    expect(boundDetail(items.slice(0, 100))).toStrictEqual(items.slice(0, 100));
    expect(boundDetail(items.slice(0, 101)).at(-1)!.msg).toBe('2 more errors left out of this answer');
  });

  it('keeps the whole list within 32 KiB, bounding a shared echo once', () => {
    const inputs = { pad: 'x'.repeat(900_000) };
    const items = Array.from({ length: 500 }, (_, i) => missing(`v${i}`, inputs));
    const started = performance.now();
    const out = boundDetail(items);
    expect(performance.now() - started).toBeLessThan(100);
    expect(jsonBytes(out)).toBeLessThanOrEqual(ERROR_BOUNDS.detailBytes);
    const shown = out.slice(0, -1);
    const echo = { pad: `${'x'.repeat(1000)}…[truncated: 899000 more characters]` };
    shown.forEach((item, i) => {
      expect(item).toStrictEqual(missing(`v${i}`, echo));
    });
    expect(shown[0]!.input).toBe(shown[1]!.input);
    expect(out.at(-1)).toMatchObject({ type: TOO_MANY_ERRORS, ctx: { omitted: 500 - shown.length } });
  });

  it('bounds the strings of loc, msg and ctx too', () => {
    const key = 'k'.repeat(2000);
    const [item] = boundDetail([{ type: 'extra_forbidden', loc: ['body', key], msg: `Value error, ${key}`, input: 1, ctx: { error: key } }]);
    const cut = `${'k'.repeat(1000)}…[truncated: 1000 more characters]`;
    expect(item).toStrictEqual({ type: 'extra_forbidden', loc: ['body', cut], msg: `Value error, ${'k'.repeat(987)}…[truncated: 1013 more characters]`, input: 1, ctx: { error: cut } });
    expect(Object.keys(item!)).toStrictEqual(['type', 'loc', 'msg', 'input', 'ctx']);
  });

  it('an item too large on its own is counted, not listed', () => {
    const loc = ['body', ...Array.from({ length: 80 }, (_, i) => `${'p'.repeat(1000)}${i}`)];
    const out = boundDetail([{ type: 'missing', loc, msg: 'Field required', input: null }]);
    expect(out).toStrictEqual([{ type: TOO_MANY_ERRORS, loc: [], msg: '1 more error left out of this answer', input: null, ctx: { omitted: 1 } }]);
  });
});
