import { Kind } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, type RouteEntry } from '../../src/http/route.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { givenExperiment, givenPrompt } from '../support/fixtures.js';
import { mulberry32 } from '../support/prng.js';

// Thousands of generated requests over every registered route (the route table, so a new route
// is fuzzed without writing anything): none may answer 5xx, and the server serves normally after.
// On the backend the suite is given (PROMPTLINE_TEST_BACKEND=postgres: startTestApp's database).
const REQUESTS_PER_ROUTE = 110;

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const random = mulberry32(SEED); // a failure reproduces with FUZZ_SEED=<the seed in the test name>
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (n: number) => Math.floor(random() * n);

const STRINGS = [
  '',
  'a',
  'welcome',
  'p',
  'x'.repeat(300),
  '../../etc/passwd',
  '%00',
  '\u0000',
  'é😀',
  '{{a}}',
  '{{#a}}{{/a}}',
  '{{> p}}',
  'null',
  '1e400',
  'true',
  ' ',
  'pl_a_x',
  'exp_ab',
  'control',
  'production',
  '2026-01-01T00:00:00Z',
];

function jsonValue(depth: number): unknown {
  switch (int(depth > 3 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return pick([0, 1, -1, 0.5, 1e300, -0, 2 ** 53 + 1, 1e-320, 42]);
    case 3:
    case 4:
    case 5:
      return pick(STRINGS);
    case 6:
      return Array.from({ length: int(4) }, () => jsonValue(depth + 1));
    case 7:
      return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(STRINGS), jsonValue(depth + 1)]));
    default:
      return { [pick(STRINGS)]: jsonValue(depth + 1) };
  }
}

interface Schema {
  [Kind]?: string;
  pattern?: string;
  minimum?: number;
  const?: unknown;
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
}

/** A value the schema accepts, most of the time (a string pattern may match none of the candidates). */
function validFor(schema: Schema, depth = 0): unknown {
  switch (schema[Kind]) {
    case 'String': {
      const candidates = ['p', 'welcome', 'exp_ab', 'control', 'b', 'production', 'hello {{name}}', 'openai/gpt-4o-mini', '2026-01-01T00:00:00Z'];
      const re = schema.pattern ? new RegExp(schema.pattern) : null;
      return pick(candidates.filter((c) => !re || re.test(c)).concat(re ? [] : STRINGS));
    }
    case 'Integer':
    case 'Number':
      return Math.max(schema.minimum ?? 1, pick([1, 2, 3]));
    case 'Boolean':
      return random() < 0.5;
    case 'Literal':
      return schema.const;
    case 'Union':
      return validFor(pick(schema.anyOf ?? []), depth);
    case 'Array':
      return depth > 3 ? [] : Array.from({ length: 1 + int(2) }, () => validFor(schema.items!, depth + 1));
    case 'Record':
      return { name: validFor(Object.values(schema.patternProperties ?? {})[0] ?? {}, depth + 1) };
    case 'Object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(() => random() < 0.8)
          .map(([k, v]) => [k, validFor(v, depth + 1)]),
      );
    default:
      return jsonValue(3);
  }
}

/** A body shaped like the route's schema, then some fields dropped or replaced by something else. */
function bodyFor(route: RouteEntry): unknown {
  const shaped = route.body ? validFor(route.body as Schema) : jsonValue(1);
  if (shaped === null || typeof shaped !== 'object' || Array.isArray(shaped)) return shaped;
  const body = shaped as Record<string, unknown>;
  for (const name of Object.keys(body)) {
    const roll = random();
    if (roll < 0.15) delete body[name];
    else if (roll < 0.25) body[name] = jsonValue(1);
  }
  if (random() < 0.1) body[pick(STRINGS)] = jsonValue(1);
  return body;
}

