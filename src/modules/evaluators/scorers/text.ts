import { charCount, pass, type Score, type Scored } from './types.js';

export interface ExactMatchSettings {
  /** Default true. */
  case_sensitive?: boolean;
  /** Trim, and make every run of whitespace one space, on both sides before comparing. Default false. */
  normalize_whitespace?: boolean;
}

export interface ContainsSettings {
  /** The text the output must contain; without it, the item's expected text. */
  value?: string;
  case_sensitive?: boolean;
}

export interface LengthSettings {
  min_chars?: number;
  max_chars?: number;
}

const normalise = (s: string, settings: { case_sensitive?: boolean; normalize_whitespace?: boolean }) => {
  let out = settings.normalize_whitespace === true ? s.trim().replace(/\s+/gu, ' ') : s;
  if (settings.case_sensitive === false) out = out.toLowerCase();
  return out;
};

/** Deep equality of JSON values (object keys in any order). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => sameJson(x, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

const NO_EXPECTED: Score = { error: 'the item has no expected value' };

/**
 * The output equals the expected value: as text when the expected value is a string; otherwise the
 * output is read as JSON and compared as a value (key order and spacing aside).
 */
export function exactMatch(settings: ExactMatchSettings, item: Scored): Score {
  if (item.expected === undefined || item.expected === null) return NO_EXPECTED;
  if (typeof item.expected === 'string') return pass(normalise(item.output, settings) === normalise(item.expected, settings));
  let parsed: unknown;
  try {
    parsed = JSON.parse(item.output);
  } catch {
    return pass(false, 'the output is not JSON, and the expected value is');
  }
  return pass(sameJson(parsed, item.expected));
}

export function contains(settings: ContainsSettings, item: Scored): Score {
  const needle = settings.value ?? item.expected;
  if (needle === undefined || needle === null) return NO_EXPECTED;
  if (typeof needle !== 'string') return { error: 'the expected value is not text' };
  return pass(normalise(item.output, settings).includes(normalise(needle, settings)));
}

export function lengthWithin(settings: LengthSettings, item: Scored): Score {
  const n = charCount(item.output);
  if (settings.min_chars !== undefined && n < settings.min_chars) return pass(false, `${n} characters, fewer than ${settings.min_chars}`);
  if (settings.max_chars !== undefined && n > settings.max_chars) return pass(false, `${n} characters, more than ${settings.max_chars}`);
  return pass(true);
}
