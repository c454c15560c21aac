import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, tempDataDir, type RunningServer } from '../support/processes.js';

// What clients can make the server write to its log: no error lines for their own aborts, and
// never a key, even one put in a query string.
const ADMIN = 'pl_a_abuse-logs-admin-key-000000000000000';
let server: RunningServer;
let dir: string;
beforeAll(async () => {
  dir = tempDataDir();
  server = await startServer({ PROMPTLINE_DATA_DIR: dir, PROMPTLINE_BOOTSTRAP_ADMIN_KEY: ADMIN, LOG_LEVEL: 'info' });
});
afterAll(async () => {
  await server.stop('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const logLines = () =>
  server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('log lines a client can cause', () => {
  it('a client that disconnects mid-upload leaves no error line', async () => {
    const { port } = new URL(server.origin);
    for (let i = 0; i < 20; i++) {
      await new Promise<void>((resolve) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST /track_outcome HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${ADMIN}\r\nContent-Length: 1000\r\n\r\n{"prompt_id":`,
          );
          setTimeout(() => socket.destroy(), 20);
        });
        socket.on('close', () => resolve());
        socket.on('error', () => undefined);
      });
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(logLines().filter((l) => (l.level as number) >= 50)).toEqual([]);
  });

  it('a key put in the query string never reaches the log', async () => {
    const leaked = 'pl_r_ThisKeyMustNotBeLogged0000000000000000000';
    await fetch(`${server.origin}/runs?api_key=${leaked}&limit=1`, { headers: { 'x-api-key': ADMIN } });
    await fetch(`${server.origin}/nowhere?q=${leaked}`);
    await fetch(`${server.origin}/runs?limit=1`, { headers: { 'x-api-key': leaked } });
    await new Promise((r) => setTimeout(r, 200));
    expect(server.output()).not.toContain(leaked);
    expect(server.output()).not.toContain(ADMIN);
    const urls = logLines()
      .filter((l) => l.msg === 'request')
      .map((l) => l.url);
    expect(urls).toContain('/runs?api_key=[redacted]&limit=1');
    expect(urls).toContain('/nowhere?q=[redacted]');
  });

  it("the console's session token and the key it was made from never reach the log", async () => {
    const signIn = await fetch(`${server.origin}/session`, { method: 'POST', headers: { 'x-api-key': ADMIN } });
    expect(signIn.status).toBe(201);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const token = cookie.slice(cookie.indexOf('=') + 1);
    expect((await fetch(`${server.origin}/prompts?limit=1`, { headers: { cookie } })).status).toBe(200);
    // A refused write (no Origin) and a token in the query string must not log it either.
    expect(
      (
        await fetch(`${server.origin}/prompts`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/json' },
          body: '{"prompt_id":"x","template":"Hi"}',
        })
      ).status,
    ).toBe(403);
    await fetch(`${server.origin}/prompts?session=${token}`, { headers: { cookie } });
    expect((await fetch(`${server.origin}/session`, { method: 'DELETE', headers: { cookie, origin: server.origin } })).status).toBe(204);
    await new Promise((r) => setTimeout(r, 200));
    expect(server.output()).not.toContain(token);
    expect(server.output()).not.toContain(ADMIN);
  });
});
