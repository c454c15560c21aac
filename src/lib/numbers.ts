/**
 * How the results report writes numbers: the CLI's table, and the web console, which imports this
 * very module (web/src/lib/numbers.ts), so the terminal and the browser cannot disagree. Pure and
 * free of Node APIs for that reason.
 */
export type Interval = readonly number[] | null;

export const dash = '-';
type Maybe = number | null | undefined;
/** Integers as they are, other numbers to 4 decimals. */
export const fixed = (x: Maybe, digits = 4) => (x === null || x === undefined ? dash : Number.isInteger(x) ? String(x) : x.toFixed(digits));
/** A share as a percentage to one decimal; signed: "+" for zero and above (a lift). */
export const pct = (x: Maybe, signed = false) => (x === null || x === undefined ? dash : `${signed && x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);
export const pValue = (p: Maybe) => (p === null || p === undefined ? dash : p < 0.0001 ? '<0.0001' : p.toFixed(4));
/** An interval as "[low, high]" in the given format, or a dash when the data leave it undefined. */
export const range = (ci: Interval | undefined, f: (x: number) => string) => (ci ? `[${f(ci[0]!)}, ${f(ci[1]!)}]` : dash);
export const relPct = (x: number) => pct(x, true);
export const usd = (x: number | null) => (x === null ? dash : String(x));
