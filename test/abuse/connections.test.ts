import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestApp, type TestApp } from '../support/harness.js';
import { givenPrompt } from '../support/fixtures.js';

// A real listening socket with short limits: stalled uploads, slow headers and connection floods
// are cut by the server itself, and a normal client is still served afterwards.
let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await startTestApp({
    PROMPTLINE_HEADERS_TIMEOUT_MS: '300',
    PROMPTLINE_REQUEST_TIMEOUT_MS: '600',
    PROMPTLINE_KEEP_ALIVE_TIMEOUT_MS: '300',
    PROMPTLINE_MAX_CONNECTIONS: '20',
  });
  await givenPrompt(t);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => t.cleanup());

/** Opens a raw connection, writes `chunks`, and resolves with what the server sent once it closed the socket. */
function rawExchange(chunks: string[], { gapMs = 0 } = {}): Promise<{ answer: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ answer, ms: performance.now() - started }));
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
    });
    setTimeout(() => reject(new Error(`server kept the connection: ${answer}`)), 8_000).unref();
  });
}

async function normalRequestWorks(): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}/get_prompt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': ADMIN_KEY },
    body: JSON.stringify({ prompt_id: 'p', inputs: { name: 'A' } }),
  });
  expect(await res.json()).toMatchObject({ prompt_text: 'Hi A' });
}

const head = (length: number) =>
  `POST /track_outcome HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: nope\r\nContent-Length: ${length}\r\n\r\n`;

describe('slow and stalled clients are cut by the server', () => {
  it('a body that stops arriving (Content-Length 100, 13 bytes sent) gets 408 and the connection closed', async () => {
    const { answer } = await rawExchange([head(100), '{"prompt_id":']);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    await normalRequestWorks();
  });

  it('a byte every 150 ms does not keep a request alive past the request timeout', async () => {
    const { answer } = await rawExchange([head(100), ...'{"prompt_id":"p","label":"aaaaaaaaaaaa'.split('')], { gapMs: 150 });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('headers that never finish are cut by the header timeout', async () => {
    const { answer } = await rawExchange(['POST /get_prompt HTTP/1.1\r\nHost: x\r\n']);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    await normalRequestWorks();
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const { answer } = await rawExchange(['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('the number of open connections is capped', () => {
  it('refuses connections beyond the cap at once, and serves again when they are gone', async () => {
    const sockets: net.Socket[] = [];
    const refused = await new Promise<number>((resolve) => {
      let settled = 0;
      let closedEarly = 0;
      for (let i = 0; i < 40; i++) {
        const socket = net.connect(port, '127.0.0.1');
        sockets.push(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => closedEarly++);
        socket.on('connect', () => {
          // Anything still open 100 ms after connecting was accepted.
          setTimeout(() => {
            if (++settled === 40) resolve(closedEarly);
          }, 100);
        });
      }
    });
    expect(refused).toBeGreaterThanOrEqual(20);
    expect(sockets.filter((s) => !s.destroyed)).toHaveLength(40 - refused);
    for (const s of sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 50));
    await normalRequestWorks();
  });
});
