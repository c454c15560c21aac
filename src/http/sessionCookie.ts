import type { FastifyRequest } from 'fastify';

/**
 * The console's session cookie (docs/console.md, "Signing in"). HttpOnly: no script, ours or an
 * injected one, can read it; SameSite=Strict: no other site's page can make the browser send it;
 * Path=/: the API's routes are at the root. Secure whenever the request came over https, as Fastify
 * knows it (`req.protocol`: the socket, or X-Forwarded-Proto from a proxy PROMPTLINE_TRUST_PROXY trusts);
 * over plain http (a local server) a Secure cookie would never be sent back, so it is left off there.
 */
export const SESSION_COOKIE = 'promptline_session';

/** The session token in the request's Cookie header, if any (the first one of that name, as browsers send the most specific first). */
export function sessionTokenOf(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

function attributes(req: FastifyRequest, maxAgeSeconds: number): string {
  return `Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${req.protocol === 'https' ? '; Secure' : ''}`;
}

/** The Set-Cookie value that hands the browser its session token for `maxAgeSeconds`. */
export function sessionCookie(req: FastifyRequest, token: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; ${attributes(req, Math.max(0, Math.floor(maxAgeSeconds)))}`;
}

/** The Set-Cookie value that makes the browser drop its session cookie. */
export function clearedSessionCookie(req: FastifyRequest): string {
  return `${SESSION_COOKIE}=; ${attributes(req, 0)}`;
}

/**
 * The server's own origin as the browser names it: the scheme and host the request came to
 * (through a trusted proxy, the ones it says it was sent to). A cookie-authenticated write must
 * carry exactly this Origin: the guard against cross-site request forgery beside SameSite=Strict.
 */
export function ownOrigin(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`;
}
