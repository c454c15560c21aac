// The CPython 3.11 C scanner (Modules/_json.c: scan_once_unicode, scanstring_unicode,
// _match_number_unicode) transcribed index for index; positions here are UTF-16 indices.

/**
 * CPython's C scanner recurses once per nested container and shares the interpreter's
 * 1000-frame recursion limit with the Python frames below it (uvicorn + Starlette + FastAPI use
 * a few dozen). The true cut-off depends on the call stack, so this is an approximation.
 */
export const MAX_NESTING_DEPTH = 970;
/** sys.get_int_max_str_digits() default since 3.11. */
export const INT_MAX_STR_DIGITS = 4300;

const EXPECTING_VALUE = 'Expecting value';
const EXPECTING_NAME = 'Expecting property name enclosed in double quotes';
const EXPECTING_COLON = "Expecting ':' delimiter";
const EXPECTING_COMMA = "Expecting ',' delimiter";

export class Fail {
  constructor(
    readonly pos: number,
    readonly msg: string,
    readonly fatal = false,
  ) {}
}

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

type Container = unknown[] | Record<string, unknown>;

// What a checking scan keeps on its stack: the kind of each open container, never its contents.
const OPEN_ARRAY: unknown[] = [];
const OPEN_OBJECT: Record<string, unknown> = {};

export class Scanner {
  private readonly n: number;
  /** Index just after the token most recently read by `string` / `scalar`. */
  private end = 0;

  /**
   * With `build` false the scan only checks: it finds the same first error (or none) without
   * making any value, which is what an error answer needs, at a fraction of the cost.
   */
  constructor(
    private readonly s: string,
    private readonly build = true,
  ) {
    this.n = s.length;
  }

  private ws(i: number): number {
    while (i < this.n && isWs(this.s.charCodeAt(i))) i++;
    return i;
  }

