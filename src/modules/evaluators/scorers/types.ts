/**
 * What scoring one item gives: a score (1 or 0 for pass/fail evaluators, 1 to 5 for a judge on
 * that scale) and whether it passed (null on a scale without a pass mark), or why it could not be
 * scored (an item without the expected value the evaluator compares with, a judge's answer that
 * says no score). Scorers are pure and never throw on an item.
 */
export type Score = { score: number; passed: boolean | null; reason?: string } | { error: string };

/** One item as scorers see it: the model's output and the item's expected value (any JSON, or absent). */
export interface Scored {
  output: string;
  expected?: unknown;
}

export const pass = (ok: boolean, reason?: string): Score =>
  reason === undefined ? { score: ok ? 1 : 0, passed: ok } : { score: ok ? 1 : 0, passed: ok, reason };

/** Code points, as Python's len (what a person counts as characters, emoji included). */
export const charCount = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};
