import type { FastifyInstance } from 'fastify';

/** Query parameters whose values are secrets by name. */
const SECRET_NAME = /key|token|secret|passw|auth|sig|credential|session/i;
/** Values shaped like a credential whatever their name: Promptline keys, common provider key prefixes, JWTs. */
const SECRET_VALUE = /^(pl_[a-z]_|sk-|sk_|gsk_|AIza|ghp_|xox[abp]-|eyJ|Bearer\s)/;

/**
 * The URL as logged: path as is, query values that look like secrets replaced. A client that puts
 * its API key in the query string (never needed: keys go in X-API-Key) must not get it into logs.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      const name = pair.slice(0, eq);
      let value: string;
      try {
        value = decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' '));
      } catch {
        value = pair.slice(eq + 1);
      }
      return SECRET_NAME.test(name) || SECRET_VALUE.test(value) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

/** One compact line per answered request (Fastify's own two lines are turned off). */
export function installAccessLog(app: FastifyInstance): void {
  app.addHook('onResponse', (req, reply, done) => {
    req.log.info({ method: req.method, url: redactUrl(req.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
    done();
  });
}
