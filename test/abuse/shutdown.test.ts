import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { processFixtures } from '../support/processes.js';

// SIGTERM with clients that never finish: the built server, as `npm start` runs it.
const ADMIN = 'pl_a_abuse-shutdown-admin-key-00000000000';
const { serve, forget } = processFixtures(ADMIN);
const start = (env: Record<string, string> = {}) => serve(undefined, env);

function connect(origin: string): Promise<net.Socket> {
  const { port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => resolve(socket));
    socket.on('error', () => undefined);
  });
}

/** A keep-alive connection that completed one request and now sits idle. */
async function idleKeepAlive(origin: string): Promise<net.Socket> {
  const socket = await connect(origin);
  await new Promise<void>((resolve) => {
    socket.once('data', () => resolve());
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
  });
  return socket;
}

/** A /track_outcome that announced 100 bytes and sent 13. */
async function stalledUpload(origin: string): Promise<net.Socket> {
  const socket = await connect(origin);
  socket.write(`POST /track_outcome HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${ADMIN}\r\nContent-Length: 100\r\n\r\n{"prompt_id":`);
  return socket;
}

describe('graceful shutdown never hangs', () => {
  it('exits 0 at once when the only open connection is an idle keep-alive one', async () => {
    const server = await start();
    const idle = await idleKeepAlive(server.origin);
    const code = await server.stop('SIGTERM');
    forget(server);
    expect(code).toBe(0);
    // Before the 10 s in-flight deadline: the idle connection was closed, not waited for.
    expect(server.output()).not.toContain('shutdown deadline reached');
    idle.destroy();
  });

  it('gives a stalled upload the shutdown deadline, then closes it and exits 0', async () => {
    const server = await start({ PROMPTLINE_SHUTDOWN_TIMEOUT_MS: '1000' });
    const stalled = await stalledUpload(server.origin);
    const idle = await idleKeepAlive(server.origin);
    const closed = new Promise<void>((resolve) => stalled.on('close', () => resolve()));
    const code = await server.stop('SIGTERM');
    forget(server);
    expect(code).toBe(0);
    await closed;
    expect(server.output()).toContain('shutdown deadline reached');
    idle.destroy();
  });
});
