import net from 'node:net';

/** What the client of one proxied connection has sent so far (the start of it), to pick connections by. */
type ConnectionFilter = (clientSent: string) => boolean;

/** The most of a connection's client bytes kept for filters: enough for PostgreSQL's start-up and first statements. */
const KEPT_BYTES = 64 * 1024;

export interface TcpProxy {
  port: number;
  /** Every connection dropped, new ones refused (the server gone). */
  cut(): Promise<void>;
  /** Listening again on the same port, after `cut`. */
  restore(): Promise<void>;
  /**
   * Stops forwarding, in both directions, on the connections whose client has sent something
   * `matches` accepts (checked again as more arrives; every connection when omitted), now and for
   * connections opened later, without closing them: a network path that silently drops packets,
   * which neither side notices by itself. New connections in "every connection" mode are accepted
   * and never reach the server.
   */
  blackHole(matches?: ConnectionFilter): void;
  /** Forwarding resumes for new connections; the black-holed ones are reset (as a peer that gave up on them would). */
  heal(): void;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy to a real server, that a test can cut (every connection dropped, new ones
 * refused) and restore on the same port, or black-hole (connections kept open, nothing forwarded):
 * the database "going away and coming back", or becoming unreachable without a word, without
 * touching the server other tests share.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const connections = new Set<Connection>();
  let server: net.Server | null = null;
  let port = 0;
  let hole: ConnectionFilter | null = null;

  interface Connection {
    client: net.Socket;
    upstream: net.Socket | null;
    sent: string;
    swallowed: boolean;
  }

  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };

  /** From now on this connection's bytes go nowhere (both sides are still read, so neither sees back-pressure or a close). */
  function swallow(connection: Connection): void {
    connection.swallowed = true;
  }

  function consider(connection: Connection): void {
    if (hole !== null && !connection.swallowed && hole(connection.sent)) swallow(connection);
  }

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = net.createServer((client) => {
        track(client);
        const connection: Connection = { client, upstream: null, sent: '', swallowed: false };
        connections.add(connection);
        client.on('close', () => connections.delete(connection));
        // Recorded before forwarding, so a filter sees a statement before the server does.
        client.on('data', (chunk: Buffer) => {
          if (connection.sent.length < KEPT_BYTES) connection.sent += chunk.toString('latin1');
          consider(connection);
        });
        consider(connection);
        if (connection.swallowed) return;
        const upstream = net.connect(target.port, target.host);
        connection.upstream = upstream;
        track(upstream);
        client.on('data', (chunk: Buffer) => {
          if (!connection.swallowed) upstream.write(chunk);
        });
        upstream.on('data', (chunk: Buffer) => {
          if (!connection.swallowed) client.write(chunk);
        });
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        port = (next.address() as net.AddressInfo).port;
        server = next;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      const current = server;
      server = null;
      if (current === null) resolve();
      else current.close(() => resolve());
    });
  await listen();
  return {
    port,
    cut: stop,
    restore: listen,
    blackHole(matches = () => true) {
      hole = matches;
      for (const connection of connections) consider(connection);
    },
    heal() {
      hole = null;
      for (const connection of connections) {
        if (!connection.swallowed) continue;
        connection.client.destroy();
        connection.upstream?.destroy();
      }
    },
    close: stop,
  };
}
