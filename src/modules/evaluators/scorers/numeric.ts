import { pass, type Score, type Scored } from './types.js';

export interface NumericSettings {
  /** The largest difference that still passes: absolute, or a share of |expected| when relative. */
  tolerance: number;
  relative?: boolean;
}

/** A number written as text: the whole text once trimmed (no units, no thousands separators). */
function numberIn(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const n = Number(value.trim());
  return Number.isFinite(n) ? n : null;
}

export function numericClose(settings: NumericSettings, item: Scored): Score {
  if (item.expected === undefined || item.expected === null) return { error: 'the item has no expected value' };
  const expected = numberIn(item.expected);
  if (expected === null) return { error: 'the expected value is not a number' };
  const output = numberIn(item.output);
  if (output === null) return pass(false, 'the output is not a number');
  const bound = settings.relative === true ? settings.tolerance * Math.abs(expected) : settings.tolerance;
  return pass(Math.abs(output - expected) <= bound);
}
