import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CHANGES_CHANNEL } from './dialect.js';
import { connectionConfig } from './postgres.js';
import type { Sql } from './sql.js';

const RECONNECT_DELAY_MS = 500;
/** Longest wait for a healthy connection's goodbye at shutdown; past it the socket is destroyed. */
const CLOSE_WAIT_MS = 1_000;

/**
 * What a management change touched, as NOTIFY carries it to the other replicas: enough for each
 * to drop only that from its caches (a key, a prompt's served version, a prompt's experiment).
 */
export interface ChangeNotice {
  projectId: string;
  targetType: string;
  targetId: string;
  /** The prompt an experiment change concerns: running experiments are cached by prompt. */
  promptId?: string;
}

/** NOTIFY's payload must stay under 8000 bytes; ids are far shorter, but a payload that would not fit says "anything". */
const MAX_PAYLOAD = 4_000;

/** The NOTIFY payload of a change; '' (anything may have changed) when it would not fit. */
function encodeChange(change: ChangeNotice): string {
  const payload = JSON.stringify(change);
  return Buffer.byteLength(payload) <= MAX_PAYLOAD ? payload : '';
}

/** Other processes drop what they hold in memory of `change` once this transaction commits (PostgreSQL's NOTIFY). */
export async function announceChange(db: Sql, change: ChangeNotice): Promise<void> {
  if (db.dialect.announceChange !== null) await db.run(db.dialect.announceChange, [encodeChange(change)]);
}

/** A payload back into the change; null when it does not say (empty, or sent by an older Promptline): drop everything. */
function decodeChange(payload: string): ChangeNotice | null {
  if (payload === '') return null;
  try {
    const parsed = JSON.parse(payload) as Partial<ChangeNotice> | null;
    if (typeof parsed?.projectId !== 'string' || typeof parsed.targetType !== 'string' || typeof parsed.targetId !== 'string') return null;
    const notice: ChangeNotice = { projectId: parsed.projectId, targetType: parsed.targetType, targetId: parsed.targetId };
    if (typeof parsed.promptId === 'string') notice.promptId = parsed.promptId;
    return notice;
  } catch {
    return null;
  }
}

export type Freshness = { fresh: true } | { fresh: false; reason: string };

export interface ChangeFeed {
  /** Hot path: true while every change committed longer ago than the staleness bound is known to have been heard. */
  isFresh(): boolean;
  /** isFresh, with the reason when not (for /readyz). */
  freshness(): Freshness;
  /** Settles once the first connection listens, or failed to. */
  readonly started: Promise<void>;
  close(): Promise<void>;
}

export interface ChangeFeedOptions {
  url: string;
  /** The statement deadline of the LISTEN connection (connectionConfig). */
  timeoutMs: number;
  /** Past this long without proof that changes are heard, the caches must not be trusted. */
  stalenessBoundMs: number;
  /** A change another process committed; null: anything may have changed (drop everything). */
  onChange(change: ChangeNotice | null): void;
  onError(error: unknown): void;
}

/** A connection that may be black-holed: end() would wait forever for the server's goodbye. */
function destroy(client: pg.Client): void {
  client.end().catch(() => undefined);
  client.connection.stream.destroy();
}

/**
 * Hears the management changes other replicas commit (keys, prompts, labels, experiments, erasures:
 * every change recorded in the change log announces itself with NOTIFY in its own transaction), and calls
 * `onChange` so this process drops what it cached. LISTEN runs on a connection of its own, outside
 * the pool. A notification cannot be lost while that connection lives; when it breaks, changes may
 * have gone unheard, so `onChange(null)` is called as soon as a new connection listens.
 *
 * A connection can also go silent without breaking (a path that drops packets: neither TCP nor
 * the driver notices). So the feed proves itself: every second or so it sends a NOTIFY on a channel
 * only it listens to, and waits for it to come back. PostgreSQL delivers notifications in commit
 * order, so when the probe sent at time T returns, every change committed before T has been heard:
 * the caches are fresh as of T. `isFresh` says whether that T is within the staleness bound; when
 * it is not, callers stop trusting their caches (read through to the database), and when a probe
 * returns again after such a gap, `onChange(null)` drops everything once before trust resumes. A
 * probe unanswered for half the bound condemns the connection, and a new one is opened.
 */
