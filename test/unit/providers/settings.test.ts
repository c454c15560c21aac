import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProviderEnv } from '../../../src/providers/settings.js';
import { writeTempJson } from '../../support/tempJson.js';

describe('parseProviderEnv', () => {
  it('has only the built-in echo provider and the documented defaults on an empty environment', () => {
    const { settings, errors } = parseProviderEnv({});
    expect(errors).toEqual([]);
    expect(settings.providers).toEqual({});
    expect(settings).toMatchObject({
      maxRetries: 2,
      requestDeadlineMs: 60_000,
      retryAfterCapMs: 10_000,
      queueTimeoutMs: 2_000,
      pricesFile: null,
      priceOverrides: {},
    });
  });

  it('configures openai only when OPENAI_API_KEY is set', () => {
    expect(parseProviderEnv({ OPENAI_BASE_URL: 'http://localhost:1/v1' }).settings.providers).toEqual({});
    const { settings, errors } = parseProviderEnv({ OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'http://localhost:1/v1' });
    expect(errors).toEqual([]);
    expect(settings.providers.openai).toEqual({
      name: 'openai',
      baseURL: 'http://localhost:1/v1',
      apiKey: 'sk-x',
      timeoutMs: 30_000,
      maxConcurrency: 64,
    });
    expect(parseProviderEnv({ OPENAI_API_KEY: 'sk-x' }).settings.providers.openai?.baseURL).toBeUndefined();
  });

  it('reads any number of PROMPTLINE_PROVIDER_<NAME>_* providers, lower-casing the name', () => {
    const { settings, errors } = parseProviderEnv({
      PROMPTLINE_PROVIDER_OLLAMA_BASE_URL: 'http://localhost:11434/v1',
      PROMPTLINE_PROVIDER_LM_STUDIO_BASE_URL: 'http://localhost:1234/v1',
      PROMPTLINE_PROVIDER_LM_STUDIO_TIMEOUT_MS: '120000',
      PROMPTLINE_PROVIDER_GROQ_BASE_URL: 'https://api.groq.com/openai/v1',
      PROMPTLINE_PROVIDER_GROQ_API_KEY: 'gsk_abc',
      PROMPTLINE_PROVIDER_GROQ_MAX_CONCURRENCY: '8',
      PROMPTLINE_PROVIDER_TIMEOUT_MS: '45000',
      PROMPTLINE_MAX_RETRIES: '0',
    });
    expect(errors).toEqual([]);
    expect(Object.keys(settings.providers).sort()).toEqual(['groq', 'lm_studio', 'ollama']);
    expect(settings.providers.ollama).toEqual({
      name: 'ollama',
      baseURL: 'http://localhost:11434/v1',
      apiKey: 'none',
      timeoutMs: 45_000,
      maxConcurrency: 64,
    });
    expect(settings.providers.lm_studio?.timeoutMs).toBe(120_000);
    expect(settings.providers.groq).toMatchObject({ apiKey: 'gsk_abc', maxConcurrency: 8, timeoutMs: 45_000 });
    expect(settings.maxRetries).toBe(0);
  });

  it('reports every bad value at once, each naming its variable', () => {
    const { errors } = parseProviderEnv({
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: 'not a url',
      PROMPTLINE_PROVIDER_A_BASE_URL: 'ftp://example.com',
      PROMPTLINE_PROVIDER_B_BASE_URL: 'http://b',
      PROMPTLINE_PROVIDER_B_TIMEOUT_MS: '0',
      PROMPTLINE_PROVIDER_B_MAX_CONCURRENCY: '-3',
      PROMPTLINE_PROVIDER_C_API_KEY: 'orphan',
      PROMPTLINE_PROVIDER_ECHO_BASE_URL: 'http://x',
      PROMPTLINE_PROVIDER_D_BASEURL: 'http://typo',
      PROMPTLINE_PROVIDER_TIMEOUT_MS: '1.5',
      PROMPTLINE_MAX_RETRIES: 'two',
      PROMPTLINE_REQUEST_DEADLINE_MS: '0',
      PROMPTLINE_RETRY_AFTER_CAP_MS: 'x',
      PROMPTLINE_QUEUE_TIMEOUT_MS: '-1',
    });
    const named = (v: string) => errors.filter((e) => e.includes(v));
    for (const v of [
      'OPENAI_BASE_URL',
      'PROMPTLINE_PROVIDER_A_BASE_URL',
      'PROMPTLINE_PROVIDER_B_TIMEOUT_MS',
      'PROMPTLINE_PROVIDER_B_MAX_CONCURRENCY',
      'PROMPTLINE_PROVIDER_C_BASE_URL',
      'PROMPTLINE_PROVIDER_ECHO_',
      'PROMPTLINE_PROVIDER_D_BASEURL',
      'PROMPTLINE_PROVIDER_TIMEOUT_MS',
      'PROMPTLINE_MAX_RETRIES',
      'PROMPTLINE_REQUEST_DEADLINE_MS',
      'PROMPTLINE_RETRY_AFTER_CAP_MS',
      'PROMPTLINE_QUEUE_TIMEOUT_MS',
    ]) {
      expect(named(v).length, `an error naming ${v} in ${JSON.stringify(errors, null, 1)}`).toBeGreaterThan(0);
    }
    expect(errors).toHaveLength(12);
  });

  it('reads the price override file, defaulting cached_input to input', () => {
    const file = writeTempJson({
      'Ollama/llama3.1:8b': { input: 0, output: 0 },
      'openai/gpt-4o-mini': { input: 0.2, cached_input: 0.1, output: 0.8 },
    });
    const { settings, errors } = parseProviderEnv({ PROMPTLINE_PRICES_FILE: file });
    expect(errors).toEqual([]);
    expect(settings.pricesFile).toBe(file);
    expect(settings.priceOverrides).toEqual({
      'ollama/llama3.1:8b': { input: 0, cached_input: 0, output: 0 },
      'openai/gpt-4o-mini': { input: 0.2, cached_input: 0.1, output: 0.8 },
    });
  });

  it('reports an unreadable or invalid price file as errors naming PROMPTLINE_PRICES_FILE', () => {
    const bad = writeTempJson({ 'no-slash': { input: 1, output: 1 }, 'a/b': { input: -1, output: 1 }, 'a/c': { input: 1 } }, 'bad.json');
    const invalid = parseProviderEnv({ PROMPTLINE_PRICES_FILE: bad });
    expect(invalid.errors).toHaveLength(3);
    expect(invalid.errors.every((e) => e.startsWith('PROMPTLINE_PRICES_FILE'))).toBe(true);
    const missing = parseProviderEnv({ PROMPTLINE_PRICES_FILE: join(dirname(bad), 'missing.json') });
    expect(missing.errors).toHaveLength(1);
    expect(missing.errors[0]).toContain('PROMPTLINE_PRICES_FILE');
  });
});
