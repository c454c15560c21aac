import { describe, expect, it } from 'vitest';
import { formatCost, plainDecimal } from '../../../web/src/lib/format.js';
import { keyState, rateLimitText } from '../../../web/src/lib/keys.js';
import { filtersFromSearch, isoToUtcLocal, runsPath, searchFromFilters, utcLocalToIso, type RunFilters } from '../../../web/src/lib/runFilters.js';
import { attemptStatus, costText, inputText, modelShown, promptShown, tokensText } from '../../../web/src/lib/runView.js';

describe('run filters in the URL', () => {
  it.each<[string, RunFilters]>([
    ['', {}],
    ['?prompt_id=welcome', { prompt_id: 'welcome' }],
    ['prompt_id=welcome&status=error', { prompt_id: 'welcome', status: 'error' }],
    ['?external_user_id=%20u%201%20&variant=', { external_user_id: 'u 1' }],
    ['?cursor=abc&limit=5&nonsense=1&experiment_id=e', { experiment_id: 'e' }],
    ['?since=2026-03-01T12%3A30%3A00Z&until=2026-03-02T00:00:00Z', { since: '2026-03-01T12:30:00Z', until: '2026-03-02T00:00:00Z' }],
    ['?prompt_id=a%26b%3Dc', { prompt_id: 'a&b=c' }],
  ])('filtersFromSearch(%j)', (search, filters) => {
    expect(filtersFromSearch(search)).toEqual(filters);
  });

  it.each<[RunFilters, string]>([
    [{}, ''],
    [{ prompt_id: '' }, ''],
    [{ status: 'ok', prompt_id: 'welcome' }, 'prompt_id=welcome&status=ok'],
    [{ external_user_id: 'a&b=c d' }, 'external_user_id=a%26b%3Dc+d'],
    [{ since: '2026-03-01T12:30:00Z' }, 'since=2026-03-01T12%3A30%3A00Z'],
  ])('searchFromFilters(%j) → %j', (filters, search) => {
    expect(searchFromFilters(filters)).toBe(search);
  });

  it.each<RunFilters>([{}, { prompt_id: 'welcome', variant: 'b', status: 'error' }, { external_user_id: 'ü & ?', since: '2026-03-01T00:00:00Z' }])(
    'round-trips %j',
    (filters) => {
      expect(filtersFromSearch(searchFromFilters(filters))).toEqual(filters);
    },
  );

  it.each<[RunFilters, string | null, number, string]>([
    [{}, null, 50, '/runs?limit=50'],
    [{ prompt_id: 'welcome', status: 'ok' }, null, 50, '/runs?prompt_id=welcome&status=ok&limit=50'],
    [{ experiment_id: 'x' }, 'next/page+1', 20, '/runs?experiment_id=x&limit=20&cursor=next%2Fpage%2B1'],
  ])('runsPath(%j, %j, %d)', (filters, cursor, limit, path) => {
    expect(runsPath(filters, cursor, limit)).toBe(path);
  });
});

describe('datetime-local values read and shown as UTC', () => {
  it.each<[string, string | null]>([
    ['', null],
    ['  ', null],
    ['2026-03-01T12:30', '2026-03-01T12:30:00Z'],
    ['2026-03-01T12:30:15', '2026-03-01T12:30:15Z'],
    ['2026-03-01T12:30:15.250', '2026-03-01T12:30:15.250Z'],
    ['2026-02-30T12:30', '2026-02-30T12:30:00Z'], // the API, not the console, judges dates
    ['yesterday', 'yesterday'],
  ])('utcLocalToIso(%j) → %j', (local, iso) => {
    expect(utcLocalToIso(local)).toBe(iso);
  });

  it.each<[string | undefined, string]>([
    [undefined, ''],
    ['', ''],
    ['2026-03-01T12:30:00Z', '2026-03-01T12:30'],
    ['2026-03-01T12:30:15Z', '2026-03-01T12:30:15'],
    ['2026-03-01T14:30:00+02:00', '2026-03-01T12:30'],
    ['nonsense', ''],
  ])('isoToUtcLocal(%j) → %j', (iso, local) => {
    expect(isoToUtcLocal(iso)).toBe(local);
  });

  it('a value typed, sent and shown again is the same value', () => {
    for (const local of ['2026-03-01T12:30', '2026-12-31T23:59:59']) expect(isoToUtcLocal(utcLocalToIso(local)!)).toBe(local);
  });
});

