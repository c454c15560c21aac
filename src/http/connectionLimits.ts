import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addressGroup } from '../lib/clientAddress.js';
import { sendDetail } from './send.js';

export interface ConnectionLimits {
  /** Open connections in all; 0: no cap (and no reserve). */
  readonly maxConnections: number;
  /** Open connections of one socket address (IPv6 by /64); trusted proxies are exempt; 0: no cap. */
  readonly maxConnectionsPerAddress: number;
  /** Requests in flight of one client address (`req.ip`: the forwarded one behind a trusted proxy); 0: no cap. */
  readonly maxInFlightPerAddress: number;
  readonly headersTimeoutMs: number;
  /** PROMPTLINE_TRUST_PROXY as a test of a socket's address. */
  readonly isTrustedProxy: (address: string) => boolean;
}

/**
 * Connections beyond the caps (global or the address's) kept for health checks, so that a load balancer still hears
 * `/healthz` and `/readyz` when every slot is taken. Each may carry one request, a health check,
 * then closes; it is given at most RESERVE_FIRST_REQUEST_MS to send it.
 */
const HEALTH_RESERVE = 8;
/** Of the reserve, at most this many connections from one address at a time (an orchestrator probes liveness and readiness together). */
const HEALTH_RESERVE_PER_ADDRESS = 4;
const RESERVE_FIRST_REQUEST_MS = 1_000;
/** An address whose reserved connection carried anything but a health check may not use the reserve again for this long. */
const RESERVE_BAN_MS = 10_000;
/** Bound on the addresses remembered as banned from the reserve (a flood of addresses forgets the oldest). */
const MAX_BANNED = 10_000;

const HEALTH_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

function isHealthCheck(req: FastifyRequest): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const query = req.url.indexOf('?');
  return HEALTH_PATHS.has(query === -1 ? req.url : req.url.slice(0, query));
}

/** One count per key; a key at zero is removed, so the map holds only the addresses with something open. */
class Counts {
  private readonly counts = new Map<string, number>();
  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }
  add(key: string): void {
    this.counts.set(key, this.get(key) + 1);
  }
  remove(key: string): void {
    const n = this.get(key) - 1;
    if (n > 0) this.counts.set(key, n);
    else this.counts.delete(key);
  }
}

/**
 * The caps of docs/configuration.md, "Limits", on who may hold the server's connections and requests:
 *
 * - in all (PROMPTLINE_MAX_CONNECTIONS) and per socket address (PROMPTLINE_MAX_CONNECTIONS_PER_ADDRESS),
 *   decided when a connection opens, before any byte is read: a refused one is closed at once. The
 *   socket's address is all there is to go on then, so a trusted proxy's connections (its many
 *   clients') count only towards the global cap.
 * - requests in flight per client address (PROMPTLINE_MAX_IN_FLIGHT_PER_ADDRESS), decided once the
 *   headers are read, on `req.ip`: behind a trusted proxy, the forwarded client. Beyond it, 429 and
 *   the connection closed (a stalled upload is not waited for).
 * - `/healthz` and `/readyz` are never refused: they skip the in-flight cap, and over either
 *   connection cap a few connections more (HEALTH_RESERVE) may each carry one health check.
 *
 * We enforce the global cap ourselves rather than with Node's `server.maxConnections`, which drops
 * a connection before its first request can be seen and so leaves no room for a reserve.
 */
export function installConnectionLimits(app: FastifyInstance, limits: ConnectionLimits): void {
  const reserve = new HealthReserve();
  if (limits.maxConnections > 0 || limits.maxConnectionsPerAddress > 0) gateConnections(app.server, limits, reserve);

  const inFlight = new Counts();
  const refuse = (reply: FastifyReply, status: number, detail: string) => sendDetail(reply.header('connection', 'close'), status, detail);
  // A callback hook, installed first: every request passes here, and health checks must pass whatever follows.
  app.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const held = reserve.takeFirstRequest(req.raw.socket);
    if (held !== undefined) {
      if (!isHealthCheck(req)) {
        if (held.banOnMisuse) reserve.ban(held.group);
        return refuse(reply, 503, 'Too many open connections');
      }
      // Answered, then closed: the slot is for the next health check.
      reply.header('connection', 'close');
      return done();
    }
    if (limits.maxInFlightPerAddress === 0 || isHealthCheck(req)) return done();
    const group = addressGroup(req.ip);
    if (inFlight.get(group) >= limits.maxInFlightPerAddress) {
      reply.header('retry-after', '1');
      return refuse(reply, 429, 'Too many requests in flight from this address');
    }
    inFlight.add(group);
    reply.raw.once('close', () => inFlight.remove(group));
    done();
  });
}

