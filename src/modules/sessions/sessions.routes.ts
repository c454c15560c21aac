import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AUTH_ERRORS } from '../../http/commonSchemas.js';
import { registerRoute, type AccessCheck } from '../../http/route.js';
import { clearedSessionCookie, sessionCookie } from '../../http/sessionCookie.js';
import type { AuthContext } from '../../http/access.js';
import { Conflict } from '../../lib/errors.js';
import { WhoAmISchema } from './sessions.schemas.js';
import { SESSION_LIFETIME_HOURS, type SessionService } from './sessions.service.js';

type KeyAuth = Parameters<SessionService['create']>[0];

/** A session is a key's: the CLI's in-process caller (no key: http/operator.ts) has none to start or show. */
function keyed(auth: AuthContext): KeyAuth {
  if (auth.keyId === null) throw new Conflict('A console session needs an API key');
  return { ...auth, keyId: auth.keyId };
}

/** The console's sign-in (docs/console.md, "Signing in"; docs/management-api.md, "Sessions (the console's sign-in)"). */
export function registerSessionRoutes(app: FastifyInstance, access: AccessCheck, sessions: SessionService): void {
  registerRoute(app, access, {
    method: 'POST',
    url: '/session',
    operationId: 'createSession',
    summary: 'Sign in: exchange the X-API-Key for a session cookie (the console)',
    description:
      `Starts a console session for the read or admin key in X-API-Key and sets it as an HttpOnly, SameSite=Strict cookie (Secure over https). ` +
      `The session lasts ${SESSION_LIFETIME_HOURS} hours, never beyond the key's expiry, and ends when the key is revoked or expires. ` +
      'Only X-API-Key can start one: a session cannot start another.',
    tags: ['sessions'],
    role: 'read',
    session: false,
    strict: true,
    response: { 201: WhoAmISchema, ...AUTH_ERRORS },
    handler: async ({ auth, req }) => {
      const created = await sessions.create(keyed(auth));
      return {
        status: 201,
        body: created.whoAmI,
        headers: { 'set-cookie': sessionCookie(req, created.token, created.maxAgeSeconds), 'cache-control': 'no-store' },
      };
    },
  });

  registerRoute(app, access, {
    method: 'GET',
    url: '/session',
    operationId: 'getSession',
    summary: 'Who this request is signed in as (role, key, project, expiry)',
    description:
      'Says which key the request is authenticated as, by the session cookie or by X-API-Key: its role, name and prefix, the project, and when it stops working. The console asks it on load.',
    tags: ['sessions'],
    role: 'read',
    strict: true,
    response: { 200: WhoAmISchema, ...AUTH_ERRORS },
    handler: async ({ auth, session }) => ({ status: 200, body: await sessions.whoAmI(keyed(auth), session), headers: { 'cache-control': 'no-store' } }),
  });

  registerRoute(app, access, {
    method: 'DELETE',
    url: '/session',
    operationId: 'deleteSession',
    summary: 'Sign out: end the session server-side and clear its cookie',
    description:
      'Ends the session that authenticated the request (its cookie stops working at once, on every replica) and tells the browser to drop the cookie. With X-API-Key there is no session to end: the cookie is cleared all the same.',
    tags: ['sessions'],
    role: 'read',
    strict: true,
    response: { 204: Type.Null(), ...AUTH_ERRORS },
    handler: async ({ auth, session, req }) => {
      if (session !== null) await sessions.end(auth.projectId, session);
      return { status: 204, headers: { 'set-cookie': clearedSessionCookie(req) } };
    },
  });
}
