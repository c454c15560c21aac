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
  /** Most of its uploads the server held open at once (accepted and not answered). */
  heldAtOnce: number;
}

/** An upload still open without an answer this long after connecting was accepted, not refused. */
const HELD_AFTER_MS = 300;

/**
 * Keeps `perAddress` stalled uploads open from each of `addresses` for `ms`, opening a new one
 * shortly after one closes. An upload counts as held while its socket stays open with no answer
 * from HELD_AFTER_MS after connecting (a refused one is closed by the server long before that).
 */
function stalledUploads(port: number, { addresses, perAddress, ms, headers = '' }: { addresses: string[]; perAddress: number; ms: number; headers?: string }) {
  return new Promise<Attack>((resolve) => {
    const until = performance.now() + ms;
    const open = new Set<net.Socket>();
    let opened = 0;
    let held = 0;
    let heldAtOnce = 0;
    const launch = (localAddress: string) => {
      if (performance.now() >= until || opened >= 20_000) return;
      opened++;
      const socket = net.connect({ port, host: '127.0.0.1', localAddress });
      open.add(socket);
      let holding = false;
      let answered = false;
      const stopHolding = () => {
        answered = true;
        if (holding) held--;
        holding = false;
      };
      socket.on('error', () => undefined);
      socket.on('connect', () => {
        socket.write(STALLED_HEAD(headers));
        setTimeout(() => {
          if (answered || socket.destroyed) return;
          holding = true;
          heldAtOnce = Math.max(heldAtOnce, ++held);
        }, HELD_AFTER_MS).unref();
      });
      socket.on('data', stopHolding);
      socket.on('close', () => {
        stopHolding();
        open.delete(socket);
        // Not at once: a refused connection would otherwise spin the test's own event loop.
        setTimeout(() => launch(localAddress), 50);
      });
    };
    for (const address of addresses) for (let i = 0; i < perAddress; i++) launch(address);
    setTimeout(() => {
      for (const socket of open) socket.destroy();
      resolve({ opened, heldAtOnce });
    }, ms);
  });
}

interface Tally {
  ok: number;
  failed: number;
  failures: string[];
}

/** Requests on new connections (no keep-alive) from `localAddress`, one every `everyMs`, for `ms`. */
async function freshConnections(
  origin: string,
  ms: number,
  request: { localAddress: string; path: string; method?: string; headers?: Record<string, string>; body?: string; expect: number },
  everyMs = 50,
): Promise<Tally> {
  const tally: Tally = { ok: 0, failed: 0, failures: [] };
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const started = performance.now();
    const outcome = await new Promise<string>((resolve) => {
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
          res.resume();
          res.on('end', () => resolve(String(res.statusCode)));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      req.end(request.body);
    });
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
  }, 30_000);

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
  }, 30_000);

  it('behind a trusted proxy, one forwarded client is held to its in-flight cap and the others are served', async () => {
    const { server, port } = await withPrompt({ ...LIMITS, PROMPTLINE_MAX_CONNECTIONS: '200', PROMPTLINE_TRUST_PROXY: 'loopback' });
    // The proxy (127.0.0.2, trusted) opens a connection per request: the connection cap per
    // address does not apply to it, the in-flight cap per forwarded address does.
    const { result, health } = await healthDuring(server.origin, () =>
      Promise.all([
        stalledUploads(port, { addresses: ['127.0.0.2'], perAddress: 40, ms: ATTACK_MS, headers: 'X-Forwarded-For: 203.0.113.9\r\n' }),
        freshConnections(server.origin, ATTACK_MS, getPrompt('127.0.0.2', { 'x-forwarded-for': '198.51.100.7' })),
      ]),
    );
    const [attack, client] = result;
    console.log(
      `a trusted proxy forwarding 40 stalled uploads of one client (cap: 8 in flight per address), ${ATTACK_MS} ms: opened ${attack.opened}, held ${attack.heldAtOnce} at once; ` +
        `another forwarded client: ${share(client)}; /healthz probe: ${health.failures.length} failed, p99 ${health.p99.toFixed(1)} ms`,
    );
    expect(attack.heldAtOnce).toBeLessThanOrEqual(8);
    expect(client.failures).toEqual([]);
    expect(health.failures).toEqual([]);
    expect(health.p99).toBeLessThan(100);
  }, 30_000);
});
