/**
 * Numbers in results exactly as the CLI prints them: the console uses the CLI's own pure module,
 * so the terminal, the CSV's reader and the browser see the same digits.
 */
export { dash as DASH, fixed, type Interval, pct, pValue, range, relPct } from '../../../src/cli/numbers.js';
