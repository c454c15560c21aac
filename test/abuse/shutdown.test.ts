import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { behave, FakeOpenAI } from '../support/fakeOpenAI.js';
import { callServer, processFixtures } from '../support/processes.js';

// SIGTERM with clients that never finish: the built server, as `npm start` runs it.
const ADMIN = 'pl_a_abuse-shutdown-admin-key-00000000000';
const { dataDir, serve, forget } = processFixtures(ADMIN);
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

  it('a model call cut by the shutdown deadline is stored as cut by the shutdown, not as a client abort', async () => {
    const model = new FakeOpenAI().setDefault(behave.hang());
    const { baseURL } = await model.start();
    try {
      const dir = dataDir();
      const env = { PROMPTLINE_PROVIDER_SLOW_BASE_URL: baseURL, PROMPTLINE_SHUTDOWN_TIMEOUT_MS: '300' };
      const server = await serve(dir, env);
      expect((await callServer(server.origin, '/prompts', ADMIN, { prompt_id: 'p', template: 'hi', model: 'slow/m' })).status).toBe(201);
      const cut = callServer(server.origin, '/run_prompt', ADMIN, { prompt_id: 'p', inputs: {} }).then(
        (res) => res.status,
        (error: Error) => error.name,
      );
      while (model.inFlight === 0) await new Promise((r) => setTimeout(r, 10));
      const code = await server.stop('SIGTERM');
      forget(server);
      expect(code).toBe(0);
      expect(await cut).toBe('TypeError'); // fetch failed: the connection was closed without an answer

      const again = await serve(dir, env);
      const runs = await callServer(again.origin, '/runs', ADMIN, undefined, 'GET');
      expect(runs.json.data).toHaveLength(1);
      expect(runs.json.data[0]).toMatchObject({ status: 'error', error: 'Model provider error: the server shut down during the call' });
      expect(runs.json.data[0].attempts).toMatchObject([{ model: 'slow/m', status: null, error: 'the server shut down' }]);
    } finally {
      await model.close();
    }
  });
});
