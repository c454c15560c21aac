import { expect } from 'vitest';
import type { Suff } from '../../../src/stats/index.js';

export function close(actual: number | null | undefined, expected: number, tol: number): void {
  expect(actual).not.toBeNull();
  expect(actual).toBeTypeOf('number');
  if (Math.abs((actual as number) - expected) > tol) {
    throw new Error(`expected ${actual} to be within ${tol} of ${expected}`);
  }
}

/** Every number anywhere in the value is finite (so JSON output can never hold NaN/Infinity). */
export function expectAllFinite(value: unknown, path = '$'): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${path} is ${value}`);
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) expectAllFinite(v, `${path}[${i}]`);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) expectAllFinite(v, `${path}.${k}`);
  }
}

export const prop = (n: number, successes: number): Suff => ({ n, sum: successes, sumSquares: successes });

/** Suff for a mean metric from a published mean and standard deviation. */
export function fromMeanSd(n: number, mean: number, sd: number): Suff {
  const sum = mean * n;
  return { n, sum, sumSquares: (n - 1) * sd * sd + (sum * sum) / n };
}