function rawBody(route: RouteEntry): { raw?: string | Buffer; body?: unknown; contentType?: string } {
  const roll = random();
  if (roll < 0.55) return { body: bodyFor(route) };
  if (roll < 0.7) return { body: jsonValue(0) };
  if (roll < 0.8) return { raw: JSON.stringify(bodyFor(route)).slice(0, int(40)), contentType: 'application/json' };
  if (roll < 0.9)
    return {
      raw: Buffer.from(Array.from({ length: int(64) }, () => int(256))),
      contentType: pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/vnd.api+json']),
    };
  return { raw: `{"a":${'['.repeat(int(3000))}` };
}

function pathFor(route: RouteEntry): string {
  return route.url.replace(/:(\w+)/g, (_m, name: string) => {
    if (random() < 0.5) return encodeURIComponent(name === 'version' ? String(pick([1, 2, 0, -1, 99])) : pick(['p', 'exp_ab', 'production', 'welcome']));
    return encodeURIComponent(pick(STRINGS)) || 'x';
  });
}

function queryFor(route: RouteEntry): string {
  const properties = (route.query as Schema | undefined)?.properties ?? {};
  const parts = [...Object.keys(properties), 'junk']
    .filter(() => random() < 0.4)
    .map((n) => `${encodeURIComponent(n)}=${encodeURIComponent(String(random() < 0.6 && properties[n] ? validFor(properties[n]) : jsonValue(3)))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

let t: TestApp;
let keys: Array<string | null>;
beforeAll(async () => {
  t = await startTestApp();
  await givenPrompt(t, { template: 'Hi {{name}} {{#items}}{{.}}{{/items}}', versions: ['Hello {{name}}'] });
  await givenExperiment(t, {
    experiment_id: 'exp_ab',
    variants: { control: 1, b: 1 },
  });
  keys = [undefined as unknown as null, undefined as unknown as null, await t.keyFor('runtime'), await t.keyFor('read'), null, 'pl_a_wrong', ''];
});
afterAll(async () => t.cleanup());

describe(`fuzzing every route (seed ${SEED})`, () => {
  it('never answers 5xx, and always in the documented shape', async () => {
    const routes = routeTable(t.app);
    expect(routes.length).toBeGreaterThan(20);
    const failures: string[] = [];
    const reachedHandler = new Set<string>();
    let sent = 0;
    for (const [r, route] of routes.entries()) {
      for (let i = 0; i < REQUESTS_PER_ROUTE; i++) {
        const url = `${pathFor(route)}${queryFor(route)}`;
        const payload = route.body || random() < 0.1 ? rawBody(route) : {};
        const res = await t.request(route.method as string, url, {
          key: pick(keys),
          // One address per request: the throttle of invalid keys per address is not what is fuzzed here.
          from: `198.18.${r}.${i}`,
          ...payload,
          ...(payload.contentType ? { headers: { 'content-type': payload.contentType } } : {}),
        });
        sent++;
        if (res.status < 300) reachedHandler.add(`${route.method} ${route.url}`);
        const type = String(res.headers['content-type'] ?? '');
        const shaped = res.status === 204 || res.status === 307 || type === 'application/json' || type.startsWith('text/csv');
        if (res.status >= 500 || !shaped) failures.push(`${route.method} ${url} → ${res.status} ${type} ${res.text.slice(0, 200)}`);
      }
    }
    expect(sent).toBeGreaterThan(2000);
    expect(failures).toEqual([]);
    // The generator gets past validation and authentication, not only bounced at the door.
    expect(reachedHandler.size).toBeGreaterThan(routes.length / 3);
  });

  it('leaves the server healthy', async () => {
    expect((await t.request('GET', '/healthz', { key: null })).status).toBe(200);
    expect((await t.request('GET', '/readyz', { key: null })).status).toBe(200);
    await t.request('POST', '/prompts', { body: { prompt_id: 'after-fuzz', template: 'Hi {{name}}' } });
    const res = await t.request('POST', '/get_prompt', { body: { prompt_id: 'after-fuzz', inputs: { name: 'A' } } });
    expect(res.json.prompt_text).toBe('Hi A');
  });
});
