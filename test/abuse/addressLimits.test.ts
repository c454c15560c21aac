import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { healthDuring } from '../support/healthProbe.js';
import { callServer, processFixtures } from '../support/processes.js';

// One address (or a few) holding stalled uploads, each reopened as soon as the server closes it,
// against the built server with small caps. Linux routes all of 127.0.0.0/8 to lo, so the
// attacker's sockets are bound to other loopback addresses than the health probe's 127.0.0.1.
const ADMIN = 'pl_a_abuse-address-limits-admin-key-000000';
const { serve } = processFixtures(ADMIN);

const ATTACK_MS = 4_000;
const LIMITS = {
  PROMPTLINE_MAX_CONNECTIONS: '40',
  PROMPTLINE_MAX_CONNECTIONS_PER_ADDRESS: '8',
  PROMPTLINE_MAX_IN_FLIGHT_PER_ADDRESS: '8',
  PROMPTLINE_HEADERS_TIMEOUT_MS: '1000',
  PROMPTLINE_REQUEST_TIMEOUT_MS: '2000',
};

const STALLED_HEAD = (extraHeaders = '') =>
  `POST /track_outcome HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${ADMIN}\r\n${extraHeaders}Content-Length: 100\r\n\r\n{"prompt_id":`;

interface Attack {
  /** Connections the attacker opened in all. */
  opened: number;
  /** Most of its uploads the server held open at once (accepted, unanswered for HELD_AT_LEAST_MS or more). */
  heldAtOnce: number;
}

/**
 * An upload that went this long without an answer was held by the server; a refused or answered
 * one hears back within milliseconds. Decided after the attack, from when each socket connected
 * and first heard back, so that a busy test process cannot make a quick answer look like a hold.
 */
const HELD_AT_LEAST_MS = 1_000;
const OVERLAP_SLACK_MS = 100;

/**
 * Keeps `perAddress` stalled uploads open from each of `addresses` for `ms`, opening a new one
 * shortly after one closes, and reports the most the server held at once.
 */
function stalledUploads(port: number, { addresses, perAddress, ms, headers = '' }: { addresses: string[]; perAddress: number; ms: number; headers?: string }) {
  return new Promise<Attack>((resolve) => {
    const until = performance.now() + ms;
    const open = new Map<net.Socket, number>();
    /** [connected, first answer or close] of every upload that connected. */
    const spans: [number, number][] = [];
    let opened = 0;
    const launch = (localAddress: string) => {
      if (performance.now() >= until || opened >= 20_000) return;
      opened++;
      const socket = net.connect({ port, host: '127.0.0.1', localAddress });
      const heardBack = () => {
        const connected = open.get(socket);
        if (connected !== undefined) spans.push([connected, performance.now()]);
        open.delete(socket);
      };
      socket.on('error', () => undefined);
      socket.on('connect', () => {
        open.set(socket, performance.now());
        socket.write(STALLED_HEAD(headers));
      });
      socket.on('data', heardBack);
      socket.on('close', () => {
        heardBack();
        // Not at once: a refused connection would otherwise spin the test's own event loop.
        setTimeout(() => launch(localAddress), 100);
      });
    };
    for (const address of addresses) for (let i = 0; i < perAddress; i++) launch(address);
    setTimeout(() => {
      const end = performance.now();
      for (const [socket, connected] of open) {
        spans.push([connected, end]);
        socket.destroy();
      }
      open.clear();
      // A slot freed by the server is taken by the next upload a moment before this process has read
      // the answer to the last: spans end OVERLAP_SLACK_MS early, so only a real overlap counts.
      const held = spans.filter(([from, to]) => to - from >= HELD_AT_LEAST_MS).map(([from, to]): [number, number] => [from, to - OVERLAP_SLACK_MS]);
      resolve({ opened, heldAtOnce: mostAtOnce(held) });
    }, ms);
  });
}

/** The most intervals that overlap at any instant. */
function mostAtOnce(spans: [number, number][]): number {
  const events = spans.flatMap(([from, to]): [number, number][] => [
    [from, 1],
    [to, -1],
  ]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, step] of events) {
    now += step;
    most = Math.max(most, now);
  }
  return most;
}

interface Tally {
  ok: number;
  failed: number;
  failures: string[];
}

