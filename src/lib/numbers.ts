/**
 * How the results report writes numbers: the CLI's table, and the web console, which imports this
 * very module (web/src/lib/numbers.ts), so the terminal and the browser cannot disagree. Pure and
 * free of Node APIs for that reason.
 */
export type Interval = readonly number[] | null;

export const dash = '-';
type Maybe = number | null | undefined;

/** Significant digits a small value keeps: $0.0000314 and $0.0000399 must not both read 0.0000. */
const SIGNIFICANT = 3;
/** Past this many decimals a value is written in exponent notation (1.23e-21) rather than a row of zeros. */
const MAX_DECIMALS = 20;

/** Decimals that give `x` at least `significant` significant digits, and never fewer than `digits`. */
function decimalsFor(x: number, digits: number, significant: number): number {
  if (x === 0 || Math.abs(x) >= 1) return digits;
  // The exponent of the leading digit, read from the rounded value (0.000999 rounds to 0.00100).
  const lead = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(significant)))));
  return Math.max(digits, significant - 1 - lead);
}

/**
 * Integers as they are, other numbers to 4 decimals, or more for a small value so that it keeps 3
 * significant digits (0.0000314, not 0.0000); a value too small for 20 decimals in exponent notation.
 */
export const fixed = (x: Maybe, digits = 4) => {
  if (x === null || x === undefined) return dash;
  if (Number.isInteger(x)) return String(x);
  if (!Number.isFinite(x)) return String(x);
  const decimals = decimalsFor(x, digits, SIGNIFICANT);
  return decimals > MAX_DECIMALS ? x.toPrecision(SIGNIFICANT) : x.toFixed(decimals);
};
/** A share as a percentage to one decimal; signed: "+" for zero and above (a lift). */
export const pct = (x: Maybe, signed = false) => (x === null || x === undefined ? dash : `${signed && x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);
export const pValue = (p: Maybe) => (p === null || p === undefined ? dash : p < 0.0001 ? '<0.0001' : p.toFixed(4));
/** An interval as "[low, high]" in the given format, or a dash when the data leave it undefined. */
export const range = (ci: Interval | undefined, f: (x: number) => string) => (ci ? `[${f(ci[0]!)}, ${f(ci[1]!)}]` : dash);
export const relPct = (x: number) => pct(x, true);
/**
 * Dollars: cents from $1 up ($12.35), and below $1 the digits `fixed` keeps ($0.0000314, $0.4200),
 * so a small cost never reads $0.0000; a minus sign before the dollar sign.
 */
export const usd = (x: Maybe) => {
  if (x === null || x === undefined) return dash;
  if (x === 0) return '$0';
  const text = Math.abs(x) >= 1 ? Math.abs(x).toFixed(2) : fixed(Math.abs(x));
  return `${x < 0 ? '-' : ''}$${text}`;
};
/** A metric's value in its own unit: dollars for a cost metric, else as `fixed` writes it. */
export const metricValue = (kind: string, x: Maybe) => (kind === 'cost_usd' ? usd(x) : fixed(x));
