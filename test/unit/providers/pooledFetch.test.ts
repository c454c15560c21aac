import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPooledFetch } from '../../../src/providers/pooledFetch.js';

// A loopback server that answers with the headers it received.
let server: http.Server;
let origin: string;
const pooled = createPooledFetch({ connections: 2, connectTimeoutMs: 1000 });

beforeAll(async () => {
  server = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await pooled.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('pooledFetch headers', () => {
  // The SDK hands over a Headers instance; any other form a fetch may be given works too.
  it.each([
    ['a plain object', { authorization: 'Bearer k', 'x-stainless-retry-count': '0' }],
    ['a Headers instance', new Headers({ Authorization: 'Bearer k', 'X-Stainless-Retry-Count': '0' })],
    ['an array of pairs', [['Authorization', 'Bearer k'], ['X-Stainless-Retry-Count', '0']] as [string, string][]],
  ])('sends %s', async (_, headers) => {
    const res = await pooled.fetch(`${origin}/v1/chat/completions`, { method: 'POST', headers, body: '{}' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ authorization: 'Bearer k', 'x-stainless-retry-count': '0' });
  });

  it('rejects a header name that is not an HTTP token', async () => {
    await expect(pooled.fetch(`${origin}/`, { headers: [['bad name', 'x']] })).rejects.toThrow(TypeError);
  });
});
