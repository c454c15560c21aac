import { describe, expect, it } from 'vitest';
import { BufferedHeaders, BufferedResponse } from '../../../src/providers/bufferedResponse.js';

describe('BufferedHeaders', () => {
  const headers = new BufferedHeaders({ 'content-type': 'application/json', 'Retry-After': '2', 'set-cookie': ['a=1', 'b=2'], 'x-empty': undefined });

  it.each([
    ['content-type', 'application/json'],
    ['Content-Type', 'application/json'],
    ['retry-after', '2'],
    ['set-cookie', 'a=1, b=2'],
    ['x-empty', null],
    ['x-missing', null],
  ])('get(%s) → %s', (name, value) => {
    expect(headers.get(name)).toBe(value);
  });

  it('lists its entries with lower-case names, as the SDK reads them', () => {
    expect([...headers.entries()]).toEqual([
      ['content-type', 'application/json'],
      ['retry-after', '2'],
      ['set-cookie', 'a=1, b=2'],
    ]);
    expect([...headers]).toEqual([...headers.entries()]);
  });
});

describe('BufferedResponse', () => {
  it.each([
    [200, true],
    [204, true],
    [299, true],
    [300, false],
    [429, false],
    [500, false],
  ])('status %i → ok %s', (status, ok) => {
    expect(new BufferedResponse('http://x/v1', status, {}, '').ok).toBe(ok);
  });

  it('gives its body as text and as JSON, and has no stream to cancel', async () => {
    const response = new BufferedResponse('http://x/v1/chat/completions', 200, { 'x-request-id': 'req_1' }, '{"id":"c1"}');
    expect(response.url).toBe('http://x/v1/chat/completions');
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(await response.text()).toBe('{"id":"c1"}');
    expect(await response.json()).toEqual({ id: 'c1' });
    expect(response.body).toBeNull();
  });

  it('rejects a body that is not JSON with the SyntaxError the SDK expects', async () => {
    await expect(new BufferedResponse('http://x', 200, {}, 'not json').json()).rejects.toBeInstanceOf(SyntaxError);
  });
});
