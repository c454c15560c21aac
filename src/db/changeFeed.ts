import pg from 'pg';
import { CHANGES_CHANNEL } from './dialect.js';

/** How often the listening connection is checked; a dead one is replaced within this (plus reconnect). */
const CHECK_INTERVAL_MS = 2_000;
const RECONNECT_DELAY_MS = 500;

export interface ChangeFeed {
  close(): Promise<void>;
}

/**
 * Hears the management changes other replicas commit (keys, prompts, labels, experiments, erasures:
 * everything recordChange audits announces itself with NOTIFY in its own transaction), and calls
 * `onChange` so this process drops what it cached. LISTEN runs on a connection of its own, outside
 * the pool. A notification cannot be lost while that connection lives; when it breaks (the server
 * restarted, the network cut it), changes may have gone unheard, so `onChange` is called again as
 * soon as a new connection listens. The periodic check (a `SELECT 1` every two seconds) is the
 * safety net that notices a connection that died silently.
 */
export function listenForChanges(url: string, onChange: () => void, onError: (error: unknown) => void): ChangeFeed {
  let client: pg.Client | null = null;
  let closed = false;
  let connecting: Promise<void> | null = null;

  function drop(current: pg.Client): void {
    if (client !== current) return;
    client = null;
    current.end().catch(() => undefined);
    setTimeout(ensure, RECONNECT_DELAY_MS).unref();
  }

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    next.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL) onChange();
    });
    next.on('error', (error) => {
      onError(error);
      drop(next);
    });
    next.on('end', () => drop(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      next.end().catch(() => undefined);
      throw error;
    }
    if (closed) {
      await next.end();
      return;
    }
    client = next;
    // Whatever was announced while nobody listened is unknown: forget everything once.
    onChange();
  }

  function ensure(): void {
    if (closed || client !== null || connecting !== null) return;
    connecting = connect()
      .catch((error: unknown) => {
        onError(error);
        return new Promise<void>((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS).unref());
      })
      .finally(() => {
        connecting = null;
      });
  }

  const timer = setInterval(() => {
    const current = client;
    if (current === null) ensure();
    else current.query('SELECT 1').catch(() => drop(current));
  }, CHECK_INTERVAL_MS);
  timer.unref();
  ensure();

  return {
    async close() {
      closed = true;
      clearInterval(timer);
      await connecting;
      const current = client;
      client = null;
      await current?.end().catch(() => undefined);
    },
  };
}
