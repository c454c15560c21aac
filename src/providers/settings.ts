// Environment → provider settings. Pure apart from reading the price-override file, which is
// done here (once, at start) so that a bad file is reported with every other bad variable.
import { readFileSync } from 'node:fs';

export interface ProviderConfig {
  /** Lower-case name, the `<provider>` part of `<provider>/<model>`. */
  name: string;
  /** Undefined only for `openai` without OPENAI_BASE_URL: the SDK's default (api.openai.com). */
  baseURL: string | undefined;
  /** Secret: never log it. */
  apiKey: string;
  timeoutMs: number;
  maxConcurrency: number;
}

/** USD per million tokens. */
export interface PriceOverride {
  input: number;
  cached_input: number;
  output: number;
}

export interface ProviderSettings {
  /** Configured OpenAI-compatible providers by name; `echo` is built in and never listed here. */
  providers: Readonly<Record<string, ProviderConfig>>;
  /** Retries per model after the first attempt (0 = one attempt per model). */
  maxRetries: number;
  requestDeadlineMs: number;
  retryAfterCapMs: number;
  queueTimeoutMs: number;
  pricesFile: string | null;
  /** Keyed by `<provider>/<model>`. */
  priceOverrides: Readonly<Record<string, PriceOverride>>;
}

export const ECHO_PROVIDER = 'echo';

const PREFIX = 'PROMPTLINE_PROVIDER_';
const SUFFIXES = ['_BASE_URL', '_API_KEY', '_TIMEOUT_MS', '_MAX_CONCURRENCY'] as const;
type Suffix = (typeof SUFFIXES)[number];
// Env names can only carry [A-Z0-9_], so this is also what a provider name may contain.
const NAME_RE = /^[A-Z0-9][A-Z0-9_]*$/;
const MAX_INT = 2_147_483_647;

export function parseProviderEnv(env: Record<string, string | undefined>): {
  settings: ProviderSettings;
  errors: string[];
} {
  const errors: string[] = [];
  const int = (name: string, fallback: number, min: 0 | 1): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = raw.trim();
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > MAX_INT) {
      const what = min === 0 ? 'a non-negative integer' : 'a positive integer';
      errors.push(`${name} must be ${what} (got ${JSON.stringify(raw)})`);
      return fallback;
    }
    return Number(value);
  };

  const defaultTimeoutMs = int('PROMPTLINE_PROVIDER_TIMEOUT_MS', 30_000, 1);
  const providers: Record<string, ProviderConfig> = {};

  const openaiKey = env.OPENAI_API_KEY;
  if (openaiKey !== undefined && openaiKey !== '') {
    const baseURL = env.OPENAI_BASE_URL;
    providers.openai = {
      name: 'openai',
      baseURL: baseURL === undefined || baseURL === '' ? undefined : checkUrl('OPENAI_BASE_URL', baseURL, errors),
      apiKey: openaiKey,
      timeoutMs: defaultTimeoutMs,
      maxConcurrency: 64,
    };
  }

  // Group PROMPTLINE_PROVIDER_<NAME>_<SUFFIX> by name, in a stable order for stable error lists.
  const groups = new Map<string, Partial<Record<Suffix, string>>>();
  for (const key of Object.keys(env).sort()) {
    if (!key.startsWith(PREFIX) || key === 'PROMPTLINE_PROVIDER_TIMEOUT_MS') continue;
    const rest = key.slice(PREFIX.length);
    const suffix = SUFFIXES.find((s) => rest.endsWith(s) && rest.length > s.length);
    const rawName = suffix ? rest.slice(0, -suffix.length) : '';
    if (!suffix || !NAME_RE.test(rawName)) {
      errors.push(`${key} is not a recognised variable: expected ${PREFIX}<NAME>_BASE_URL, _API_KEY, _TIMEOUT_MS or _MAX_CONCURRENCY`);
      continue;
    }
    const group = groups.get(rawName) ?? {};
    group[suffix] = env[key];
    groups.set(rawName, group);
  }

  for (const [rawName, group] of groups) {
    const name = rawName.toLowerCase();
    const v = (suffix: Suffix) => `${PREFIX}${rawName}${suffix}`;
    if (name === ECHO_PROVIDER) {
      errors.push(`${PREFIX}${rawName}_*: 'echo' is the built-in provider and cannot be configured`);
      continue;
    }
    const baseURL = group._BASE_URL;
    if (baseURL === undefined || baseURL.trim() === '') {
      const present = SUFFIXES.filter((s) => group[s] !== undefined).map(v);
      errors.push(`${v('_BASE_URL')} is required because ${present.join(', ')} is set`);
      continue;
    }
    const apiKey = group._API_KEY;
    providers[name] = {
      name,
      baseURL: checkUrl(v('_BASE_URL'), baseURL.trim(), errors),
      // Local servers (Ollama, llama.cpp, vLLM) ignore the key, but the SDK refuses to run without one.
      apiKey: apiKey === undefined || apiKey === '' ? 'none' : apiKey,
      timeoutMs: int(v('_TIMEOUT_MS'), defaultTimeoutMs, 1),
      maxConcurrency: int(v('_MAX_CONCURRENCY'), 64, 1),
    };
  }

  const pricesFile = env.PROMPTLINE_PRICES_FILE?.trim() || null;
  const priceOverrides = pricesFile === null ? {} : loadPriceOverrides(pricesFile, errors);

  const settings: ProviderSettings = {
    providers: Object.freeze(providers),
    maxRetries: int('PROMPTLINE_MAX_RETRIES', 2, 0),
    requestDeadlineMs: int('PROMPTLINE_REQUEST_DEADLINE_MS', 60_000, 1),
    retryAfterCapMs: int('PROMPTLINE_RETRY_AFTER_CAP_MS', 10_000, 0),
    queueTimeoutMs: int('PROMPTLINE_QUEUE_TIMEOUT_MS', 2_000, 0),
    pricesFile,
    priceOverrides: Object.freeze(priceOverrides),
  };
  return { settings: Object.freeze(settings), errors };
}

function checkUrl(variable: string, value: string, errors: string[]): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    errors.push(`${variable} must be an http(s) URL such as http://localhost:11434/v1 (got ${JSON.stringify(value)})`);
  }
  return value;
}

/**
 * Reads `{"<provider>/<model>": {"input": n, "cached_input": n, "output": n}}` (USD per million
 * tokens). `cached_input` may be omitted and then equals `input`.
 */
function loadPriceOverrides(path: string, errors: string[]): Record<string, PriceOverride> {
  const where = `PROMPTLINE_PRICES_FILE (${path})`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    errors.push(`${where}: cannot read a JSON file: ${(err as Error).message}`);
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    errors.push(`${where}: must be a JSON object keyed by "<provider>/<model>"`);
    return {};
  }
  const out: Record<string, PriceOverride> = {};
  const isPrice = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const slash = key.indexOf('/');
    if (slash <= 0 || slash === key.length - 1) {
      errors.push(`${where}: key ${JSON.stringify(key)} must look like "<provider>/<model>"`);
      continue;
    }
    const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
    const cached = v.cached_input ?? v.input;
    if (!isPrice(v.input) || !isPrice(v.output) || !isPrice(cached)) {
      errors.push(`${where}: ${JSON.stringify(key)} needs non-negative numbers "input", "output" and optionally "cached_input" (USD per million tokens)`);
      continue;
    }
    const provider = key.slice(0, slash).toLowerCase();
    out[`${provider}/${key.slice(slash + 1)}`] = { input: v.input, cached_input: cached, output: v.output };
  }
  return out;
}