export function listenForChanges(options: ChangeFeedOptions): ChangeFeed {
  const bound = options.stalenessBoundMs;
  // A channel of this process's own, so other replicas never take a probe for a change.
  const probeChannel = `promptline_probe_${randomBytes(8).toString('hex')}`;
  const probeEveryMs = Math.min(1_000, bound / 4);
  const probeDeadlineMs = Math.max(probeEveryMs, bound / 2);

  let client: pg.Client | null = null;
  let closed = false;
  let connecting: Promise<void> | null = null;
  /** Every change committed before this instant (performance.now()) has been heard and applied. */
  let heardUpTo = Number.NEGATIVE_INFINITY;
  let probe: { token: string; sentAt: number } | null = null;
  let probes = 0;

  const isFresh = () => !closed && performance.now() - heardUpTo <= bound;

  /** The probe sent at `sentAt` came back: all that was committed before it has been heard. */
  function heardBy(sentAt: number): void {
    // After a gap past the bound, nothing cached before it can be vouched for: forget it once.
    if (!isFresh()) options.onChange(null);
    heardUpTo = Math.max(heardUpTo, sentAt);
  }

  function drop(current: pg.Client): void {
    if (client !== current) return;
    client = null;
    probe = null;
    destroy(current);
    setTimeout(ensure, RECONNECT_DELAY_MS).unref();
  }

  async function connect(): Promise<void> {
    const next = new pg.Client(connectionConfig(options.url, options.timeoutMs));
    next.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL) options.onChange(decodeChange(message.payload ?? ''));
      else if (message.channel === probeChannel && client === next && probe !== null && message.payload === probe.token) {
        const { sentAt } = probe;
        probe = null;
        heardBy(sentAt);
      }
    });
    next.on('error', (error) => {
      options.onError(error);
      drop(next);
    });
    next.on('end', () => drop(next));
    const listeningFrom = performance.now();
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}; LISTEN ${probeChannel}`);
    } catch (error) {
      destroy(next);
      throw error;
    }
    if (closed) {
      await next.end();
      return;
    }
    client = next;
    // Whatever was announced while nobody listened is unknown: forget everything once. What is
    // loaded from now on was read after LISTEN began, so the caches are fresh as of then.
    options.onChange(null);
    heardUpTo = listeningFrom;
  }

  function ensure(): void {
    if (closed || client !== null || connecting !== null) return;
    connecting = connect()
      .catch((error: unknown) => {
        options.onError(error);
        return new Promise<void>((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS).unref());
      })
      .finally(() => {
        connecting = null;
      });
  }

  function check(): void {
    const current = client;
    if (current === null) {
      ensure();
      return;
    }
    const now = performance.now();
    if (probe !== null) {
      if (now - probe.sentAt > probeDeadlineMs) {
        options.onError(new Error(`the LISTEN connection has not answered for ${Math.round(now - probe.sentAt)} ms: replacing it`));
        drop(current);
      }
      return;
    }
    probe = { token: String(++probes), sentAt: now };
    current.query('SELECT pg_notify($1, $2)', [probeChannel, probe.token]).catch((error: unknown) => {
      options.onError(error);
      drop(current);
    });
  }

  const timer = setInterval(check, probeEveryMs);
  timer.unref();
  ensure();
  const started = connecting ?? Promise.resolve();

  return {
    isFresh,
    freshness() {
      if (isFresh()) return { fresh: true };
      const since = heardUpTo === Number.NEGATIVE_INFINITY ? 'since start' : `for ${Math.round(performance.now() - heardUpTo)} ms`;
      const listening = client === null ? 'reconnecting to listen' : 'the LISTEN connection is not answering';
      return { fresh: false, reason: `other replicas' changes unheard ${since} (bound ${bound} ms; ${listening}): reading through to the database` };
    },
    started,
    async close() {
      closed = true;
      clearInterval(timer);
      await connecting;
      const current = client;
      client = null;
      if (current === null) return;
      let wait: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<void>((resolve) => {
        wait = setTimeout(resolve, CLOSE_WAIT_MS);
      });
      await Promise.race([current.end().catch(() => undefined), gaveUp]);
      clearTimeout(wait);
      current.connection.stream.destroy();
    },
  };
}