interface OneRequest {
  localAddress: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** One request on a new connection from `localAddress`: its status and body, or the error's code. */
function requestOnce(origin: string, request: OneRequest): Promise<{ outcome: string; body: string; connection?: string | undefined }> {
  return new Promise((resolve) => {
    const req = http.request(
      `${origin}${request.path}`,
      {
        method: request.method ?? 'GET',
        agent: false,
        localAddress: request.localAddress,
        headers: { connection: 'close', ...request.headers },
        timeout: 3_000,
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ outcome: String(res.statusCode), body, connection: res.headers.connection }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ outcome: error.code ?? error.message, body: '' }));
    req.end(request.body);
  });
}

/** Requests on new connections (no keep-alive) from `localAddress`, one every `everyMs`, for `ms`. */
async function freshConnections(origin: string, ms: number, request: OneRequest & { expect: number }, everyMs = 50): Promise<Tally> {
  const tally: Tally = { ok: 0, failed: 0, failures: [] };
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const started = performance.now();
    const { outcome } = await requestOnce(origin, request);
    if (outcome === String(request.expect)) tally.ok++;
    else {
      tally.failed++;
      tally.failures.push(outcome);
    }
    const wait = everyMs - (performance.now() - started);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  return tally;
}

const share = (t: Tally) => `${t.failed}/${t.ok + t.failed} failed (${Math.round((t.failed / Math.max(1, t.ok + t.failed)) * 100)}%)`;

async function withPrompt(env: Record<string, string>) {
  const server = await serve(undefined, env);
  expect((await callServer(server.origin, '/prompts', ADMIN, { prompt_id: 'p', template: 'Hi {{name}}' })).status).toBe(201);
  return { server, port: Number(new URL(server.origin).port) };
}

const getPrompt = (localAddress: string, headers: Record<string, string> = {}) => ({
  localAddress,
  path: '/get_prompt',
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': ADMIN, ...headers },
  body: JSON.stringify({ prompt_id: 'p', inputs: { name: 'A' } }),
  expect: 200,
});

