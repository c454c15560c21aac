// Leaf validators (str, float, int, bool, literals) with pydantic v2's lax-mode errors, and the
// shared plumbing the container validators in pydanticValidator.ts build on.
import { Kind } from '@sinclair/typebox';
import { codePointLength, expectedList } from '../../lib/pythonText.js';
import { formatNumber, isI64Float, parseBoolStr, parseFloatStr, parseIntStr, pyRepr } from './pydanticCoercions.js';

export type Loc = (string | number)[];
export interface ErrorItem {
  type: string;
  loc: Loc;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

export interface State {
  errors: ErrorItem[];
  /** The loc of the value being checked; pushed and popped as the walk descends. */
  path: Loc;
}
export type Check = (value: unknown, st: State) => unknown;

export function report(st: State, type: string, msg: string, input: unknown, ctx?: Record<string, unknown>): void {
  // Literal key order is the serialized order: type, loc, msg, input, ctx.
  const loc = st.path.slice();
  st.errors.push(ctx === undefined ? { type, loc, msg, input } : { type, loc, msg, input, ctx });
}

export function reportAt(st: State, key: string, type: string, msg: string, input: unknown): void {
  st.path.push(key);
  report(st, type, msg, input);
  st.path.pop();
}

export const passThrough: Check = (v) => v;

/**
 * No string of a request may hold U+0000: PostgreSQL's text cannot store it (SQLite can), and the
 * service keys caches and marks float output with it. Refused at validation, like a validator of
 * a FastAPI model would (`value_error`), so both backends give the same answer before any storage.
 */
const NUL_REASON = 'String should not contain the NUL character (U+0000)';

function reportNul(st: State, input: unknown): void {
  report(st, 'value_error', `Value error, ${NUL_REASON}`, input, { error: NUL_REASON });
}

/**
 * Nor may a stored value hold what neither backend stores as sent. A lone UTF-16 surrogate (JSON's
 * `"\ud800"` without its pair) has no UTF-8 form: SQLite kept it as three U+FFFD and PostgreSQL as
 * one. pydantic's own item for such a string is `string_unicode` (its str validator cannot encode
 * it). A number that JSON decodes as NaN or ±Infinity (`NaN`, `Infinity`, `1e309`, an integer
 * beyond ±1.8e308) has no JSON form and was stored as null: pydantic's `finite_number`, as for a float
 * field. Only where a value is kept: fields marked `renderedOnly` (src/lib/schemas.ts) skip both.
 */
const UNICODE_MSG = 'Input should be a valid string, unable to parse raw data as a unicode string';

function reportUnicode(st: State, input: unknown): void {
  report(st, 'string_unicode', UNICODE_MSG, input);
}

/** A key's loc is the key followed by `[key]`, as pydantic names keys. */
function reportKey(st: State, key: string, problem: (st: State, input: unknown) => void): void {
  st.path.push(key, '[key]');
  problem(st, key);
  st.path.length -= 2;
}

/** An object key of a request: no NUL, and where the value is stored, no lone surrogate. */
export function checkKey(st: State, key: string, stored: boolean): void {
  if (stored && !key.isWellFormed()) reportKey(st, key, reportUnicode);
  else if (key.includes('\u0000')) reportKey(st, key, reportNul);
}

/**
 * `Any` (free JSON: metadata, params, dataset items, get_prompt's inputs): passed through
 * unchanged, but every string and key in it is checked for NUL like a typed string, and, where it
 * is stored, for lone surrogates, and every number for being finite. Recursion is bounded by the
 * body decoder's nesting limit.
 */
function freeJson(stored: boolean): Check {
  const walk: Check = (v, st) => {
    if (typeof v === 'string') {
      if (stored && !v.isWellFormed()) reportUnicode(st, v);
      else if (v.includes('\u0000')) reportNul(st, v);
    } else if (typeof v === 'number') {
      if (stored && !Number.isFinite(v)) report(st, 'finite_number', 'Input should be a finite number', v);
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        st.path.push(i);
        walk(v[i], st);
        st.path.pop();
      }
    } else if (typeof v === 'object' && v !== null) {
      for (const key of Object.keys(v)) {
        checkKey(st, key, stored);
        st.path.push(key);
        walk((v as Record<string, unknown>)[key], st);
        st.path.pop();
      }
    }
    return v;
  };
  return walk;
}

/** Free JSON that is stored. */
export const checkFreeJson = freeJson(true);
/** Free JSON that is only rendered and answered (a `renderedOnly` field): NUL is still refused. */
export const checkRenderedJson = freeJson(false);

/** Loose view of the TypeBox schema keywords this module reads. */
export interface Schema {
  [Kind]?: string;
  [key: string]: unknown;
}

export function num(schema: Schema, key: string): number | undefined {
  const v = schema[key];
  return typeof v === 'number' ? v : undefined;
}

