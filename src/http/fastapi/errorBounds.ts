// Every error answer is bounded (docs/runtime-contract.md, "Error answers are bounded"). A 422
// echoes what was sent, and several items may echo the same large value (each missing template
// variable echoes the whole `inputs`): unbounded, one 900 KB body answered 450 MB. The bounds are
// computed on the values themselves, member by member, so nothing large is ever serialised.
import type { ErrorItem } from './pydanticScalars.js';

export const ERROR_BOUNDS = {
  /** Characters (code points) kept of any one string: an echoed value, a key, a `loc` part, a `msg`. */
  stringChars: 1000,
  /** Compact JSON bytes (UTF-8) of an echoed array or object, marker included. */
  containerBytes: 4096,
  /** Items in one `detail` list, the closing "left out" item included. */
  items: 100,
  /** Compact JSON bytes (UTF-8) of the whole `detail` list. */
  detailBytes: 32_768,
} as const;

/** What every cut ends with, so a client can tell a truncated echo from a value that was sent. */
const TRUNCATED = '…[truncated: ';
/** The type of the last item of a list that left errors out. */
export const TOO_MANY_ERRORS = 'too_many_errors';

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

interface Bounded {
  value: unknown;
  /** Its compact JSON length in UTF-8 bytes. */
  bytes: number;
}

/**
 * `s` whole when it has at most 1000 characters, else its first 1000 followed by
 * `…[truncated: N more characters]`. Reads only the first 1000 characters, then counts the rest.
 */
export function boundString(s: string): string {
  const max = ERROR_BOUNDS.stringChars;
  // UTF-16 length is at least the code-point count: most strings are decided here.
  if (s.length <= max) return s;
  let end = 0;
  for (let kept = 0; kept < max && end < s.length; kept++) end += isPairAt(s, end) ? 2 : 1;
  if (end >= s.length) return s;
  const rest = codePointsFrom(s, end);
  return `${s.slice(0, end)}${TRUNCATED}${rest} more character${rest === 1 ? '' : 's'}]`;
}

const SURROGATE = /[\ud800-\udfff]/;

function codePointsFrom(s: string, start: number): number {
  // Without surrogates every UTF-16 unit is a character; the engine answers this test at once for
  // a string of one-byte characters, and natively for the rest.
  if (!SURROGATE.test(s)) return s.length - start;
  let count = 0;
  for (let i = start; i < s.length; i += isPairAt(s, i) ? 2 : 1) count++;
  return count;
}

function isPairAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff) return false;
  const d = s.charCodeAt(i + 1);
  return d >= 0xdc00 && d <= 0xdfff;
}

/** The UTF-8 length of `JSON.stringify(s)`, without building it. */
function jsonStringBytes(s: string): number {
  let bytes = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c === 0x22 || c === 0x5c) bytes += 2;
      else if (c >= 0x20) bytes += 1;
      else bytes += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
    } else if (c < 0x800) bytes += 2;
    else if (isPairAt(s, i)) {
      bytes += 4;
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff)
      bytes += 6; // a lone surrogate is written as \udxxx
    else bytes += 3;
  }
  return bytes;
}

function boundLeaf(value: unknown): Bounded {
  if (value === null || value === undefined) return { value, bytes: 4 };
  switch (typeof value) {
    case 'string': {
      const cut = boundString(value);
      return { value: cut, bytes: jsonStringBytes(cut) };
    }
    case 'number':
      return { value, bytes: Number.isFinite(value) ? String(value).length : 4 };
    case 'boolean':
      return { value, bytes: value ? 4 : 5 };
    default:
      // Nothing else comes out of a JSON body or our own errors; count it as JSON would write it.
      return { value, bytes: Buffer.byteLength(JSON.stringify(value) ?? 'null') };
  }
}

/** Room kept for the marker member: `,"…[truncated: N more keys]":null` with N up to 16 digits. */
const MARKER_ROOM = 56;

/**
 * `value` whole when it fits in `budget` bytes of JSON with every string within its bound (the very
 * same value, so it is written byte for byte as before), else a copy that keeps members in order
 * while they fit and ends with one marker member: `"…[truncated: N more items]"` in an array, the
 * key `"…[truncated: N more keys]"` (value null) in an object. A member that does not fit whole is
 * itself cut when it is an array or object. Strings are cut, not fitted: a parent leaves out a
 * string that does not fit.
 */
function boundValue(value: unknown, budget: number): Bounded {
  if (typeof value !== 'object' || value === null) return boundLeaf(value);
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return boundLeaf(value);
  return Array.isArray(value) ? boundArray(value, budget) : boundObject(value as Record<string, unknown>, budget);
}

