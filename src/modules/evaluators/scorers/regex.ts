import { compileLinear, type LinearPattern } from '../../../lib/linearPattern.js';
import { pass, type Score, type Scored } from './types.js';

export interface RegexSettings {
  pattern: string;
  /** Any of i, m, s; u is always on. */
  flags?: string;
}

const MAX_PATTERN_LENGTH = 1000;

/**
 * The pattern as every scoring runs it (JavaScript's syntax with the `u` flag, on the linear-time
 * engine of src/lib/linearPattern.ts; search semantics: anchor with ^ and $ to match the whole
 * output), or why it is refused: it does not compile, or uses what that engine cannot run (a
 * back-reference, a look-around). Checked when the evaluator is made; a pattern stored before that
 * engine which it refuses is never run on JavaScript's own (compileScorer scores each item as an
 * error saying why).
 */
export function compileRegex(settings: RegexSettings): LinearPattern | string {
  if (settings.pattern.length > MAX_PATTERN_LENGTH) return `a pattern may have at most ${MAX_PATTERN_LENGTH} characters`;
  const flags = settings.flags ?? '';
  if (!/^[ims]*$/u.test(flags) || new Set(flags).size !== flags.length) return 'flags may be any of i, m and s, each once';
  return compileLinear(settings.pattern, flags);
}

export function matchesRegex(re: LinearPattern, item: Scored): Score {
  return pass(re.test(item.output));
}
