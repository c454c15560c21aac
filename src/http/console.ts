import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The web console: the static files `npm run build` makes from web/ (dist/web), under /ui/. Every
 * console answer carries a strict Content-Security-Policy: only files this server serves may run
 * or load, nothing inline, no framing; what users wrote (templates, outputs) is rendered as text
 * by React, and the policy is the second line of defence if it ever were not.
 */
const CONSOLE_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  // The same URL is sent brotli, gzip or as it is, by what the browser accepts: caches must tell them apart.
  vary: 'accept-encoding',
};

/** dist/web at the package root, whether this runs from src/ (tests) or dist/src/ (the build). */
function consoleRoot(): string {
  let dir = import.meta.dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'web');
}

export async function registerConsole(app: FastifyInstance): Promise<void> {
  const root = consoleRoot();
  const built = fs.existsSync(path.join(root, 'index.html'));
  const redirect = (_req: unknown, reply: FastifyReply) => reply.code(302).header('location', '/ui/').send();
  // GET / leads a browser to the console; any other method on `/` stays FastAPI's 404, as the contract has it.
  app.get('/', { schema: { hide: true }, config: { browserRedirect: true } }, redirect);
  app.get('/ui', { schema: { hide: true } }, redirect);
  if (!built) {
    app.log.warn({ root }, 'the web console is not built (npm run build): /ui/ answers 503');
    app.get('/ui/*', { schema: { hide: true } }, (_req, reply) => reply.code(503).type('text/plain').send('The web console is not built: run npm run build\n'));
    return;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/ui/',
    // One route per built file (a fixed set), so the catch-all below serves the pages' URLs.
    wildcard: false,
    index: ['index.html'],
    // Brotli or gzip copies made once by the build at their highest levels (scripts/build.mjs), sent
    // to browsers that accept them, with Vary: Accept-Encoding. Chosen over @fastify/compress: the
    // files never change after the build, so compressing on each request would only cost CPU for a
    // worse ratio, and this needs no dependency beyond @fastify/static.
    preCompressed: true,
    cacheControl: false,
    setHeaders(res, filePath) {
      for (const [name, value] of Object.entries(CONSOLE_HEADERS)) res.setHeader(name, value);
      // Assets have a content hash in their names; index.html must be asked for again to find new ones.
      res.setHeader('cache-control', filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  // Every console URL (/ui/prompts/…, /ui/experiments/…) is the same page; the browser routes.
  // A missing asset stays a 404: answering a script request with the page would only hide the problem.
  app.get('/ui/*', { schema: { hide: true } }, (req, reply) =>
    req.url.startsWith('/ui/assets/') ? reply.callNotFound() : reply.headers(CONSOLE_HEADERS).header('cache-control', 'no-cache').sendFile('index.html'),
  );
}
