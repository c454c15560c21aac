import { ECHO_PROVIDER, parseProviderEnv, type ProviderSettings } from './providers/settings.js';
import { redactPassword } from './db/databaseUrl.js';
import type { Durability } from './db/open.js';
import { isTrustProxyList } from './lib/clientAddress.js';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** PROMPTLINE_DATABASE_URL: a postgres:// URL runs on PostgreSQL; null: the SQLite file in dataDir. */
  readonly databaseUrl: string | null;
  readonly durability: Durability;
  readonly bootstrapAdminKey: string | null;
  readonly defaultModel: string;
  readonly logLevel: string;
  readonly bodyLimitBytes: number;
  readonly limits: Limits;
  readonly providers: ProviderSettings;
  /** Prometheus metrics: `/metrics` on the main port when `on`, or on a port of its own (the operator's network only). */
  readonly metrics: { readonly enabled: boolean; readonly port: number | null };
  /** Runs older than this many days lose their text (inputs, rendered prompt, output); null: kept. */
  readonly runTextRetentionDays: number | null;
  /** Webhook deliveries may reach loopback and private addresses (off: public addresses only). */
  readonly webhooksAllowPrivate: boolean;
  /** How often the counts of input names callers sent (the impact's evidence) are written. */
  readonly inputSummaryFlushMs: number;
  /** How long a runner's hold on an evaluation lasts unless renewed: how soon a replica or a restart takes over the work of one that died. */
  readonly evaluationLeaseMs: number;
  /**
   * How long a write done in slices (src/db/slices.ts) may go without a slice before it counts as
   * abandoned: its writer died; nothing of it was ever visible, and housekeeping deletes it.
   */
  readonly slicedWriteHoldMs: number;
  /** Deadlines of PostgreSQL connections, and how stale a replica's caches may get (docs/scaling-out.md). */
  readonly postgres: PostgresSettings;
}

/** How long PostgreSQL may take before a replica stops waiting for it (unused on SQLite). */
interface PostgresSettings {
  /** Longest statement (the server cancels it), and connection attempt; the client gives up 1 s later. */
  readonly timeoutMs: number;
  /** The same for the statements of an experiment report (the results worker, the CLI). */
  readonly reportTimeoutMs: number;
  /** Past this long without proof that other replicas' changes are heard, in-memory caches are not used. */
  readonly stalenessBoundMs: number;
}

/** Everything that bounds what one client can cost the process (docs/configuration.md, "Limits"). */
interface Limits {
  readonly renderMaxBytes: number;
  readonly renderMaxSteps: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** 0: no cap. */
  readonly maxConnections: number;
  /** Open connections one client address may hold (trusted proxies exempt); 0: no cap. */
  readonly maxConnectionsPerAddress: number;
  /** Requests one client address (the forwarded one behind a trusted proxy) may have in flight; 0: no cap. */
  readonly maxInFlightPerAddress: number;
  readonly shutdownTimeoutMs: number;
  /** Requests per minute for a key without its own limit; 0: unlimited. */
  readonly rateLimitPerMinute: number;
  /** Failed API-key checks per client address per minute before 429; 0: no throttle. */
  readonly authFailuresPerMinute: number;
  /** Fastify's `trustProxy`: whose X-Forwarded-For names the client address. */
  readonly trustProxy: boolean | string;
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const MODEL_STRING = /^[A-Za-z0-9_.-]+\/\S+$/;

/** Reads one variable with a parser; a bad value is recorded, never thrown, so all are reported at once. */
function reader(env: Env, errors: string[]) {
  return <T>(name: string, fallback: T, parse: (raw: string) => T | undefined, expected: string): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = parse(raw);
    if (value === undefined) {
      // A database URL may hold a password: it is shown only with the password hidden, or not at all.
      const shown =
        name !== 'PROMPTLINE_DATABASE_URL' ? JSON.stringify(raw) : /^[a-z]+:\/\//i.test(raw) ? JSON.stringify(redactPassword(raw)) : '(value not shown)';
      errors.push(`${name}=${shown} is invalid: expected ${expected}`);
      return fallback;
    }
    return value;
  };
}

