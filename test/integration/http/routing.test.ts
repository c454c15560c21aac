import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, type RouteEntry } from '../../../src/http/route.js';
import { startTestApp, type TestApp } from '../../support/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.cleanup());

describe('routing answers (runtime contract, order of checks, step 1)', () => {
  it.each([
    ['POST', '/nope', 404, '{"detail":"Not Found"}'],
    ['GET', '/get_prompt', 405, '{"detail":"Method Not Allowed"}'],
    ['PUT', '/track_outcome', 405, '{"detail":"Method Not Allowed"}'],
    ['DELETE', '/run_prompt', 405, '{"detail":"Method Not Allowed"}'],
    ['HEAD', '/run_prompt', 405, ''],
  ])('%s %s → %i', async (method, url, status, body) => {
    const res = await t.request(method, url, { key: null });
    expect(res.status).toBe(status);
    expect(res.text).toBe(body);
    if (status === 405) expect(res.headers.allow).toBe('POST');
    if (body) expect(res.headers['content-type']).toBe('application/json');
  });

  it('lists every method a path allows', async () => {
    const res = await t.request('PATCH', '/prompts');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, POST');
  });

  it.each([
    ['/get_prompt/', '/get_prompt'],
    ['//get_prompt', '/get_prompt'],
    ['/track_outcome/?a=1&b=2', '/track_outcome?a=1&b=2'],
    ['/prompts/greet/', '/prompts/greet'],
  ])('redirects %s to %s with 307 and an empty body', async (url, location) => {
    const res = await t.request('POST', url, { key: null, body: { prompt_id: 1 } });
    expect(res.status).toBe(307);
    expect(res.headers.location).toBe(location);
    expect(res.text).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
  });

  it('routes before checking the key or the body', async () => {
    expect((await t.request('GET', '/run_prompt', { key: 'bad', raw: '{bad' })).status).toBe(405);
    expect((await t.request('POST', '/missing', { key: 'bad', raw: '{bad' })).status).toBe(404);
  });
});

describe('operations', () => {
  it('serves /healthz and /readyz without a key', async () => {
    expect((await t.request('GET', '/healthz', { key: null })).text).toBe('{"status":"ok"}');
    const ready = await t.request('GET', '/readyz', { key: null });
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ready' });
  });

  it('answers 413 for a body over the limit and stores nothing', async () => {
    const before = await t.store.sql.value('SELECT count(*) FROM outcomes');
    const res = await t.request('POST', '/track_outcome', {
      raw: JSON.stringify({ prompt_id: 'x', value: 'a'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.text).toBe('{"detail":"Request body too large"}');
    expect(await t.store.sql.value('SELECT count(*) FROM outcomes')).toBe(before);
  });
});

type Operation = Record<string, any>;

/** Every operation of an OpenAPI document, as [path, method, operation]. */
function operations(doc: { paths: Record<string, Record<string, Operation>> }): Array<[string, string, Operation]> {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]): [string, string, Operation] => [path, method, op]));
}

