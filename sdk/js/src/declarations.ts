/**
 * Typed variables, checked in-process as the server checks them before a render (docs/sdks.md,
 * "Typed variables"): per declared name in declaration order, a required one absent is the
 * `missing` item, a value that is not a string or breaks its enum, length or pattern is pydantic's
 * item; an absent optional one gets its default ("" when none). Patterns are compiled once, when
 * the bundle is indexed, as the server compiles them: JavaScript's syntax and meaning (the `u`
 * flag), written in RE2's syntax (re2Syntax.ts) for re2js, a linear-time engine (RE2's automata),
 * search semantics. So the answers agree, and no pattern takes more than linear time on a value.
 */

import { RE2JS } from 're2js';
import { toRe2, Unsupported } from './re2Syntax.js';

/** One item of a FastAPI 422 (evaluate.ts's ValidationItem, which this file may not import: a cycle). */
interface ValidationItem {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

export interface WireDeclaration {
  required: boolean;
  enum?: string[];
  pattern?: string;
  min_length?: number;
  max_length?: number;
  default?: string;
}

export interface PreparedCheck {
  name: string;
  required: boolean;
  fallback: string;
  enum: readonly string[] | null;
  expected: string | null;
  pattern: string | null;
  re: RE2JS | null;
  min: number | null;
  max: number | null;
}

/**
 * A pattern as the server runs it (its compileLinear), or null when the engine refuses it (a
 * back-reference, a look-around, a repeat count above 1000, a pattern too large): the server
 * refuses those when a version is made and leaves a version stored before out of the bundle, so
 * null is for a bundle this client does not expect; it asks the server for that prompt. Any other
 * error is a bug of the translation, thrown as on the server (the refresh reports it).
 */
function compilePattern(pattern: string): RE2JS | null {
  let source: string;
  try {
    source = toRe2(pattern, { ignoreCase: false, multiline: false, dotAll: false });
  } catch (error) {
    if (error instanceof Unsupported || error instanceof SyntaxError) return null;
    throw error;
  }
  try {
    return RE2JS.compile(source);
  } catch {
    return null;
  }
}

/** Null when a pattern does not compile here: the client then asks the server for that prompt. */
export function prepareChecks(declared: Record<string, WireDeclaration>): PreparedCheck[] | null {
  const checks: PreparedCheck[] = [];
  for (const [name, d] of Object.entries(declared)) {
    let re: RE2JS | null = null;
    if (d.pattern !== undefined) {
      re = compilePattern(d.pattern);
      if (re === null) return null;
    }
    checks.push({
      name,
      required: d.required,
      fallback: d.default ?? '',
      enum: d.enum ?? null,
      expected: d.enum === undefined ? null : expectedList(d.enum.map(pyRepr)),
      pattern: d.pattern ?? null,
      re,
      min: d.min_length ?? null,
      max: d.max_length ?? null,
    });
  }
  return checks;
}

const characters = (n: number) => (n === 1 ? 'character' : 'characters');

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The first rule a value breaks, as pydantic reports it (without loc and input); null when it passes. */
function failure(check: PreparedCheck, value: unknown): Pick<ValidationItem, 'type' | 'msg' | 'ctx'> | null {
  if (typeof value !== 'string') return { type: 'string_type', msg: 'Input should be a valid string' };
  if (check.enum !== null && !check.enum.includes(value))
    return { type: 'literal_error', msg: `Input should be ${check.expected}`, ctx: { expected: check.expected } };
  if (check.min !== null && codePoints(value) < check.min)
    return { type: 'string_too_short', msg: `String should have at least ${check.min} ${characters(check.min)}`, ctx: { min_length: check.min } };
  if (check.max !== null && codePoints(value) > check.max)
    return { type: 'string_too_long', msg: `String should have at most ${check.max} ${characters(check.max)}`, ctx: { max_length: check.max } };
  if (check.re !== null && !check.re.test(value))
    return { type: 'string_pattern_mismatch', msg: `String should match pattern '${check.pattern}'`, ctx: { pattern: check.pattern } };
  return null;
}

/** The inputs to render (defaults filled in), or the 422's items. */
export function applyChecks(checks: readonly PreparedCheck[], inputs: Record<string, unknown>): Record<string, unknown> | ValidationItem[] {
  const items: ValidationItem[] = [];
  let filled: Record<string, unknown> | null = null;
  for (const check of checks) {
    if (!Object.hasOwn(inputs, check.name)) {
      if (check.required) items.push({ type: 'missing', loc: ['body', 'inputs', check.name], msg: 'Field required', input: inputs });
      else {
        filled ??= { ...inputs };
        filled[check.name] = check.fallback;
      }
      continue;
    }
    const value = inputs[check.name];
    const failed = failure(check, value);
    if (failed === null) continue;
    const item: ValidationItem = { type: failed.type, loc: ['body', 'inputs', check.name], msg: failed.msg, input: value };
    if (failed.ctx !== undefined) item.ctx = failed.ctx;
    items.push(item);
  }
  return items.length > 0 ? items : (filled ?? inputs);
}

function expectedList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** Python's repr() of a string, as pydantic prints the literals of its literal_error. */
function pyRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    const pairs = c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
    const paired = pairs || (c >= 0xdc00 && c <= 0xdfff && i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff);
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c < 0x20 || (c >= 0x7f && c <= 0xa0) || c === 0xad) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0xd800 && c <= 0xdfff && !paired) out += `\\u${c.toString(16)}`;
    else out += ch;
    if (pairs) out += s[++i]!;
  }
  return out + quote;
}
