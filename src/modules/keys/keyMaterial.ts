import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Role } from './access.js';

/** Role letters in the key text, so a leaked key tells at a glance what it can do. */
const ROLE_LETTER: Record<Role, string> = { runtime: 'r', read: 'v', admin: 'a' };

/** `pl_<role letter>_<43 chars of base64url>`: 256 bits of randomness. */
export function generateKey(role: Role): string {
  return `pl_${ROLE_LETTER[role]}_${randomBytes(32).toString('base64url')}`;
}

/** Keys carry ≥128 bits of entropy, so a fast unsalted hash is enough to make the table useless to a thief. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** What is kept for display: enough to recognise a key, far too little to use it. */
export function keyPrefix(key: string): string {
  return `${key.slice(0, 10)}…`;
}

export function hashesEqual(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
