import { describe, expect, it } from 'vitest';
import { fixed, metricValue, usd } from '../../../src/lib/numbers.js';

/**
 * The digits the results write (CLI table and console): small values and money keep enough
 * significant digits that two different values never read the same ($0.0000314 vs $0.0000399
 * once both read 0.0000 next to a "+27.1% worse").
 */
describe('results numbers keep enough significant digits', () => {
  it.each<[number | null | undefined, string]>([
    [null, '-'],
    [undefined, '-'],
    [0, '0'],
    [42, '42'],
    [-3, '-3'],
    [0.2, '0.2000'],
    [0.1234, '0.1234'],
    [0.12345, '0.1235'], // 4 decimals already give 4 significant digits
    [0.05, '0.0500'],
    [12.3456789, '12.3457'],
    [-0.2, '-0.2000'],
    [0.0012345, '0.00123'], // 4 decimals would keep 2 significant digits
    [0.0000314, '0.0000314'],
    [0.0000399, '0.0000399'],
    [-0.0000314, '-0.0000314'],
    [0.00001, '0.0000100'],
    [0.000999, '0.000999'],
    [0.0009999, '0.00100'], // rounds up to the next power of ten: still 3 significant digits
    [1.5e-7, '0.000000150'],
    [1e-25, '1.00e-25'], // past 20 decimals: exponent notation, not a row of zeros
  ])('fixed(%s) → %s', (x, text) => {
    expect(fixed(x)).toBe(text);
  });

  it.each<[number | null | undefined, string]>([
    [null, '-'],
    [0, '$0'],
    [0.0000314, '$0.0000314'],
    [0.0000399, '$0.0000399'],
    [0.0012345, '$0.00123'],
    [0.42, '$0.4200'],
    [1, '$1.00'],
    [12.3456, '$12.35'],
    [1234.5, '$1234.50'],
    [-0.0000314, '-$0.0000314'],
    [2e-7, '$0.000000200'],
  ])('usd(%s) → %s', (x, text) => {
    expect(usd(x)).toBe(text);
  });

  it.each<[string, number, string]>([
    ['cost_usd', 0.0000314, '$0.0000314'],
    ['latency_ms', 812.5, '812.5000'],
    ['success_rate', 0.2, '0.2000'],
    ['mean', 0.0000314, '0.0000314'],
  ])('a %s metric of %s reads %s', (kind, x, text) => {
    expect(metricValue(kind, x)).toBe(text);
  });
});