const integerIn = (min: number, max: number) => (raw: string) => {
  const n = Number(raw);
  return /^\d+$/.test(raw) && n >= min && n <= max ? n : undefined;
};
const oneOf =
  <T extends string>(values: readonly T[]) =>
  (raw: string) =>
    (values as readonly string[]).includes(raw) ? (raw as T) : undefined;
const text = (raw: string) => raw;
const postgresUrl = (raw: string) => {
  try {
    const url = new URL(raw);
    return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname !== '' ? raw : undefined;
  } catch {
    return undefined;
  }
};

const onOff = (raw: string) => (raw === 'on' ? true : raw === 'off' ? false : undefined);
/** `on`/`off`, or a comma-separated list of proxy addresses, CIDRs or `loopback`/`linklocal`/`uniquelocal`. */
const trustProxyValue = (raw: string): boolean | string | undefined => {
  if (raw === 'on' || raw === 'off') return raw === 'on';
  return isTrustProxyList(raw) ? raw : undefined;
};

/** Environment → typed, frozen configuration. Every bad variable is listed; the caller exits. */
export function loadConfig(env: Env): { config: Config | null; errors: string[] } {
  const errors: string[] = [];
  const read = reader(env, errors);
  const bootstrapAdminKey = read(
    'PROMPTLINE_BOOTSTRAP_ADMIN_KEY',
    null as string | null,
    (raw) => (raw.length >= 16 && !/\s/.test(raw) ? raw : undefined),
    'at least 16 characters, no spaces',
  );
  const defaultModel = read(
    'PROMPTLINE_DEFAULT_MODEL',
    'echo/echo',
    (raw) => (MODEL_STRING.test(raw) ? raw : undefined),
    'a model string "<provider>/<model>"',
  );
  const partial = {
    port: read('PORT', 8000, integerIn(0, 65535), 'an integer port 0-65535'),
    host: read('HOST', '127.0.0.1', text, 'a host name or address'),
    dataDir: read('PROMPTLINE_DATA_DIR', './data', text, 'a directory path'),
    databaseUrl: read('PROMPTLINE_DATABASE_URL', null as string | null, postgresUrl, 'a postgres://user:password@host:port/database URL'),
    durability: read('PROMPTLINE_DURABILITY', 'full' as Durability, oneOf(['full', 'normal'] as const), '"full" or "normal"'),
    bootstrapAdminKey,
    defaultModel,
    logLevel: read('LOG_LEVEL', 'info', oneOf(LOG_LEVELS), LOG_LEVELS.join(', ')),
    bodyLimitBytes: read('PROMPTLINE_BODY_LIMIT_BYTES', 1_048_576, integerIn(1024, 100 * 1_048_576), 'an integer number of bytes (1024 to 104857600)'),
    limits: readLimits(read, errors),
    metrics: {
      enabled: read('PROMPTLINE_METRICS', false, onOff, '"on" or "off"'),
      port: read('PROMPTLINE_METRICS_PORT', null as number | null, integerIn(1, 65535), 'an integer port 1-65535'),
    },
    runTextRetentionDays: read('PROMPTLINE_RUN_TEXT_RETENTION_DAYS', null as number | null, integerIn(1, 36_500), 'an integer number of days (1 to 36500)'),
    webhooksAllowPrivate: read('PROMPTLINE_WEBHOOKS_ALLOW_PRIVATE', false, onOff, '"on" or "off"'),
    inputSummaryFlushMs: read('PROMPTLINE_INPUT_SUMMARY_FLUSH_MS', 5_000, integerIn(10, 600_000), 'an integer number of milliseconds (10 to 600000)'),
    evaluationLeaseMs: read('PROMPTLINE_EVALUATION_LEASE_MS', 15_000, integerIn(300, 600_000), 'an integer number of milliseconds (300 to 600000)'),
    slicedWriteHoldMs: read('PROMPTLINE_SLICED_WRITE_HOLD_MS', 15_000, integerIn(300, 600_000), 'an integer number of milliseconds (300 to 600000)'),
    postgres: readPostgresSettings(read),
  };
  const providers = parseProviderEnv(env);
  errors.push(...providers.errors);
  const provider = defaultModel.split('/')[0]!;
  if (provider !== ECHO_PROVIDER && !Object.hasOwn(providers.settings.providers, provider)) {
    errors.push(`PROMPTLINE_DEFAULT_MODEL=${JSON.stringify(defaultModel)} names provider "${provider}", which is not configured`);
  }
  if (errors.length > 0) return { config: null, errors };
  return { config: Object.freeze({ ...partial, providers: providers.settings }), errors };
}