describe('OpenAPI and docs', () => {
  it("documents every route with FastAPI's error schemas", async () => {
    const res = await t.request('GET', '/openapi.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    const doc = res.json;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
    expect(JSON.stringify(doc.components.schemas.HTTPValidationError)).toBe(
      '{"properties":{"detail":{"items":{"$ref":"#/components/schemas/ValidationError"},"type":"array","title":"Detail"}},"type":"object","title":"HTTPValidationError"}',
    );
    expect(JSON.stringify(doc.components.schemas.ValidationError)).toBe(
      '{"properties":{"loc":{"items":{"anyOf":[{"type":"string"},{"type":"integer"}]},"type":"array","title":"Location"},"msg":{"type":"string","title":"Message"},"type":{"type":"string","title":"Error Type"}},"type":"object","required":["loc","msg","type"],"title":"ValidationError"}',
    );
    for (const path of ['/run_prompt', '/get_prompt', '/track_outcome']) {
      const op = doc.paths[path].post;
      expect(op.security).toEqual([{ apiKey: [] }]);
      expect(op.requestBody.content['application/json'].schema).toBeTypeOf('object');
      // A real example, so "Try it out" starts from a request that works.
      expect(op.requestBody.content['application/json'].example.prompt_id).toBe('welcome');
      expect(op.responses['200']).toBeDefined();
      expect(op.responses['422'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/HTTPValidationError' });
    }
    for (const path of [
      '/prompts',
      '/prompts/{prompt_id}',
      '/prompts/{prompt_id}/versions',
      '/keys',
      '/keys/{key_id}',
      '/runs',
      '/runs/{run_id}',
      '/outcomes',
      '/healthz',
      '/readyz',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });

  it('models the key once: the X-API-Key security scheme, never also a header parameter', async () => {
    const doc = (await t.request('GET', '/openapi.json', { key: null })).json;
    expect(doc.components.securitySchemes).toEqual({
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      sessionCookie: { type: 'apiKey', in: 'cookie', name: 'promptline_session' },
    });
    expect(doc.security).toEqual([{ apiKey: [] }]);
    // Which operations check a key (and which also take the console's session cookie) is the route
    // table's to say (registerRoute checks it); the document must say the same of each, explicitly,
    // so no operation leans on the default above.
    const opName = (route: RouteEntry) => `${route.method.toLowerCase()} ${route.url.replace(/:(\w+)/g, '{$1}')}`;
    const keyed = new Set(routeTable(t.app).map(opName));
    // The playground's runtime routes take the cookie too, but the runtime contract documents the key only.
    const withSession = new Set(
      routeTable(t.app)
        .filter((route) => route.session && route.role !== 'runtime')
        .map(opName),
    );
    const open: string[] = [];
    for (const [path, method, op] of operations(doc)) {
      const name = `${method} ${path}`;
      expect(op.security, name).toEqual(withSession.has(name) ? [{ apiKey: [] }, { sessionCookie: [] }] : keyed.has(name) ? [{ apiKey: [] }] : []);
      if (!keyed.has(name)) open.push(name);
      // A header parameter for the key would make Swagger UI send it twice (`KEY, KEY`: a 401 after
      // "Authorize") and generated clients ask for it on every call.
      expect(
        (op.parameters ?? []).filter((p: { in: string }) => p.in === 'header'),
        name,
      ).toEqual([]);
      // Any operation needing a key answers 422 without one, even when it takes no other input.
      if (keyed.has(name))
        expect(op.responses['422'], name).toEqual({
          description: 'Validation Error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } } },
        });
    }
    expect(keyed.size).toBeGreaterThan(25);
    expect(open.sort()).toEqual(['get /healthz', 'get /openapi.json', 'get /readyz', 'get /schemas/prompt-file.json']);
    // And they do answer without a key.
    for (const name of open) expect((await t.request('GET', name.split(' ')[1]!, { key: null })).status, name).toBe(200);
  });

  it('names and describes every operation: a unique camelCase operationId, a summary and a description', async () => {
    const doc = (await t.request('GET', '/openapi.json', { key: null })).json;
    const ids: string[] = [];
    for (const [path, method, op] of operations(doc)) {
      const name = `${method} ${path}`;
      expect(op.operationId, name).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(op.summary, name).toMatch(/\S/);
      // What it does, then the role it needs (added by registerRoute from the role it checks).
      expect(op.description, name).toMatch(
        /^\S.*\. (Any key may call it \(runtime, read or admin\)|Needs a read or admin key|Needs an admin key|No key needed)\.$/s,
      );
      ids.push(op.operationId);
    }
    expect(ids.length).toBeGreaterThan(30);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const byPath = (path: string) => doc.paths[path].post.operationId;
    expect([byPath('/get_prompt'), byPath('/run_prompt'), byPath('/track_outcome')]).toEqual(['getPrompt', 'runPrompt', 'trackOutcome']);
  });

  it('serves /docs with local assets (no CDN)', async () => {
    const page = await t.request('GET', '/docs/', { key: null });
    const html = page.status === 200 ? page.text : (await t.request('GET', '/docs/static/index.html', { key: null })).text;
    expect(html).toContain('swagger-ui');
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg)/);
    expect(html).toContain('<title>Promptline API</title>');
    const bundle = await t.request('GET', '/docs/static/swagger-ui-bundle.js', { key: null });
    expect(bundle.status).toBe(200);
  });
});