describe('costs without exponents and never a false $0', () => {
  it.each<[number, string]>([
    [0, '0'],
    [0.5, '0.5'],
    [1.5e-7, '0.00000015'],
    [1e-7, '0.0000001'],
    [1.2345e-10, '0.00000000012345'],
    [-2.5e-8, '-0.000000025'],
    [2e21, '2000000000000000000000'],
    [1.5e21, '1500000000000000000000'],
    [123.456, '123.456'],
  ])('plainDecimal(%d) → %s', (n, text) => {
    expect(plainDecimal(n)).toBe(text);
    expect(Number(text)).toBe(n);
  });

  it.each<[number | null | undefined, number | undefined, string]>([
    [null, undefined, '–'],
    [undefined, 3, '–'],
    [0, undefined, '$0'],
    [0, 3, '$0'],
    [0.000042, undefined, '$0.000042'],
    [3e-9, undefined, '$0.000000003'],
    [2e-7, undefined, '$0.0000002'],
    [3e-9, 3, '$0.000000003'],
    [0.000123456, 3, '$0.000123'],
    [0.00001234567, undefined, '$0.00001234567'],
    [0.1 + 0.2, 3, '$0.3'],
    [12.5, 3, '$12.5'],
    [1234.5678, 3, '$1230'],
  ])('formatCost(%d, %s) → %s', (usd, significant, text) => {
    expect(formatCost(usd, significant)).toBe(text);
  });

  it.each<[number, boolean, string]>([
    [2.5e-7, true, '$0.00000025'],
    [0, true, '$0'],
    [0, false, 'unknown (no price for this model)'],
  ])('costText(%d, known %s) → %s', (usd, known, text) => {
    expect(costText({ token_cost_usd: usd, cost_known: known })).toBe(text);
  });
});

describe('a run as the detail page shows it', () => {
  it.each([
    { rendered_prompt: 'Hi Ada', messages: [{ role: 'user', content: 'Hi Ada' }], shown: { kind: 'text', text: 'Hi Ada' } },
    { rendered_prompt: 'Hi Ada', messages: [], shown: { kind: 'text', text: 'Hi Ada' } },
    {
      rendered_prompt: 'system: Be brief\n\nuser: Hi',
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: 'Hi' },
      ],
      shown: {
        kind: 'chat',
        messages: [
          { role: 'system', content: 'Be brief' },
          { role: 'user', content: 'Hi' },
        ],
      },
    },
    { rendered_prompt: 'x', messages: [{ role: 'system', content: 'x' }], shown: { kind: 'chat', messages: [{ role: 'system', content: 'x' }] } },
  ])('promptShown($messages.length messages) → $shown.kind', ({ rendered_prompt, messages, shown }) => {
    expect(promptShown({ rendered_prompt, messages })).toEqual(shown);
  });

  it.each<[unknown, string]>([
    ['<script>alert(1)</script>', '<script>alert(1)</script>'],
    ['', ''],
    [3, '3'],
    [{ a: [1, 'b'] }, '{"a":[1,"b"]}'],
    [null, 'null'],
  ])('inputText(%j) → %s', (value, text) => {
    expect(inputText(value)).toBe(text);
  });

  it.each<[string | null, string, string]>([
    ['fake/m-2024', 'fake/m', 'fake/m-2024'],
    [null, 'fake/m', 'fake/m'],
  ])('modelShown(used %s, requested %s) → %s', (used, requested, shown) => {
    expect(modelShown({ model_used: used, model_requested: requested })).toBe(shown);
  });

  const tokens = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, cached_tokens: 0, reasoning_tokens: 0, tokens_estimated: false };
  it.each<[Partial<typeof tokens>, string]>([
    [{}, '10 in, 5 out, 15 in all'],
    [{ cached_tokens: 4 }, '10 in, 5 out, 15 in all; 4 cached'],
    [{ cached_tokens: 4, reasoning_tokens: 2, tokens_estimated: true }, '10 in, 5 out, 15 in all; 4 cached; 2 reasoning (estimated locally)'],
  ])('tokensText(%j) → %s', (changes, text) => {
    expect(tokensText({ ...tokens, ...changes })).toBe(text);
  });

  it.each<[number | null, string | null, string]>([
    [200, null, '200'],
    [500, 'The server had an error', '500'],
    [null, 'timed out after 30000 ms', 'no answer'],
    [null, null, 'ok'],
  ])('attemptStatus(%s, %j) → %s', (status, error, text) => {
    expect(attemptStatus({ status, error })).toBe(text);
  });
});

describe('keys', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  it.each<[string | null, string | null, string]>([
    [null, null, 'active'],
    [null, '2026-03-02T00:00:00Z', 'active'],
    [null, '2026-03-01T12:00:00Z', 'expired'],
    ['2026-02-01T00:00:00Z', '2026-03-02T00:00:00Z', 'revoked'],
    ['2026-02-01T00:00:00Z', '2026-01-01T00:00:00Z', 'revoked'],
  ])('keyState(revoked %s, expires %s) → %s', (revoked_at, expires_at, state) => {
    expect(keyState({ revoked_at, expires_at }, now)).toBe(state);
  });

  it.each<[number | null, string]>([
    [null, 'server default'],
    [0, 'unlimited'],
    [120, '120/min'],
  ])('rateLimitText(%s) → %s', (limit, text) => {
    expect(rateLimitText(limit)).toBe(text);
  });
});
