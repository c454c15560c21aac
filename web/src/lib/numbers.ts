/**
 * Numbers in results exactly as the CLI prints them: the console uses the module the CLI uses
 * (src/lib/numbers.ts, pure), so the terminal, the CSV's reader and the browser see the same digits.
 */
export { dash as DASH, fixed, metricValue, pct, pValue, range, relPct, usd } from '../../../src/lib/numbers.js';
