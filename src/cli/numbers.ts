/**
 * How the results report writes numbers, pure so the CLI and the web console can be checked to agree
 * (test/unit/web/results.test.ts compares this module with web/src/lib/numbers.ts over a table of values).
 */
export type Interval = number[] | null;

export const dash = '-';
export const fixed = (x: number | null, digits = 4) => (x === null ? dash : Number.isInteger(x) ? String(x) : x.toFixed(digits));
export const pct = (x: number | null, signed = false) => (x === null ? dash : `${signed && x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);
export const pValue = (p: number | null | undefined) => (p === null || p === undefined ? dash : p < 0.0001 ? '<0.0001' : p.toFixed(4));
export const range = (ci: Interval | undefined, f: (x: number) => string) => (ci ? `[${f(ci[0]!)}, ${f(ci[1]!)}]` : dash);
export const relPct = (x: number) => pct(x, true);
export const usd = (x: number | null) => (x === null ? dash : String(x));
