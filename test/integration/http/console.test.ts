import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/harness.js';

/** How the server hands out the web console (the browser tests drive the console itself). */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.cleanup());

const CSP = /default-src 'self'; script-src 'self'; .*frame-ancestors 'none'/;

describe('the web console under /ui/', () => {
  it('/ and /ui send the browser to /ui/', async () => {
    for (const url of ['/', '/ui']) {
      const res = await t.request('GET', url, { key: null });
      expect([url, res.status, res.headers.location]).toEqual([url, 302, '/ui/']);
    }
  });

  it('serves the page for every console URL, with a strict Content-Security-Policy and no key needed', async () => {
    for (const url of ['/ui/', '/ui/prompts', '/ui/prompts/welcome/versions/2']) {
      const res = await t.request('GET', url, { key: null });
      expect([url, res.status]).toEqual([url, 200]);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('<div id="root"></div>');
      expect(res.text).not.toMatch(/<script(?![^>]*\ssrc=)/); // no inline script: the policy would refuse it
      expect(res.headers['content-security-policy']).toMatch(CSP);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cache-control']).toBe('no-cache');
    }
  });

  it('serves the hashed assets for a year, and a missing one is a 404, not the page', async () => {
    const page = (await t.request('GET', '/ui/', { key: null })).text;
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(page)![1]!;
    const res = await t.request('GET', script, { key: null });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-security-policy']).toMatch(CSP);
    expect((await t.request('GET', '/ui/assets/missing-123.js', { key: null })).status).toBe(404);
  });

  it('sends brotli or gzip to browsers that accept them, with the same headers, and the file as it is to others', async () => {
    const plain = await t.request('GET', '/ui/', { key: null });
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(plain.text)![1]!;
    const original = (await t.request('GET', script, { key: null })).text;
    for (const url of ['/ui/', '/ui/experiments/e1', script]) {
      for (const [accept, encoding, decode] of [
        ['gzip, deflate, br, zstd', 'br', zlib.brotliDecompressSync],
        ['gzip', 'gzip', zlib.gunzipSync],
      ] as const) {
        const res = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': accept } });
        expect([url, accept, res.statusCode, res.headers['content-encoding']]).toEqual([url, accept, 200, encoding]);
        expect(res.headers.vary).toMatch(/accept-encoding/i);
        expect(res.headers['content-type']).toMatch(url === script ? /javascript/ : /^text\/html/);
        expect(res.headers['content-security-policy']).toMatch(CSP);
        expect(res.headers['cache-control']).toBe(url === script ? 'public, max-age=31536000, immutable' : 'no-cache');
        const body = decode(res.rawPayload).toString('utf8');
        expect(body).toBe(url === script ? original : plain.text);
        expect(res.rawPayload.length).toBeLessThan(Buffer.byteLength(body));
      }
    }
    const identity = await t.app.inject({ method: 'GET', url: script, headers: { 'accept-encoding': 'identity' } });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body).toBe(original);
  });

  it('leaves the API as it was: unknown paths outside /ui/ are still FastAPI 404s', async () => {
    const res = await t.request('GET', '/uix', { key: null });
    expect([res.status, res.json]).toEqual([404, { detail: 'Not Found' }]);
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const root = await t.request(method, '/', { key: null, body: {} });
      expect([method, root.status, root.json, root.headers.allow]).toEqual([method, 404, { detail: 'Not Found' }, undefined]);
    }
  });
});
