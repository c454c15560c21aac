// Scalar coercion and formatting rules of pydantic-core (v2, lax "python" mode), checked
// against pydantic 2.13 / pydantic-core 2.46. Pure functions, shared by pydanticValidator.ts.

import { pythonStringRepr } from '../../lib/pythonText.js';

/** Rust's `str::trim` (Unicode White_Space), which pydantic applies before parsing numbers. */
function rustTrim(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isRustWhitespace(s.charCodeAt(start))) start++;
  while (end > start && isRustWhitespace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

function isRustWhitespace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return (
    c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000
  );
}

// Rust's f64 FromStr grammar: no whitespace, no hex, "inf"/"infinity"/"nan" in any case.
const RUST_FLOAT = /^[+-]?(?:inf|infinity|nan|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)$/i;

function rustParseFloat(s: string): number | undefined {
  if (!RUST_FLOAT.test(s)) return undefined;
  const body = s.charCodeAt(0) === 0x2b || s.charCodeAt(0) === 0x2d ? s.slice(1) : s;
  const c = body.charCodeAt(0) | 0x20;
  if (c === 0x6e /* n */) return NaN;
  if (c === 0x69 /* i */) return s.charCodeAt(0) === 0x2d ? -Infinity : Infinity;
  return Number(s);
}

/** pydantic's `strip_underscores`: single underscores between other characters only. */
function stripUnderscores(s: string): string | undefined {
  if (!s.includes('_') || s.startsWith('_') || s.endsWith('_') || s.includes('__')) return undefined;
  return s.replaceAll('_', '');
}

/** float from str; undefined means `float_parsing`. Non-finite results are the caller's concern. */
export function parseFloatStr(s: string): number | undefined {
  const direct = rustParseFloat(rustTrim(s));
  if (direct !== undefined) return direct;
  // pydantic retries on the untrimmed text with underscores removed, so " 1_0" is rejected.
  const stripped = stripUnderscores(s);
  return stripped === undefined ? undefined : rustParseFloat(stripped);
}

export type IntParse = number | 'int_parsing' | 'int_parsing_size';

const JSON_INT = /^-?(?:0|[1-9][0-9]*)$/;
const JSON_INT_PREFIX = /^-?[1-9][0-9]*/;

/**
 * int from str, as pydantic-core's `str_as_int`: first the text as a JSON integer (jiter, which
 * refuses digit runs over 4300 chars), then a cleaned-up form (trimmed, "+" dropped, leading
 * zeros, ".000" and single underscores removed) that must again be a JSON integer.
 */
export function parseIntStr(s: string): IntParse {
  if (JSON_INT.test(s)) {
    if (s.length > 4300) return 'int_parsing_size';
    return Number(s) || 0;
  }
  if (s.length > 4300 && (JSON_INT_PREFIX.exec(s)?.[0].length ?? 0) > 4300) return 'int_parsing_size';
  const cleaned = cleanIntStr(s);
  if (cleaned === undefined || cleaned.length > 4300 || !JSON_INT.test(cleaned)) return 'int_parsing';
  return Number(cleaned) || 0;
}

function cleanIntStr(input: string): string | undefined {
  let s = rustTrim(input);
  if (s.startsWith('+')) {
    if (s.startsWith('-', 1)) return undefined;
    s = s.slice(1);
  }
  let sign = '';
  if (s.startsWith('-')) {
    if (s.startsWith('-', 1) || s.startsWith('+', 1)) return undefined;
    sign = '-';
    s = s.slice(1);
  }
  const z = stripLeadingZeros(s);
  if (z === undefined) return undefined;
  s = z;
  const dot = s.indexOf('.');
  if (dot !== -1 && dot < s.length - 1 && /^0+$/.test(s.slice(dot + 1))) s = s.slice(0, dot);
  const stripped = stripUnderscores(s);
  if (stripped !== undefined) return sign + stripped;
  // Nothing was cleaned away, so the JSON-integer attempt already said no.
  if (input.length === s.length) return undefined;
  return sign + s;
}

/** "0_07" -> "7", "000" -> "0", "00.0" -> "0.0", "0-1" -> "-1" (sic); a non-digit start fails. */
function stripLeadingZeros(s: string): string | undefined {
  const c0 = s.charCodeAt(0);
  if (c0 !== 0x30) return (c0 >= 0x31 && c0 <= 0x39) || c0 === 0x2d ? s : undefined;
  for (let i = 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x30 || c === 0x5f) continue;
    if ((c >= 0x31 && c <= 0x39) || c === 0x2d) return s.slice(i);
    if (c === 0x2e) return s.slice(i - 1);
    return undefined;
  }
  return s.slice(-1);
}

/** bool from str: exact words, ASCII case-insensitive, not trimmed. */
export function parseBoolStr(s: string): boolean | undefined {
  if (s.length > 5) return undefined;
  switch (s.toLowerCase()) {
    case '1':
    case 't':
    case 'y':
    case 'on':
    case 'yes':
    case 'true':
      return true;
    case '0':
    case 'f':
    case 'n':
    case 'no':
    case 'off':
    case 'false':
      return false;
    default:
      return undefined;
  }
}

/** Within pydantic's i64 window for float -> int (`float_as_int`). */
export function isI64Float(n: number): boolean {
  return n > -(2 ** 63) && n < 2 ** 63;
}

/**
 * Numbers in pydantic messages go through Rust's Display: plain decimal, never an exponent,
 * integral floats without ".0" ("0", "0.5", "0.0000001").
 */
export function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  const s = String(n);
  const e = s.indexOf('e');
  if (e === -1) return s;
  const neg = s.startsWith('-');
  const mantissa = s.slice(neg ? 1 : 0, e);
  const exp = Number(s.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const digits = dot === -1 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const point = (dot === -1 ? mantissa.length : dot) + exp;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (neg ? '-' : '') + out;
}

/** Python's repr() of a literal value, as pydantic prints it in literal_error. */
export function pyRepr(v: unknown): string {
  if (typeof v === 'string') return pythonStringRepr(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (v === null) return 'None';
  return String(v);
}