export function compileString(schema: Schema, stored: boolean): Check {
  const min = num(schema, 'minLength');
  const max = num(schema, 'maxLength');
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
  const re = pattern === undefined ? undefined : toRegExp(pattern);
  const plural = (n: number) => (n === 1 ? 'character' : 'characters');
  return (v, st) => {
    if (typeof v !== 'string') {
      report(st, 'string_type', 'Input should be a valid string', v);
      return v;
    }
    // pydantic encodes a constrained string before measuring it: this error comes first, alone.
    if (stored && !v.isWellFormed()) {
      reportUnicode(st, v);
      return v;
    }
    // UTF-16 length bounds the code-point count from both sides; count only when it matters.
    if (min !== undefined && v.length < min * 2 && codePointLength(v) < min) {
      report(st, 'string_too_short', `String should have at least ${min} ${plural(min)}`, v, { min_length: min });
    } else if (max !== undefined && v.length > max && codePointLength(v) > max) {
      report(st, 'string_too_long', `String should have at most ${max} ${plural(max)}`, v, { max_length: max });
    } else if (re !== undefined && !re.test(v)) {
      report(st, 'string_pattern_mismatch', `String should match pattern '${pattern}'`, v, { pattern });
    } else if (v.includes('\u0000')) reportNul(st, v);
    return v;
  };
}

function toRegExp(pattern: string): RegExp {
  // These patterns are the route schemas' own (TypeBox, written here, each anchored and linear), never
  // a user's: those go through src/lib/linearPattern.ts. pydantic's Rust regex is Unicode-aware; not
  // every JS pattern is valid with the u flag.
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return new RegExp(pattern);
  }
}

export function compileNumber(schema: Schema, integer: boolean): Check {
  const le = num(schema, 'maximum');
  const lt = num(schema, 'exclusiveMaximum');
  const ge = num(schema, 'minimum');
  const gt = num(schema, 'exclusiveMinimum');
  const bounded = le !== undefined || lt !== undefined || ge !== undefined || gt !== undefined;
  const coerce = integer ? coerceInt : coerceFloat;
  return (v, st) => {
    const n = coerce(v, st);
    if (n === undefined || !bounded) return n ?? v;
    // pydantic-core checks in this order and stops at the first failure.
    if (le !== undefined && !(n <= le)) {
      report(st, 'less_than_equal', `Input should be less than or equal to ${formatNumber(le)}`, v, { le });
    } else if (lt !== undefined && !(n < lt)) {
      report(st, 'less_than', `Input should be less than ${formatNumber(lt)}`, v, { lt });
    } else if (ge !== undefined && !(n >= ge)) {
      report(st, 'greater_than_equal', `Input should be greater than or equal to ${formatNumber(ge)}`, v, { ge });
    } else if (gt !== undefined && !(n > gt)) {
      report(st, 'greater_than', `Input should be greater than ${formatNumber(gt)}`, v, { gt });
    }
    return n;
  };
}

/** float with allow_inf_nan=False; undefined after reporting an error. */
function coerceFloat(v: unknown, st: State): number | undefined {
  let n: number | undefined;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'boolean') n = v ? 1 : 0;
  else if (typeof v === 'string') {
    n = parseFloatStr(v);
    if (n === undefined) {
      report(st, 'float_parsing', 'Input should be a valid number, unable to parse string as a number', v);
      return undefined;
    }
  } else {
    report(st, 'float_type', 'Input should be a valid number', v);
    return undefined;
  }
  if (!Number.isFinite(n)) {
    report(st, 'finite_number', 'Input should be a finite number', v);
    return undefined;
  }
  return n;
}

function coerceInt(v: unknown, st: State): number | undefined {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) report(st, 'finite_number', 'Input should be a finite number', v);
    else if (!Number.isInteger(v)) {
      report(st, 'int_from_float', 'Input should be a valid integer, got a number with a fractional part', v);
    } else return v === 0 ? 0 : v;
    return undefined;
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const r = parseIntStr(v);
    if (typeof r === 'number') return r;
    if (r === 'int_parsing_size') {
      report(st, r, 'Unable to parse input string as an integer, exceeded maximum size', v);
    } else report(st, r, 'Input should be a valid integer, unable to parse string as an integer', v);
    return undefined;
  }
  report(st, 'int_type', 'Input should be a valid integer', v);
  return undefined;
}

export const checkBool: Check = (v, st) => {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const b = parseBoolStr(v);
    if (b !== undefined) return b;
  } else if (typeof v === 'number') {
    if (v === 0 || v === 1) return v === 1;
    // An integral float goes through pydantic's int path (bool_parsing); JSON 2 and 2.0 are
    // the same JS number, and both give bool_parsing in pydantic anyway.
    if (!Number.isInteger(v) || !isI64Float(v)) {
      report(st, 'bool_type', 'Input should be a valid boolean', v);
      return v;
    }
  } else {
    report(st, 'bool_type', 'Input should be a valid boolean', v);
    return v;
  }
  report(st, 'bool_parsing', 'Input should be a valid boolean, unable to interpret input', v);
  return v;
};

export function compileLiterals(values: unknown[]): Check {
  const expected = expectedList(values.map(pyRepr));
  const msg = `Input should be ${expected}`;
  return (v, st) => {
    if (!values.includes(v)) report(st, 'literal_error', msg, v, { expected });
    return v;
  };
}
