import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendDetail } from './send.js';
import { clearedSessionCookie, ownOrigin } from './sessionCookie.js';

/**
 * The key decision the edge acts on, declared here by the edge that consumes it so that `http`
 * imports no module: keys/access.ts makes it, app.ts hands it over, and the compiler checks there
 * that the two agree (a role or a refusal the edge does not know of fails to compile).
 */
export type Role = 'runtime' | 'read' | 'admin';

export interface AuthContext {
  /** null: the CLI's own in-process caller, which uses no key (operator.ts); its changes are the CLI's. */
  readonly keyId: string | null;
  readonly keyName: string;
  readonly projectId: string;
  readonly role: Role;
  readonly rateLimitPerMinute: number | null;
}

/** The console session that authenticated a request (docs/console.md, "Signing in"). */
export interface SessionContext {
  readonly sessionId: string;
  readonly expiresAt: string;
}

export type AccessDecision =
  | { ok: true; auth: AuthContext; session?: SessionContext }
  | { ok: false; reason: 'invalid_key' }
  | { ok: false; reason: 'invalid_session' }
  | { ok: false; reason: 'address_throttled'; retryAfterSeconds: number }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number; limitPerMinute: number };

/** Decides whether a request's key may proceed (keys/access.ts); the route layer only answers. */
export interface AccessCheck {
  check(apiKey: string, clientAddress: string): AccessDecision | Promise<AccessDecision>;
  /** The same decision for a console session's token (its cookie), made through the session's key. */
  checkSession(token: string, clientAddress: string): AccessDecision | Promise<AccessDecision>;
  /** Only in the CLI's in-process app: its keyless caller, recognised before any key (operator.ts). */
  operator?: (req: FastifyRequest) => AuthContext | null;
}

/** Answers a refused key or session: 401, or 429 with its Retry-After. */
export function denied(req: FastifyRequest, reply: FastifyReply, decision: Exclude<AccessDecision, { ok: true }>): void {
  if (decision.reason === 'invalid_key') {
    sendDetail(reply, 401, 'Invalid API key');
    return;
  }
  if (decision.reason === 'invalid_session') {
    // The browser can drop a cookie that no longer opens anything.
    reply.header('set-cookie', clearedSessionCookie(req));
    sendDetail(reply, 401, 'Session expired or ended: sign in again');
    return;
  }
  reply.header('retry-after', String(decision.retryAfterSeconds));
  sendDetail(
    reply,
    429,
    decision.reason === 'rate_limited'
      ? `Rate limit exceeded: ${decision.limitPerMinute} requests per minute for this API key`
      : `Too many invalid API keys from this address: try again in ${decision.retryAfterSeconds} s`,
  );
}
/** Methods a browser may send from any page (a link, an image): the only ones a session cookie alone may authenticate without an Origin check. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);
const CROSS_SITE =
  "Cross-site request refused: a request authenticated by the session cookie that changes something must carry this server's Origin header (send X-API-Key instead from scripts)";

/**
 * A write authenticated by the session cookie alone must come from this server's own pages: their
 * Origin (beside SameSite=Strict, the guard against cross-site request forgery). Answers 403 and
 * says true when it does not.
 */
export function crossSiteRefused(req: FastifyRequest, reply: FastifyReply): boolean {
  if (SAFE_METHODS.has(req.method) || req.headers.origin === ownOrigin(req)) return false;
  sendDetail(reply, 403, CROSS_SITE);
  return true;
}
