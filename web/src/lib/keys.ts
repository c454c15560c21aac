/** An API key as `GET /keys` lists it (no secret; src/modules/keys/keys.schemas.ts). */
export interface ApiKey {
  key_id: string;
  name: string;
  role: 'runtime' | 'read' | 'admin';
  key_prefix: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  rate_limit_per_minute: number | null;
}

/** `POST /keys` answers with the key itself, this once. */
export interface CreatedKey extends ApiKey {
  key: string;
}

export type KeyState = 'active' | 'revoked' | 'expired';

export function keyState(key: Pick<ApiKey, 'revoked_at' | 'expires_at'>, now: Date): KeyState {
  if (key.revoked_at !== null) return 'revoked';
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now.getTime()) return 'expired';
  return 'active';
}

/** A key's rate limit in words: null is the server default, 0 no limit. */
export function rateLimitText(limit: number | null): string {
  if (limit === null) return 'server default';
  return limit === 0 ? 'unlimited' : `${limit}/min`;
}