  /** Iterative, so a hostile nesting depth cannot overflow the JS stack. */
  document(): unknown {
    const { s, n } = this;
    const stack: Container[] = [];
    const keys: string[] = [];
    let i = this.ws(0);
    for (;;) {
      let v: unknown;
      if (i >= n) throw new Fail(i, EXPECTING_VALUE);
      const c = s.charCodeAt(i);
      if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        const isObj = c === 0x7b;
        if (stack.length >= MAX_NESTING_DEPTH) {
          const what = isObj ? 'object' : 'array';
          const msg = `maximum recursion depth exceeded while decoding a JSON ${what} from a unicode string`;
          throw new Fail(i, msg, true);
        }
        const j = this.ws(i + 1);
        if (j < n && s.charCodeAt(j) === (isObj ? 0x7d : 0x5d)) {
          v = isObj ? {} : [];
          i = j + 1;
        } else {
          if (isObj) {
            stack.push(this.build ? {} : OPEN_OBJECT);
            i = this.key(j, keys);
          } else {
            stack.push(this.build ? [] : OPEN_ARRAY);
            i = j;
          }
          continue;
        }
      } else if (c === 0x22) {
        v = this.string(i + 1);
        i = this.end;
      } else {
        v = this.scalar(i);
        i = this.end;
      }
      // A value is complete: attach it, closing every container that ends right after it.
      for (;;) {
        const top = stack[stack.length - 1];
        i = this.ws(i);
        if (top === undefined) {
          if (i !== n) throw new Fail(i, 'Extra data');
          return v;
        }
        const isArr = Array.isArray(top);
        if (isArr) {
          if (this.build) top.push(v);
        } else {
          const key = keys.pop() as string;
          if (this.build) setKey(top, key, v);
        }
        const c2 = i < n ? s.charCodeAt(i) : -1;
        if (c2 === (isArr ? 0x5d : 0x7d)) {
          stack.pop();
          v = top;
          i++;
          continue;
        }
        if (c2 !== 0x2c) throw new Fail(i, EXPECTING_COMMA);
        i = this.ws(i + 1);
        if (!isArr) i = this.key(i, keys);
        break;
      }
    }
  }

  /** Reads `"name" :` at i and returns where the value starts. */
  private key(i: number, keys: string[]): number {
    if (i >= this.n || this.s.charCodeAt(i) !== 0x22) throw new Fail(i, EXPECTING_NAME);
    keys.push(this.string(i + 1));
    i = this.ws(this.end);
    if (i >= this.n || this.s.charCodeAt(i) !== 0x3a) throw new Fail(i, EXPECTING_COLON);
    return this.ws(i + 1);
  }

  /** Mirrors scanstring_unicode; `start` is the index after the opening quote. */
  private string(start: number): string {
    const { s, n } = this;
    const begin = start - 1;
    let out = '';
    let end = start;
    for (;;) {
      let next = end;
      let c = 0;
      for (; next < n; next++) {
        c = s.charCodeAt(next);
        if (c === 0x22 || c === 0x5c) break;
        if (c <= 0x1f) throw new Fail(next, 'Invalid control character at');
      }
      if (next >= n) throw new Fail(begin, 'Unterminated string starting at');
      if (next !== end && this.build) out += s.slice(end, next);
      next++;
      if (c === 0x22) {
        this.end = next;
        return out;
      }
      if (next === n) throw new Fail(begin, 'Unterminated string starting at');
      c = s.charCodeAt(next);
      if (c !== 0x75 /* u */) {
        end = next + 1;
        const ch = SIMPLE_ESCAPES[c];
        if (ch === undefined) throw new Fail(end - 2, 'Invalid \\escape');
        if (this.build) out += ch;
        continue;
      }
      next++;
      end = next + 4;
      if (end >= n) throw new Fail(next - 1, 'Invalid \\uXXXX escape');
      const cu = hex4(s, next);
      if (cu < 0) throw new Fail(end - 5, 'Invalid \\uXXXX escape');
      // Python joins \uD8xx\uDCxx into one code point; a lone surrogate is kept as is.
      if (cu >= 0xd800 && cu <= 0xdbff && end + 6 < n && s.charCodeAt(end) === 0x5c && s.charCodeAt(end + 1) === 0x75) {
        const cl = hex4(s, end + 2);
        if (cl < 0) throw new Fail(end + 1, 'Invalid \\uXXXX escape');
        if (cl >= 0xdc00 && cl <= 0xdfff) {
          if (this.build) out += String.fromCharCode(cu, cl);
          end += 6;
          continue;
        }
      }
      if (this.build) out += String.fromCharCode(cu);
    }
  }

  /** Constants and numbers (scan_once_unicode + _match_number_unicode). */
  private scalar(i: number): unknown {
    const s = this.s;
    switch (s.charCodeAt(i)) {
      case 0x6e:
        if (s.startsWith('null', i)) return this.token(i, 4, null);
        break;
      case 0x74:
        if (s.startsWith('true', i)) return this.token(i, 4, true);
        break;
      case 0x66:
        if (s.startsWith('false', i)) return this.token(i, 5, false);
        break;
      case 0x4e:
        if (s.startsWith('NaN', i)) return this.token(i, 3, NaN);
        break;
      case 0x49:
        if (s.startsWith('Infinity', i)) return this.token(i, 8, Infinity);
        break;
      case 0x2d:
        if (s.startsWith('-Infinity', i)) return this.token(i, 9, -Infinity);
        break;
    }
    return this.number(i);
  }

  private token(i: number, len: number, value: unknown): unknown {
    this.end = i + len;
    return value;
  }

  private number(start: number): number {
    const { s, n } = this;
    const last = n - 1;
    let i = start;
    if (s.charCodeAt(i) === 0x2d) {
      i++;
      if (i > last) throw new Fail(start, EXPECTING_VALUE);
    }
    const first = s.charCodeAt(i);
    if (first >= 0x31 && first <= 0x39) {
      i++;
      while (i <= last && isDigit(s.charCodeAt(i))) i++;
    } else if (first === 0x30) {
      i++;
    } else {
      throw new Fail(start, EXPECTING_VALUE);
    }
    let isFloat = false;
    if (i < last && s.charCodeAt(i) === 0x2e && isDigit(s.charCodeAt(i + 1))) {
      isFloat = true;
      i += 2;
      while (i <= last && isDigit(s.charCodeAt(i))) i++;
    }
    const e = s.charCodeAt(i);
    if (i < last && (e === 0x65 || e === 0x45)) {
      const eStart = i;
      i++;
      const sign = s.charCodeAt(i);
      if (i < last && (sign === 0x2d || sign === 0x2b)) i++;
      while (i <= last && isDigit(s.charCodeAt(i))) i++;
      // "1e" / "1e+" are not part of the number: Python backtracks and reports Extra data.
      if (isDigit(s.charCodeAt(i - 1))) isFloat = true;
      else i = eStart;
    }
    const digits = i - start - (s.charCodeAt(start) === 0x2d ? 1 : 0);
    if (!isFloat && digits > INT_MAX_STR_DIGITS) {
      const msg =
        `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion: ` +
        `value has ${digits} digits; use sys.set_int_max_str_digits() to increase the limit`;
      throw new Fail(start, msg, true);
    }
    this.end = i;
    return this.build ? Number(s.slice(start, i)) : 0;
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

const SIMPLE_ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: '\\',
  0x2f: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};

function hex4(s: string, at: number): number {
  let v = 0;
  for (let k = at; k < at + 4; k++) {
    const c = s.charCodeAt(k);
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    else return -1;
    v = (v << 4) | d;
  }
  return v;
}

function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  // A plain assignment to "__proto__" would replace the prototype instead of adding a key,
  // which is what JSON.parse (and a Python dict) does.
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}