function readPostgresSettings(read: ReturnType<typeof reader>): PostgresSettings {
  const ms = (name: string, fallback: number, min: number, max: number) =>
    read(name, fallback, integerIn(min, max), `an integer number of milliseconds (${min} to ${max})`);
  return Object.freeze({
    timeoutMs: ms('PROMPTLINE_DB_TIMEOUT_MS', 5_000, 100, 600_000),
    reportTimeoutMs: ms('PROMPTLINE_DB_REPORT_TIMEOUT_MS', 120_000, 1_000, 3_600_000),
    stalenessBoundMs: ms('PROMPTLINE_STALENESS_BOUND_MS', 5_000, 500, 600_000),
  });
}

function readLimits(read: ReturnType<typeof reader>, errors: string[]): Limits {
  const ms = (name: string, fallback: number, min: number, max: number) =>
    read(name, fallback, integerIn(min, max), `an integer number of milliseconds (${min} to ${max})`);
  const maxConnections = read('PROMPTLINE_MAX_CONNECTIONS', 512, integerIn(0, 1_000_000), 'an integer (0 for no cap)');
  const limits: Limits = {
    renderMaxBytes: read('PROMPTLINE_RENDER_MAX_BYTES', 1_048_576, integerIn(65_536, 100 * 1_048_576), 'an integer number of bytes (65536 to 104857600)'),
    renderMaxSteps: read('PROMPTLINE_RENDER_MAX_STEPS', 50_000, integerIn(10_000, 10_000_000), 'an integer (10000 to 10000000)'),
    headersTimeoutMs: ms('PROMPTLINE_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: ms('PROMPTLINE_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    keepAliveTimeoutMs: ms('PROMPTLINE_KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 600_000),
    maxConnections,
    // Half the global cap by default: a busy client behind no proxy keeps room, and never all of it.
    maxConnectionsPerAddress: read(
      'PROMPTLINE_MAX_CONNECTIONS_PER_ADDRESS',
      Math.floor(maxConnections / 2),
      integerIn(0, 1_000_000),
      'an integer (0 for no cap)',
    ),
    maxInFlightPerAddress: read('PROMPTLINE_MAX_IN_FLIGHT_PER_ADDRESS', Math.floor(maxConnections / 2), integerIn(0, 1_000_000), 'an integer (0 for no cap)'),
    shutdownTimeoutMs: ms('PROMPTLINE_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    rateLimitPerMinute: read('PROMPTLINE_RATE_LIMIT_PER_MINUTE', 0, integerIn(0, 100_000_000), 'an integer (0 for unlimited)'),
    authFailuresPerMinute: read('PROMPTLINE_AUTH_FAILURES_PER_MINUTE', 30, integerIn(0, 1_000_000), 'an integer (0 for no throttle)'),
    trustProxy: read(
      'PROMPTLINE_TRUST_PROXY',
      false as boolean | string,
      trustProxyValue,
      '"on", "off", or proxy addresses/CIDRs (or loopback, linklocal, uniquelocal) separated by commas',
    ),
  };
  // Node refuses a header timeout longer than the whole-request timeout.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    errors.push(`PROMPTLINE_HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not exceed PROMPTLINE_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs})`);
  }
  return Object.freeze(limits);
}
