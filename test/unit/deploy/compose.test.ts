import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// deploy/compose.yaml read as Compose reads it (YAML with its anchors, then `${…}` interpolation),
// and held to what the rest of the repository says: the replicas are this repository's image,
// they reach the database the postgres service creates, and nginx.conf balances exactly them.
// Where Podman runs, test/container/compose.test.ts also starts it.
const ROOT = path.resolve(import.meta.dirname, '../../..');
const DEPLOY = path.join(ROOT, 'deploy');
const REPLICAS = ['promptline-1', 'promptline-2'];

interface Service {
  build?: string;
  image?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
  restart?: string;
}

/**
 * Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?message}` with `env`
 * (`$$` is a literal `$`); a required variable that is unset or empty throws its message.
 */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (whole, name: string | undefined, kind?: string, operand?: string) => {
    if (name === undefined) return '$';
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (kind === '-') return operand ?? '';
    if (kind === '?') throw new Error(`${name}: ${operand}`);
    return '';
  });
}

function composeFile(env: Record<string, string>): { name: string; services: Record<string, Service>; volumes: Record<string, unknown> } {
  const text = fs.readFileSync(path.join(DEPLOY, 'compose.yaml'), 'utf8');
  return parse(interpolate(text, env));
}

const ENV = { PROMPTLINE_BOOTSTRAP_ADMIN_KEY: 'a-long-secret' };

/** `${inner}` as Compose writes it (made here, so that no string literal looks like a template). */
const ref = (inner: string): string => `\${${inner}}`;

describe('the interpolation this test reads compose.yaml with', () => {
  it.each([
    [ref('A'), { A: 'x' }, 'x'],
    [ref('A'), {}, ''],
    [ref('A:-d'), {}, 'd'],
    [ref('A:-d'), { A: '' }, 'd'],
    [ref('A:-d'), { A: 'x' }, 'x'],
    [ref('A:?m'), { A: 'x' }, 'x'],
    [`$${ref('A')}`, { A: 'x' }, ref('A')],
  ])('%s with %j is %j', (text, env, expected) => {
    expect(interpolate(text, env as Record<string, string>)).toBe(expected);
  });

  it('refuses a required variable that is unset or empty, with its message', () => {
    expect(() => interpolate(ref('A:?set A'), {})).toThrow('A: set A');
    expect(() => interpolate(ref('A:?set A'), { A: '' })).toThrow('A: set A');
  });
});

describe('deploy/compose.yaml', () => {
  it('refuses to start without an admin key, and needs nothing else', () => {
    expect(() => composeFile({})).toThrow(/PROMPTLINE_BOOTSTRAP_ADMIN_KEY: set PROMPTLINE_BOOTSTRAP_ADMIN_KEY/);
    expect(composeFile(ENV).services).toBeDefined();
  });

  it('runs PostgreSQL, two replicas of this repository’s image and a balancer, the data on a named volume', () => {
    const compose = composeFile(ENV);
    expect(Object.keys(compose.services).sort()).toEqual(['balancer', 'postgres', ...REPLICAS].sort());
    for (const name of REPLICAS) {
      const replica = compose.services[name]!;
      // Built from the folder that holds the Dockerfile, on its default (public) base.
      expect(fs.existsSync(path.join(path.resolve(DEPLOY, replica.build!), 'Dockerfile'))).toBe(true);
      expect(replica.restart).toBe('unless-stopped');
      expect(replica.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
      expect(replica.environment).toMatchObject({ PROMPTLINE_BOOTSTRAP_ADMIN_KEY: 'a-long-secret', PROMPTLINE_TRUST_PROXY: 'uniquelocal' });
    }
    const volume = compose.services.postgres!.volumes?.[0]?.split(':');
    expect(volume?.[1]).toBe('/var/lib/postgresql/data');
    expect(Object.keys(compose.volumes)).toEqual([volume?.[0]]);
  });

  it('gives the replicas the database, user and password the postgres service creates, with or without POSTGRES_PASSWORD', () => {
    for (const env of [ENV, { ...ENV, POSTGRES_PASSWORD: 's3cret' }]) {
      const { services } = composeFile(env);
      const postgres = services.postgres!.environment!;
      for (const name of REPLICAS) {
        const url = new URL(services[name]!.environment!.PROMPTLINE_DATABASE_URL!);
        expect(url.protocol).toBe('postgres:');
        expect(url.hostname).toBe('postgres');
        expect(url.port).toBe('5432');
        expect(decodeURIComponent(url.username)).toBe(postgres.POSTGRES_USER);
        expect(decodeURIComponent(url.password)).toBe(postgres.POSTGRES_PASSWORD);
        expect(url.pathname).toBe(`/${postgres.POSTGRES_DB}`);
      }
      expect(postgres.POSTGRES_PASSWORD).toBe(env === ENV ? 'promptline' : 's3cret');
      // Its health check (which the replicas wait for) asks for that user and database.
      expect(services.postgres!.healthcheck!.test).toEqual(['CMD', 'pg_isready', '-U', postgres.POSTGRES_USER, '-d', postgres.POSTGRES_DB]);
    }
  });

  it('balances exactly the replicas, on the port the image listens on, and publishes the balancer alone (on 8000, or PROMPTLINE_HOST_PORT)', () => {
    const { services } = composeFile(ENV);
    const balancer = services.balancer!;
    const [mountedFrom, mountedAt] = balancer.volumes![0]!.split(':');
    expect(mountedAt).toBe('/etc/nginx/conf.d/default.conf');
    const nginx = fs.readFileSync(path.resolve(DEPLOY, mountedFrom!), 'utf8');
    // The upstream's `server host:port` lines (not the `server {` block).
    const upstream = [...nginx.matchAll(/^\s*server\s+([^\s;{]+:\d+)/gm)].map((m) => m[1]);
    const imagePort = /^EXPOSE (\d+)$/m.exec(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
    expect(imagePort).toBe('8000');
    expect(upstream).toEqual(REPLICAS.map((name) => `${name}:${imagePort}`));
    expect(balancer.depends_on).toEqual(REPLICAS);
    const listen = /^\s*listen\s+(\d+);/m.exec(nginx)?.[1];
    expect(balancer.ports).toEqual([`${listen}:${listen}`]);
    expect(composeFile({ ...ENV, PROMPTLINE_HOST_PORT: '18000' }).services.balancer!.ports).toEqual([`18000:${listen}`]);
    for (const name of ['postgres', ...REPLICAS]) expect(services[name]!.ports).toBeUndefined();
  });
});
