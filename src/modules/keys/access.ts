import type { Static } from '@sinclair/typebox';
import { addressGroup } from '../../lib/clientAddress.js';
import { TokenBuckets } from '../../lib/tokenBuckets.js';
import type { RoleSchema } from './keys.schemas.js';

export type Role = Static<typeof RoleSchema>;

export interface AuthContext {
  readonly keyId: string;
  /** The key's name, for the audit log (the cache is dropped when a key is renamed). */
  readonly keyName: string;
  readonly projectId: string;
  readonly role: Role;
  /** The key's own limit; null follows the server default. */
  readonly rateLimitPerMinute: number | null;
}

/** What the access check needs of the key store: a full check, and a memory-only one. */
export interface KeyAuthenticator {
  authenticate(apiKey: string): Promise<AuthContext | null>;
  authenticateCached(apiKey: string): AuthContext | null;
}

/** The console session behind a request authenticated by its cookie. */
export interface SessionContext {
  readonly sessionId: string;
  /** When the session ends on its own (never after its key's expiry). */
  readonly expiresAt: string;
}

/**
 * What the access check needs of console sessions: the session a token names, with its key's
 * authority read from storage on every call (so a revoked or expired key ends its sessions on
 * their next request), or null when the token opens nothing.
 */
export interface SessionAuthenticator {
  authenticate(token: string): Promise<{ auth: AuthContext; session: SessionContext } | null>;
}

export type AccessDecision =
  | { ok: true; auth: AuthContext; session?: SessionContext }
  | { ok: false; reason: 'invalid_key' }
  | { ok: false; reason: 'invalid_session' }
  | { ok: false; reason: 'address_throttled'; retryAfterSeconds: number }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number; limitPerMinute: number };

export interface AccessLimits {
  /** Requests per minute of a key with no limit of its own; 0: unlimited. */
  rateLimitPerMinute: number;
  /** Invalid keys per client address per minute before that address is refused; 0: never. */
  authFailuresPerMinute: number;
}

/** Address throttles kept at most; past it, idle ones go first (TokenBuckets). */
const MAX_TRACKED_ADDRESSES = 100_000;

/**
 * Who may make a request, decided before any work: the key (401), the key's request budget (429),
 * and, against key guessing, the client address's budget of failed keys (429). The key is checked
 * first (a memory lookup once seen, else its hash and one indexed read), so a valid key is never
 * refused by the address's budget: one guesser behind a shared proxy cannot lock out the
 * applications behind it, however often caches are dropped. Only invalid keys count against the
 * address, and past its budget they get 429 instead of 401. A guesser learns nothing it could use
 * from that: keys carry 256 random bits. Budgets are per process (docs/configuration.md, "Limits", says so): N replicas
 * allow up to N times the limit.
 */
export function createAccessControl(keys: KeyAuthenticator, limits: AccessLimits, sessions: SessionAuthenticator, now: () => number = () => performance.now()) {
  const requests = new TokenBuckets(Number.MAX_SAFE_INTEGER);
  const failures = new TokenBuckets(MAX_TRACKED_ADDRESSES);

  /** A key not in memory: looked up; an invalid one spends the client address's budget of failures. */
  async function firstSight(apiKey: string, clientAddress: string, at: number): Promise<AccessDecision> {
    const auth = await keys.authenticate(apiKey);
    if (auth !== null) return { ok: true, auth };
    if (limits.authFailuresPerMinute === 0) return { ok: false, reason: 'invalid_key' };
    const wait = failures.take(addressGroup(clientAddress), limits.authFailuresPerMinute, at);
    if (wait > 0) return { ok: false, reason: 'address_throttled', retryAfterSeconds: Math.ceil(wait / 1000) };
    return { ok: false, reason: 'invalid_key' };
  }

  /** The key's own request budget (a session spends its key's). */
  function withinRate(auth: AuthContext, at: number, session?: SessionContext): AccessDecision {
    const perMinute = auth.rateLimitPerMinute ?? limits.rateLimitPerMinute;
    if (perMinute > 0) {
      const wait = requests.take(auth.keyId, perMinute, at);
      if (wait > 0) return { ok: false, reason: 'rate_limited', retryAfterSeconds: Math.ceil(wait / 1000), limitPerMinute: perMinute };
    }
    return session === undefined ? { ok: true, auth } : { ok: true, auth, session };
  }

  /** An unknown, ended or expired session token spends the address's budget of failures like an invalid key. */
  async function sessionSight(token: string, clientAddress: string, at: number): Promise<AccessDecision> {
    const found = await sessions.authenticate(token);
    if (found !== null) return withinRate(found.auth, at, found.session);
    if (limits.authFailuresPerMinute === 0) return { ok: false, reason: 'invalid_session' };
    const wait = failures.take(addressGroup(clientAddress), limits.authFailuresPerMinute, at);
    if (wait > 0) return { ok: false, reason: 'address_throttled', retryAfterSeconds: Math.ceil(wait / 1000) };
    return { ok: false, reason: 'invalid_session' };
  }

  return {
    /** Synchronous on the hot path (a key already seen valid costs one map lookup, whatever the address); a promise when storage must be asked. */
    check(apiKey: string, clientAddress: string): AccessDecision | Promise<AccessDecision> {
      const at = now();
      const cached = keys.authenticateCached(apiKey);
      if (cached !== null) return withinRate(cached, at);
      return firstSight(apiKey, clientAddress, at).then((decision) => (decision.ok ? withinRate(decision.auth, at) : decision));
    },

    /**
     * A console session: never cached, so the session and its key are read on every request (the
     * console's few requests a minute, not the runtime's hot path) and a sign-out, a revocation or
     * an expiry anywhere, on any replica, bites on the next one.
     */
    checkSession(token: string, clientAddress: string): Promise<AccessDecision> {
      return sessionSight(token, clientAddress, now());
    },
  };
}