describe('one address cannot take every connection', () => {
  it('stalled uploads from one address beyond its cap and the global cap: health checks and other addresses are still served', async () => {
    const { server, port } = await withPrompt(LIMITS);
    const { result, health } = await healthDuring(server.origin, () =>
      Promise.all([
        stalledUploads(port, { addresses: ['127.0.0.2'], perAddress: 60, ms: ATTACK_MS }),
        freshConnections(server.origin, ATTACK_MS, getPrompt('127.0.0.3')),
        freshConnections(server.origin, ATTACK_MS, { localAddress: '127.0.0.1', path: '/readyz', expect: 200 }),
      ]),
    );
    const [attack, client, readyz] = result;
    console.log(
      `one address, 60 stalled uploads (caps: 8 per address, 40 in all), ${ATTACK_MS} ms: attacker opened ${attack.opened}, held ${attack.heldAtOnce} at once; ` +
        `new connections of another client: ${share(client)}; new /readyz connections: ${share(readyz)}; ` +
        `/healthz probe: ${health.failures.length} failed, p50 ${health.p50.toFixed(1)} ms, p99 ${health.p99.toFixed(1)} ms`,
    );
    expect(attack.heldAtOnce).toBeLessThanOrEqual(8);
    expect(client.failures).toEqual([]);
    expect(readyz.failures).toEqual([]);
    expect(health.failures).toEqual([]);
    expect(health.p99).toBeLessThan(100);
  });

  it('at the global cap, /healthz and /readyz on new connections are answered from a small reserve', async () => {
    const { server, port } = await withPrompt(LIMITS);
    // Seven uploads from each of eight addresses: each under its own cap, 56 together over the 40.
    const addresses = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`);
    const { result, health } = await healthDuring(server.origin, () =>
      Promise.all([
        stalledUploads(port, { addresses, perAddress: 7, ms: ATTACK_MS }),
        freshConnections(server.origin, ATTACK_MS, { localAddress: '127.0.0.1', path: '/healthz', expect: 200 }),
        freshConnections(server.origin, ATTACK_MS, { localAddress: '127.0.0.1', path: '/readyz', expect: 200 }),
        freshConnections(server.origin, ATTACK_MS, getPrompt('127.0.0.10')),
      ]),
    );
    const [attack, healthz, readyz, client] = result;
    console.log(
      `eight addresses, 56 stalled uploads (caps: 8 per address, 40 in all), ${ATTACK_MS} ms: attackers opened ${attack.opened}, held ${attack.heldAtOnce} at once; ` +
        `new /healthz connections: ${share(healthz)}; new /readyz connections: ${share(readyz)}; ` +
        `new connections of another client (the global cap is full: refused is expected): ${share(client)}; ` +
        `/healthz probe: ${health.failures.length} failed, p99 ${health.p99.toFixed(1)} ms`,
    );
    expect(attack.heldAtOnce).toBeLessThanOrEqual(40);
    expect(healthz.failures).toEqual([]);
    expect(readyz.failures).toEqual([]);
    expect(health.failures).toEqual([]);
    expect(health.p99).toBeLessThan(100);
  });

  it('behind a trusted proxy, one forwarded client is held to its in-flight cap and the others are served', async () => {
    const { server, port } = await withPrompt({ ...LIMITS, PROMPTLINE_MAX_CONNECTIONS: '200', PROMPTLINE_TRUST_PROXY: 'loopback' });
    // The proxy (127.0.0.2, trusted) opens a connection per request: the connection cap per
    // address does not apply to it, the in-flight cap per forwarded address does.
    const { result, health } = await healthDuring(server.origin, () =>
      Promise.all([
        stalledUploads(port, { addresses: ['127.0.0.2'], perAddress: 20, ms: ATTACK_MS, headers: 'X-Forwarded-For: 203.0.113.9\r\n' }),
        freshConnections(server.origin, ATTACK_MS, getPrompt('127.0.0.2', { 'x-forwarded-for': '198.51.100.7' })),
      ]),
    );
    const [attack, client] = result;
    console.log(
      `a trusted proxy forwarding 20 stalled uploads of one client (cap: 8 in flight per address), ${ATTACK_MS} ms: opened ${attack.opened}, held ${attack.heldAtOnce} at once; ` +
        `another forwarded client: ${share(client)}; /healthz probe: ${health.failures.length} failed, p99 ${health.p99.toFixed(1)} ms`,
    );
    expect(attack.heldAtOnce).toBeLessThanOrEqual(8);
    expect(client.failures).toEqual([]);
    expect(health.failures).toEqual([]);
    expect(health.p99).toBeLessThan(100);
  });
});

describe('the health reserve, one connection at a time', () => {
  /** Connections from `localAddress` that send nothing, each open (and counted by the server) when this resolves. */
  async function idleConnections(port: number, localAddress: string, count: number): Promise<net.Socket[]> {
    const sockets = await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<net.Socket>((resolve) => {
            const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
            socket.on('error', () => undefined);
          }),
      ),
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(sockets.filter((s) => s.destroyed)).toEqual([]);
    return sockets;
  }

  const CAPS = { PROMPTLINE_MAX_CONNECTIONS: '6', PROMPTLINE_MAX_CONNECTIONS_PER_ADDRESS: '3', PROMPTLINE_HEADERS_TIMEOUT_MS: '5000' };

  it('an address at its own cap gets health checks answered (then closed) and anything else a 503', async () => {
    const { server, port } = await withPrompt(CAPS);
    const held = await idleConnections(port, '127.0.0.2', 3);
    const healthz = await requestOnce(server.origin, { localAddress: '127.0.0.2', path: '/healthz' });
    expect(healthz).toEqual({ outcome: '200', body: '{"status":"ok"}', connection: 'close' });
    const other = await requestOnce(server.origin, getPrompt('127.0.0.2'));
    expect(other).toEqual({ outcome: '503', body: '{"detail":"Too many open connections"}', connection: 'close' });
    // Over its own cap only, the address is not barred from the reserve: its health checks still pass.
    expect((await requestOnce(server.origin, { localAddress: '127.0.0.2', path: '/readyz' })).outcome).toBe('200');
    expect((await requestOnce(server.origin, getPrompt('127.0.0.3'))).outcome).toBe('200');
    for (const s of held) s.destroy();
  });

  it('at the global cap, an address that sent anything but a health check may not use the reserve for a while', async () => {
    const { server, port } = await withPrompt(CAPS);
    const held = [...(await idleConnections(port, '127.0.0.4', 3)), ...(await idleConnections(port, '127.0.0.5', 3))];
    expect((await requestOnce(server.origin, { localAddress: '127.0.0.6', path: '/healthz' })).outcome).toBe('200');
    expect((await requestOnce(server.origin, getPrompt('127.0.0.6'))).outcome).toBe('503');
    expect((await requestOnce(server.origin, { localAddress: '127.0.0.6', path: '/healthz' })).outcome).toBe('ECONNRESET');
    expect((await requestOnce(server.origin, { localAddress: '127.0.0.7', path: '/readyz' })).outcome).toBe('200');
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    // Below the cap again, every address is served as usual.
    expect((await requestOnce(server.origin, getPrompt('127.0.0.6'))).outcome).toBe('200');
  });
});
