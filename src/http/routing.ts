import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendDetail } from './send.js';

interface KnownPath {
  pattern: RegExp;
  methods: Set<string>;
}

/** `/prompts/:prompt_id/versions` → a regex matching one concrete path of that shape. */
function patternFor(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

/** Starlette's redirect target: repeated slashes folded, trailing slash toggled off. */
function canonicalPath(path: string): string {
  const folded = path.replace(/\/{2,}/g, '/');
  return folded.length > 1 && folded.endsWith('/') ? folded.slice(0, -1) : folded;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route only browsers follow (GET / to the console), kept out of the API's paths so that
     * other methods on it stay FastAPI's 404 rather than becoming a 405.
     */
    browserRedirect?: boolean;
  }
}

/**
 * FastAPI's routing answers (docs/runtime-contract.md, "The order of checks", step 1), decided before anything else about the request:
 * a known path with a wrong method is 405 with `allow`, a near-miss path is a 307 to the canonical
 * one (query kept), anything else 404.
 */
export function installRoutingAnswers(app: FastifyInstance): void {
  const known = new Map<string, KnownPath>();
  app.addHook('onRoute', (route) => {
    if (route.config?.browserRedirect === true) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const entry = known.get(route.url) ?? { pattern: patternFor(route.url), methods: new Set<string>() };
    for (const method of methods) entry.methods.add(method);
    known.set(route.url, entry);
  });

  const methodsFor = (path: string): Set<string> | null => {
    for (const entry of known.values()) if (entry.pattern.test(path)) return entry.methods;
    return null;
  };

  const answer = (req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const [path = '/', query] = splitUrl(req.url);
    const methods = methodsFor(path);
    if (methods !== null) {
      const allowed = [...methods].filter((m) => m !== 'HEAD' || !methods.has('GET')).sort();
      reply.header('allow', allowed.join(', '));
      if (req.method === 'HEAD') return reply.code(405).header('content-type', 'application/json').send();
      return sendDetail(reply, 405, 'Method Not Allowed');
    }
    const canonical = canonicalPath(path);
    if (canonical !== path && methodsFor(canonical) !== null) {
      return reply
        .code(307)
        .header('location', query ? `${canonical}?${query}` : canonical)
        .removeHeader('content-type')
        .send();
    }
    if (req.method === 'HEAD') return reply.code(404).header('content-type', 'application/json').send();
    return sendDetail(reply, 404, 'Not Found');
  };

  // Answered in onRequest, before the body is read: a huge body to an unknown path is still a 404.
  // A callback hook, not an async one: every request passes here, and most go straight on.
  app.addHook('onRequest', (req, reply, done) => {
    if (req.is404) answer(req, reply);
    else done();
  });
  app.setNotFoundHandler(answer);
}

function splitUrl(url: string): [string, string | undefined] {
  const q = url.indexOf('?');
  return q === -1 ? [url, undefined] : [url.slice(0, q), url.slice(q + 1)];
}
