/**
 * Numbers in results as the CLI prints them (src/cli/numbers.ts): the same digits in the terminal,
 * the CSV's spreadsheet and the console. test/unit/web/results.test.ts checks the two agree.
 */
export type Interval = readonly number[] | null;

export const DASH = '-';
/** Integers as they are, other numbers to 4 decimals. */
export const fixed = (x: number | null | undefined, digits = 4) => (x === null || x === undefined ? DASH : Number.isInteger(x) ? String(x) : x.toFixed(digits));
/** A share as a percentage to one decimal; signed: "+" for zero and above (a lift). */
export const pct = (x: number | null | undefined, signed = false) =>
  x === null || x === undefined ? DASH : `${signed && x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
export const pValue = (p: number | null | undefined) => (p === null || p === undefined ? DASH : p < 0.0001 ? '<0.0001' : p.toFixed(4));
export const relPct = (x: number) => pct(x, true);
/** An interval as "[low, high]" in the given format, or a dash when the data leave it undefined. */
export const range = (ci: Interval | undefined, f: (x: number) => string) => (ci ? `[${f(ci[0]!)}, ${f(ci[1]!)}]` : DASH);
