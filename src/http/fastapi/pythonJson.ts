// Emulates CPython 3.11 `json.loads(body_bytes)` (the C scanner in Modules/_json.c, default
// settings) so that JSON syntax errors carry exactly the message and position FastAPI reports.
import { Fail, INT_MAX_STR_DIGITS, MAX_NESTING_DEPTH, Scanner } from './pythonJsonScanner.js';
import { codePointLength } from '../../lib/pythonText.js';

export { INT_MAX_STR_DIGITS, MAX_NESTING_DEPTH };

interface PythonJsonError {
  ok: false;
  /** 0-based index in code points (a Python str index), as `JSONDecodeError.pos`. */
  pos: number;
  /** `JSONDecodeError.msg`, or the message of the other exception when `fatal`. */
  msg: string;
  /**
   * Python raised something other than JSONDecodeError (RecursionError, or ValueError for an
   * integer literal over 4300 digits); FastAPI turns that into a 400, not a 422.
   */
  fatal?: true;
}

export type PythonJsonResult = { ok: true; value: unknown } | PythonJsonError;

export interface DecodeOptions {
  /**
   * The caller has checked that the text nests no deeper than MAX_NESTING_DEPTH and holds no
   * integer literal longer than INT_MAX_STR_DIGITS (src/http/fastapi/jsonPrescan.ts does, on the bytes):
   * a text JSON.parse accepts is then not looked at again.
   */
  withinPythonLimits?: boolean;
}

export function decodePythonJson(text: string, options: DecodeOptions = {}): PythonJsonResult {
  // V8's JSON.parse accepts a strict subset of what Python accepts and builds the same values
  // (last duplicate wins, 1e400 -> Infinity), so the hand-written scanner only runs for
  // invalid input, NaN/Infinity literals, and documents that could hit Python's limits.
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Most such texts are simply invalid: find Python's error without building anything (an
    // anonymous client's 1 MB of "[1,1,…,x" must cost a scan, not 500 000 values). Only a text
    // Python accepts and V8 does not (NaN, Infinity) is then scanned again to build its value.
    return checkDocument(text) ?? scanDocument(text);
  }
  if (!options.withinPythonLimits && mayExceedPythonLimits(text)) return checkDocument(text) ?? { ok: true, value };
  return { ok: true, value };
}

function mayExceedPythonLimits(text: string): boolean {
  return (
    (text.length > MAX_NESTING_DEPTH * 2 && nestsDeeperThan(text, MAX_NESTING_DEPTH)) ||
    (text.length > INT_MAX_STR_DIGITS && hasDigitRunLongerThan(text, INT_MAX_STR_DIGITS))
  );
}

/**
 * Whether valid JSON text nests containers deeper than `max`, skipping strings. One pass over the
 * characters: a wide document (an array of 50 000 objects) no longer falls to the slow scanner.
 */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // JSON.parse accepted the text, so every string is closed; skip to its closing quote.
      for (i++; text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c /* \ */) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/**
 * Whether `max` + 1 digits follow one another anywhere (strings included: a hint, the scanner
 * decides). A counter, not the pattern `[0-9]{4301}`, which restarts at every digit of a shorter
 * run: 1 MB of 4300-digit numbers cost seconds of CPU before any key was checked.
 */
function hasDigitRunLongerThan(text: string, max: number): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (++run > max) return true;
    } else run = 0;
  }
  return false;
}

function scanDocument(text: string): PythonJsonResult {
  try {
    return { ok: true, value: new Scanner(text).document() };
  } catch (e) {
    return failure(text, e);
  }
}

/** Python's error for `text`, or null when Python would decode it. */
function checkDocument(text: string): PythonJsonError | null {
  try {
    new Scanner(text, false).document();
    return null;
  } catch (e) {
    return failure(text, e);
  }
}

function failure(text: string, e: unknown): PythonJsonError {
  if (!(e instanceof Fail)) throw e;
  const pos = codePointLength(text.slice(0, e.pos));
  return e.fatal ? { ok: false, pos, msg: e.msg, fatal: true } : { ok: false, pos, msg: e.msg };
}
