import { ECHO_PROVIDER, parseProviderEnv, type ProviderSettings } from './providers/settings.js';
import type { Durability } from './db/open.js';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly durability: Durability;
  readonly bootstrapAdminKey: string | null;
  readonly defaultModel: string;
  readonly logLevel: string;
  readonly bodyLimitBytes: number;
  readonly providers: ProviderSettings;
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
      errors.push(`${name}=${JSON.stringify(raw)} is invalid: expected ${expected}`);
      return fallback;
    }
    return value;
  };
}

const integerIn = (min: number, max: number) => (raw: string) => {
  const n = Number(raw);
  return /^\d+$/.test(raw) && n >= min && n <= max ? n : undefined;
};
const oneOf = <T extends string>(values: readonly T[]) => (raw: string) =>
  (values as readonly string[]).includes(raw) ? (raw as T) : undefined;
const text = (raw: string) => raw;

/** Environment → typed, frozen configuration. Every bad variable is listed; the caller exits. */
export function loadConfig(env: Env): { config: Config | null; errors: string[] } {
  const errors: string[] = [];
  const read = reader(env, errors);
  const bootstrapAdminKey = read('PROMPTLINE_BOOTSTRAP_ADMIN_KEY', null as string | null,
    (raw) => (raw.length >= 16 && !/\s/.test(raw) ? raw : undefined), 'at least 16 characters, no spaces');
  const defaultModel = read('PROMPTLINE_DEFAULT_MODEL', 'echo/echo',
    (raw) => (MODEL_STRING.test(raw) ? raw : undefined), 'a model string "<provider>/<model>"');
  const partial = {
    port: read('PORT', 8000, integerIn(0, 65535), 'an integer port 0-65535'),
    host: read('HOST', '127.0.0.1', text, 'a host name or address'),
    dataDir: read('PROMPTLINE_DATA_DIR', './data', text, 'a directory path'),
    durability: read('PROMPTLINE_DURABILITY', 'full' as Durability, oneOf(['full', 'normal'] as const), '"full" or "normal"'),
    bootstrapAdminKey,
    defaultModel,
    logLevel: read('LOG_LEVEL', 'info', oneOf(LOG_LEVELS), LOG_LEVELS.join(', ')),
    bodyLimitBytes: read('PROMPTLINE_BODY_LIMIT_BYTES', 1_048_576, integerIn(1024, 100 * 1_048_576), 'an integer number of bytes (1024 to 104857600)'),
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