function boundArray(array: readonly unknown[], budget: number): Bounded {
  let bytes = 2;
  let out: unknown[] | undefined;
  for (let i = 0; i < array.length; i++) {
    const comma = i === 0 ? 0 : 1;
    const room = budget - bytes - comma - (i === array.length - 1 ? 0 : MARKER_ROOM);
    const member = array[i];
    // JSON writes undefined and functions in an array as null.
    const child = member === undefined || typeof member === 'function' ? { value: member, bytes: 4 } : boundValue(member, room);
    if (child.bytes > room) {
      out ??= array.slice(0, i);
      const marker = `${TRUNCATED}${array.length - i} more item${array.length - i === 1 ? '' : 's'}]`;
      out.push(marker);
      return { value: out, bytes: bytes + comma + jsonStringBytes(marker) };
    }
    if (out === undefined && child.value !== member) out = array.slice(0, i);
    out?.push(child.value);
    bytes += comma + child.bytes;
  }
  return { value: out ?? array, bytes };
}

function boundObject(object: Record<string, unknown>, budget: number): Bounded {
  const keys = Object.keys(object);
  let bytes = 2;
  let written = 0;
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const member = object[key];
    // JSON leaves these keys out altogether.
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    const comma = written === 0 ? 0 : 1;
    const name = boundString(key);
    const nameBytes = jsonStringBytes(name) + 1;
    const room = budget - bytes - comma - nameBytes - (i === keys.length - 1 ? 0 : MARKER_ROOM);
    const child = boundValue(member, room);
    if (child.bytes > room) {
      out ??= copyKeys(object, keys, i);
      const marker = `${TRUNCATED}${keys.length - i} more key${keys.length - i === 1 ? '' : 's'}]`;
      put(out, marker, null);
      return { value: out, bytes: bytes + comma + jsonStringBytes(marker) + 1 + 4 };
    }
    if (out === undefined && (child.value !== member || name !== key)) out = copyKeys(object, keys, i);
    if (out !== undefined) put(out, name, child.value);
    bytes += comma + nameBytes + child.bytes;
    written++;
  }
  return { value: out ?? object, bytes };
}

function copyKeys(object: Record<string, unknown>, keys: readonly string[], upto: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let j = 0; j < upto; j++) put(out, keys[j]!, object[keys[j]!]);
  return out;
}

function put(object: Record<string, unknown>, key: string, value: unknown): void {
  // A plain assignment to "__proto__" would set the prototype instead of adding the key.
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

/** An echoed value within its bounds (the same value when it already was). */
export function boundEcho(value: unknown): unknown {
  return boundValue(value, ERROR_BOUNDS.containerBytes).value;
}

/** An item within its bounds, and its compact JSON length. */
function boundItem(item: ErrorItem, echoes: Map<unknown, Bounded>): { item: ErrorItem; bytes: number } {
  // Many items may echo one value (every missing variable echoes `inputs`): bound it once.
  let echo = echoes.get(item.input);
  if (echo === undefined) {
    echo = boundValue(item.input, ERROR_BOUNDS.containerBytes);
    echoes.set(item.input, echo);
  }
  const input = echo.value;
  let loc = item.loc;
  if (loc.some((part) => typeof part === 'string' && part.length > ERROR_BOUNDS.stringChars)) {
    loc = loc.map((part) => (typeof part === 'string' ? boundString(part) : part));
  }
  const msg = boundString(item.msg);
  const ctx = item.ctx === undefined ? undefined : (boundEcho(item.ctx) as Record<string, unknown>);
  // The literal's key order is the order written: type, loc, msg, input, ctx.
  const bounded =
    input === item.input && loc === item.loc && msg === item.msg && ctx === item.ctx
      ? item
      : ctx === undefined
        ? { type: item.type, loc, msg, input }
        : { type: item.type, loc, msg, input, ctx };
  // Everything but the echo is small: measured by writing it, with the echo's length added.
  const bytes = input === undefined ? jsonBytes(bounded) : jsonBytes({ ...bounded, input: null }) - 4 + echo.bytes;
  return { item: bounded, bytes };
}

function tooManyErrors(omitted: number): ErrorItem {
  const msg = `${omitted} more error${omitted === 1 ? '' : 's'} left out of this answer`;
  return { type: TOO_MANY_ERRORS, loc: [], msg, input: null, ctx: { omitted } };
}

/**
 * A `detail` list within its bounds: every item bounded, and items listed in order while the list
 * stays within 100 items and 32 KiB; when some do not fit, the last item (type `too_many_errors`)
 * says how many were left out. Items already within bounds are the very same objects.
 */
export function boundDetail(items: readonly ErrorItem[]): ErrorItem[] {
  const echoes = new Map<unknown, Bounded>();
  const out: ErrorItem[] = [];
  // Room for the closing item, at its longest (the count of every item).
  const reserve = 1 + jsonBytes(tooManyErrors(items.length));
  let bytes = 2;
  for (let i = 0; i < items.length; i++) {
    const after = items.length - i - 1;
    if (after > 0 && out.length === ERROR_BOUNDS.items - 1) break;
    const bounded = boundItem(items[i]!, echoes);
    const comma = out.length === 0 ? 0 : 1;
    if (bytes + comma + bounded.bytes + (after > 0 ? reserve : 0) > ERROR_BOUNDS.detailBytes) break;
    out.push(bounded.item);
    bytes += comma + bounded.bytes;
  }
  if (out.length < items.length) out.push(tooManyErrors(items.length - out.length));
  return out;
}
