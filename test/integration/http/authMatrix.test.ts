import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, type RouteEntry } from '../../../src/http/route.js';
import type { Role } from '../../../src/modules/keys/access.js';
import { startTestApp, type TestApp } from '../../support/harness.js';
import { givenRouteFixtures } from '../../support/routeFixtures.js';
import { validSample } from '../../support/validSample.js';

// The security cases of every route, generated from the route table that registerRoute keeps:
// a new route is covered here without writing anything. Each request is otherwise valid, so what
// answers is the key check: no key → 422 (the header item), a bad key → 401, a role below the
// route's → 403, and an id of another project → 404, exactly like an id that does not exist.
let t: TestApp;
let fixtures: Record<string, unknown>;

beforeAll(async () => {
  t = await startTestApp();
  fixtures = await givenRouteFixtures(t);
});
afterAll(async () => t.cleanup());

const routes = () => routeTable(t.app);
/** The results routes: computed in a worker thread, they must hide other projects' experiments too. */
const isResults = (route: RouteEntry) => /\/results(\/|$)/.test(route.url);
const LOWER: Record<Role, Role | null> = { runtime: null, read: 'runtime', admin: 'read' };

function requestFor(route: RouteEntry): { method: string; url: string; body?: unknown } {
  const url = route.url.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(String(fixtures[name])));
  if (!route.body || route.bodyOptional) return { method: route.method as string, url };
  return { method: route.method as string, url, body: validSample(route.body, { ...fixtures, inputs: { name: 'A' } }) };
}

describe('every route checks its key', () => {
  it('covers every registered route', () => {
    expect(routes().length).toBeGreaterThanOrEqual(25);
  });

  it('no key → 422 with the header item first', async () => {
    for (const route of routes()) {
      const { method, url, body } = requestFor(route);
      const res = await t.request(method, url, { key: null, body });
      expect([route.url, res.status]).toEqual([route.url, 422]);
      expect(res.json.detail[0]).toEqual({ type: 'missing', loc: ['header', 'x-api-key'], msg: 'Field required', input: null });
    }
  });

  it('an unknown key → 401', async () => {
    for (const [i, route] of routes().entries()) {
      const { method, url, body } = requestFor(route);
      // One address per route, so the throttle of invalid keys per address stays out of the way.
      const res = await t.request(method, url, { key: 'pl_a_not-a-key', body, from: `198.18.0.${i}` });
      expect([route.url, res.status, res.json]).toEqual([route.url, 401, { detail: 'Invalid API key' }]);
    }
  });

  it('a key of a lower role → 403', async () => {
    for (const route of routes()) {
      const lower = LOWER[route.role];
      if (lower === null) continue;
      const { method, url, body } = requestFor(route);
      const res = await t.request(method, url, { key: await t.keyFor(lower), body });
      expect([`${route.method} ${route.url}`, res.status, res.json]).toEqual([`${route.method} ${route.url}`, 403, { detail: 'Not allowed for this API key' }]);
    }
  });

  /**
   * Routes that name something: by path, or by the body's prompt_id (the runtime endpoints). The SDK's
   * routes name nothing of that kind: the bundle is the key's own project's, and a report naming
   * another project's experiment skips it as unknown (test/integration/sdk/exposures.test.ts).
   */
  const namesPrompt = (route: RouteEntry) => route.body !== undefined && 'prompt_id' in ((route.body as { properties?: object }).properties ?? {});
  const namingRoutes = () => routes().filter((route) => route.url.includes(':') || (route.role === 'runtime' && namesPrompt(route)));

  async function expectNotFoundForOtherProject(named: RouteEntry[]): Promise<void> {
    const other = await t.keyFor('admin', 'other');
    for (const route of named) {
      const { method, url, body } = requestFor(route);
      const res = await t.request(method, url, { key: other, body });
      expect([`${route.method} ${route.url}`, res.status]).toEqual([`${route.method} ${route.url}`, 404]);
    }
  }

  it("another project's ids → 404, as if they did not exist", async () => {
    await expectNotFoundForOtherProject(namingRoutes());
    expect(namingRoutes().length).toBeGreaterThanOrEqual(15);
    expect(namingRoutes().some(isResults)).toBe(true);
  });
});

/**
 * The console's session cookie (docs/console.md, "Signing in") on every route: it stands for its key
 * on read and admin routes only (never the runtime ones, nor POST /session itself), and a request it
 * authenticates that is not a GET or HEAD must carry the server's own Origin.
 */
describe("every route checks the console's session cookie", () => {
  const ORIGIN = 'http://localhost:80';
  async function sessionCookie(key: string): Promise<string> {
    const res = await t.request('POST', '/session', { key });
    expect(res.status).toBe(201);
    return (res.headers['set-cookie'] as string).split(';')[0]!;
  }
  const withSession = (route: RouteEntry, cookie: string, origin: string | null) => {
    const { method, url, body } = requestFor(route);
    return t.request(method, url, { key: null, body, headers: { cookie, ...(origin === null ? {} : { origin }) } });
  };

  it("runtime routes (but the playground's two) and POST /session ignore it: 422 for the missing X-API-Key", async () => {
    const cookie = await sessionCookie(await t.keyFor('admin'));
    const ignoring = routes().filter((route) => !route.session);
    expect(ignoring.filter((route) => route.role !== 'runtime').map((route) => `${route.method} ${route.url}`)).toEqual(['POST /session']);
    const runtimeAccepting = routes().filter((route) => route.session && route.role === 'runtime');
    expect(runtimeAccepting.map((route) => `${route.method} ${route.url}`).sort()).toEqual(['POST /get_prompt', 'POST /run_prompt']);
    for (const route of ignoring) {
      const res = await withSession(route, cookie, ORIGIN);
      expect([route.url, res.status, res.json.detail[0]]).toEqual([
        route.url,
        422,
        { type: 'missing', loc: ['header', 'x-api-key'], msg: 'Field required', input: null },
      ]);
    }
  });

  it('a write without the Origin header → 403, whatever the role', async () => {
    const cookie = await sessionCookie(await t.keyFor('admin'));
    for (const route of routes().filter((r) => r.session && r.method !== 'GET' && r.method !== 'HEAD')) {
      const res = await withSession(route, cookie, null);
      expect([`${route.method} ${route.url}`, res.status]).toEqual([`${route.method} ${route.url}`, 403]);
    }
  });

  it("a read key's session → 403 on admin routes", async () => {
    const cookie = await sessionCookie(await t.keyFor('read'));
    for (const route of routes().filter((r) => r.session && r.role === 'admin')) {
      const res = await withSession(route, cookie, ORIGIN);
      expect([`${route.method} ${route.url}`, res.status, res.json]).toEqual([`${route.method} ${route.url}`, 403, { detail: 'Not allowed for this API key' }]);
    }
  });

  it("another project's session → 404 for its ids, as its key gets", async () => {
    const cookie = await sessionCookie(await t.keyFor('admin', 'other'));
    for (const route of routes().filter((r) => r.session && r.url.includes(':'))) {
      const res = await withSession(route, cookie, ORIGIN);
      expect([`${route.method} ${route.url}`, res.status]).toEqual([`${route.method} ${route.url}`, 404]);
    }
  });
});
