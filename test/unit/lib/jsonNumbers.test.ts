import { describe, expect, it } from 'vitest';
import { outOfRangeNumber } from '../../../src/lib/jsonNumbers.js';

/** Numbers JSON can write and a double cannot hold, found in the text (JSON.parse would read them as Infinity). */
describe('outOfRangeNumber', () => {
  const RANGE = '(a number is at most ±1.7976931348623157e308)';
  it.each<[string, number | null, string?]>([
    ['{"a": 1, "b": [2.5, -3e10]}', null],
    ['1.7976931348623157e308', null], // the largest double
    ['-1.7976931348623157e308', null],
    ['1e-400', null], // too small reads as 0, as Python's json reads it: a value, not infinity
    [`${'9'.repeat(308)}`, null], // 308 digits: under the largest double
    ['1.7976931348623159e308', 0, `the number 1.7976931348623159e308 is out of range ${RANGE}`],
    ['{"a": 1e309}', 6, `the number 1e309 is out of range ${RANGE}`],
    ['[1, -1E400]', 4, `the number -1E400 is out of range ${RANGE}`],
    [`{"n": ${'9'.repeat(401)}}`, 6, `the number 999999999999…999999 (401 characters) is out of range ${RANGE}`],
    ['{"1e309": "1e309", "s": "\\"1e309"}', null], // in strings and keys: text
    ['{"s": "a\\\\", "n": 1e999}', 18, `the number 1e999 is out of range ${RANGE}`], // an escaped backslash ends no string early
    ['[1e309, 2e309]', 1, `the number 1e309 is out of range ${RANGE}`], // the first one
  ])('%s', (json, index, problem) => {
    JSON.parse(json); // every vector is JSON
    expect(outOfRangeNumber(json)).toEqual(index === null ? null : { index, problem });
  });
});
