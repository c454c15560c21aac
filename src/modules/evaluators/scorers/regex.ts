import safeRegex from 'safe-regex2';
import { pass, type Score, type Scored } from './types.js';

export interface RegexSettings {
  pattern: string;
  /** Any of i, m, s; u is always on. */
  flags?: string;
}

const MAX_PATTERN_LENGTH = 1000;

/**
 * The pattern as every scoring runs it (JavaScript's engine, the `u` flag, search semantics: anchor
 * with ^ and $ to match the whole output), or why it is refused: it does not compile, or it could
 * take exponential time on a long output (nested repetition such as (a+)+, or more than 25
 * repetitions: safe-regex2's star-height check). Checked when the evaluator is made, so scoring
 * never meets a pattern that could stall the process.
 */
export function compileRegex(settings: RegexSettings): RegExp | string {
  if (settings.pattern.length > MAX_PATTERN_LENGTH) return `a pattern may have at most ${MAX_PATTERN_LENGTH} characters`;
  const flags = settings.flags ?? '';
  if (!/^[ims]*$/u.test(flags) || new Set(flags).size !== flags.length) return 'flags may be any of i, m and s, each once';
  let re: RegExp;
  try {
    re = new RegExp(settings.pattern, `${flags}u`);
  } catch (error) {
    return `not a valid regular expression: ${(error as Error).message}`;
  }
  if (!safeRegex(re)) return 'a pattern with nested repetition (like (a+)+) or more than 25 repetitions could take exponential time: simplify it';
  return re;
}

export function matchesRegex(re: RegExp, item: Scored): Score {
  return pass(re.test(item.output));
}
