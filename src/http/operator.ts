import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from './access.js';

/** The headers of the CLI's in-process requests (src/cli/api/local.ts): its token and the project it acts on. */
export const OPERATOR_TOKEN_HEADER = 'x-promptline-operator';
export const OPERATOR_PROJECT_HEADER = 'x-promptline-project';

/**
 * The CLI on the local database calls the same app in-process (`app.inject`) as the operator of
 * the database, who needs no key there: whoever can open the database file owns it anyway. Only an
 * app built for the CLI has this caller (app.ts, `operatorToken`), and that app never listens; the
 * server has none, so the headers mean nothing to it. The token is random per process all the same,
 * so that nothing but the CLI's own client can use it even in-process. Its changes are the CLI's
 * (keyId null and the name app.ts gives: CLI_ACTOR's); it is an admin without a rate limit.
 */
export function operatorCaller(token: string, actorName: string): (req: FastifyRequest) => AuthContext | null {
  const expected = Buffer.from(token);
  return (req) => {
    const sent = req.headers[OPERATOR_TOKEN_HEADER];
    const projectId = req.headers[OPERATOR_PROJECT_HEADER];
    if (typeof sent !== 'string' || typeof projectId !== 'string') return null;
    const given = Buffer.from(sent);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return { keyId: null, keyName: actorName, projectId, role: 'admin', rateLimitPerMinute: 0 };
  };
}

const thrown = new WeakMap<object, unknown>();

/**
 * Keeps the error each failed request of the CLI's app threw, by its response, so that the CLI on the
 * local database reports it as it always has (a domain error's own words: `body.reason: an override
 * needs a reason`, where the API's 422 says `Field required`), and an unexpected one with its message
 * rather than a bare 500.
 */
export function keepThrownErrors(app: FastifyInstance): void {
  app.addHook('onError', (_req, reply, error, done) => {
    thrown.set(reply.raw, error);
    done();
  });
}

/** The error the request behind this response threw, if it threw one (`response.raw.res` of an inject). */
export function thrownBy(rawResponse: object): unknown {
  return thrown.get(rawResponse);
}
