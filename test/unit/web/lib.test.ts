import { describe, expect, it } from 'vitest';
import { ApiError, problemsOf } from '../../../web/src/lib/errors.js';
import { formatTime, matches, sortedLabels } from '../../../web/src/lib/format.js';

describe('console formatting', () => {
  it.each<[string | null, string]>([
    ['2026-03-01T12:34:56.789Z', '2026-03-01 12:34:56 UTC'],
    ['2026-03-01T12:34:56+02:00', '2026-03-01 10:34:56 UTC'],
    [null, '–'],
    ['not a date', 'not a date'],
  ])('formatTime(%s) → %s', (iso, shown) => {
    expect(formatTime(iso)).toBe(shown);
  });

  it('puts production first, then the other labels by name', () => {
    expect(sortedLabels({ staging: 3, canary: 4, production: 2 })).toEqual([
      ['production', 2],
      ['canary', 4],
      ['staging', 3],
    ]);
  });

  it.each<[string, Array<string | null>, boolean]>([
    ['', ['anything'], true],
    ['WEL', ['welcome'], true],
    ['  come ', ['welcome'], true],
    ['greets', ['welcome', 'greets new users'], true],
    ['x', ['welcome', null], false],
  ])('matches(%j, %j) → %s', (search, fields, expected) => {
    expect(matches(search, ...fields)).toBe(expected);
  });
});

describe("the API's errors as the console shows them", () => {
  it.each<[unknown, number, Array<{ field: string | null; message: string }>]>([
    ["Prompt 'x' not found", 404, [{ field: null, message: "Prompt 'x' not found" }]],
    [
      [
        { type: 'missing', loc: ['body', 'template'], msg: 'Field required' },
        { type: 'value_error', loc: ['body', 'variants', 0, 'version'], msg: 'no such version' },
        { type: 'missing', loc: ['header', 'x-api-key'], msg: 'Field required' },
        { type: 'value_error', loc: ['body'], msg: 'bad body' },
      ],
      422,
      [
        { field: 'template', message: 'Field required' },
        { field: 'variants.0.version', message: 'no such version' },
        { field: 'header.x-api-key', message: 'Field required' },
        { field: null, message: 'bad body' },
      ],
    ],
    [null, 500, [{ field: null, message: 'The server answered 500' }]],
  ])('problemsOf(%j)', (detail, status, expected) => {
    expect(problemsOf(detail, status)).toEqual(expected);
  });

  it('finds the message of a control, and what no control shows', () => {
    const error = new ApiError(422, [
      { loc: ['body', 'variants', 1, 'weight'], msg: 'must be positive' },
      { loc: ['body', 'name'], msg: 'too long' },
      { loc: ['body'], msg: 'one primary at most' },
    ]);
    expect(error.forField('variants')).toBe('must be positive');
    expect(error.forField('name')).toBe('too long');
    expect(error.forField('coverage')).toBeUndefined();
    expect(error.general(['variants', 'name'])).toEqual(['one primary at most']);
    expect(error.message).toBe('variants.1.weight: must be positive; name: too long; one primary at most');
  });
});