interface ReservedSocket {
  readonly group: string;
  /**
   * Whether misusing the slot bans the address: only when the global cap sent it here (many
   * addresses could otherwise take turns holding the reserve), and never a trusted proxy, which is
   * usually the load balancer whose health checks the reserve is for. An address over only its own
   * cap can hold no more than HEALTH_RESERVE_PER_ADDRESS slots, and everyone else still gets in.
   */
  readonly banOnMisuse: boolean;
  readonly timer: NodeJS.Timeout;
}

/** The connections admitted beyond the caps, each waiting for its one request; and who may not have one. */
class HealthReserve {
  private readonly waiting = new WeakMap<Socket, ReservedSocket>();
  private readonly bannedUntil = new Map<string, number>();

  /** Holds `socket` for one request; closes it (and bans its address if `banOnMisuse`) if none comes within `ms`. */
  admit(socket: Socket, group: string, ms: number, banOnMisuse: boolean): void {
    const timer = setTimeout(() => {
      if (banOnMisuse) this.ban(group);
      socket.destroy();
    }, ms);
    timer.unref();
    this.waiting.set(socket, { group, banOnMisuse, timer });
  }

  /** The reservation, once, for a reserved socket's first request; undefined for every other request. */
  takeFirstRequest(socket: Socket): ReservedSocket | undefined {
    const held = this.waiting.get(socket);
    if (held === undefined) return undefined;
    clearTimeout(held.timer);
    this.waiting.delete(socket);
    return held;
  }

  closed(socket: Socket): void {
    this.takeFirstRequest(socket);
  }

  ban(group: string): void {
    if (this.bannedUntil.size >= MAX_BANNED) this.bannedUntil.delete(this.bannedUntil.keys().next().value!);
    this.bannedUntil.delete(group); // re-inserted last: the map stays in the order bans end
    this.bannedUntil.set(group, Date.now() + RESERVE_BAN_MS);
  }

  isBanned(group: string): boolean {
    const until = this.bannedUntil.get(group);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.bannedUntil.delete(group);
    return false;
  }
}

/**
 * Admits or closes each new connection before Node's HTTP parser sees it: the server's own
 * 'connection' listener (the HTTP parser's) is taken off and called only for admitted sockets.
 */
function gateConnections(server: Server, limits: ConnectionLimits, reserve: HealthReserve): void {
  const perAddress = new Counts();
  const reservedPerAddress = new Counts();
  let open = 0;
  let reservedOpen = 0;
  const firstRequestMs = Math.min(RESERVE_FIRST_REQUEST_MS, limits.headersTimeoutMs);
  const parse = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return void socket.destroy(); // already gone
    const group = addressGroup(address);
    const capped = limits.maxConnectionsPerAddress > 0 && !limits.isTrustedProxy(address);
    // Over either cap, only a health check may come in: a load balancer whose own address is at its
    // cap (it forwards traffic, untrusted) must still hear the replica answer.
    const globalCapReached = limits.maxConnections > 0 && open >= limits.maxConnections;
    const reserved = globalCapReached || (capped && perAddress.get(group) >= limits.maxConnectionsPerAddress);
    if (reserved) {
      const full = reservedOpen >= HEALTH_RESERVE || reservedPerAddress.get(group) >= HEALTH_RESERVE_PER_ADDRESS;
      if (full || reserve.isBanned(group)) return void socket.destroy();
      reservedOpen++;
      reservedPerAddress.add(group);
      reserve.admit(socket, group, firstRequestMs, globalCapReached && !limits.isTrustedProxy(address));
    } else {
      open++;
    }
    if (capped) perAddress.add(group);
    socket.once('close', () => {
      if (capped) perAddress.remove(group);
      if (reserved) {
        reservedOpen--;
        reservedPerAddress.remove(group);
        reserve.closed(socket);
      } else {
        open--;
      }
    });
    for (const listener of parse) listener.call(server, socket);
  });
}
