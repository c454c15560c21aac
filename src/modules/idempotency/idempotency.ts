import { isDuplicatePrimaryKey } from '../../db/storageErrors.js';
import { createHash } from 'node:crypto';
import type { Sql } from '../../db/sql.js';
import { invalid } from '../../lib/errors.js';
import * as repo from './idempotency.repo.js';
import { findIdempotencyRecord, insertIdempotencyRecord } from './idempotency.repo.js';

/**
 * `Idempotency-Key` on /run_prompt and /track_outcome: the same key and body
 * returns the first answer; the same key with another body is a 422. The answer is stored in the
 * same transaction as the run or outcome it acknowledges, so a replay can never disagree with it.
 */
export interface IdempotencyClaim {
  endpoint: string;
  key: string;
  requestHash: string;
}

const MAX_KEY_LENGTH = 255;

/** The claim a request makes with its `Idempotency-Key` header (first value when repeated), or null without one. */
export function idempotencyClaim(header: string | string[] | undefined, endpoint: string, rawBody: unknown): IdempotencyClaim | null {
  const key = Array.isArray(header) ? header[0] : header;
  if (key === undefined) return null;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH)
    throw invalid('header', ['idempotency-key'], `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`);
  return { endpoint, key, requestHash: createHash('sha256').update(JSON.stringify(rawBody)).digest('hex') };
}

/** The stored answer for this claim, or null; a different body under the same key is refused. */
export async function replay(db: Sql, projectId: string, claim: IdempotencyClaim): Promise<unknown> {
  const row = await findIdempotencyRecord(db, projectId, claim.endpoint, claim.key);
  if (row === undefined) return null;
  if (row.request_hash !== claim.requestHash)
    throw invalid('header', ['idempotency-key'], 'this Idempotency-Key was already used with a different request body');
  return JSON.parse(row.response);
}

/** Inside the write that acknowledges the request. A concurrent twin fails here on the primary key. */
export async function remember(db: Sql, projectId: string, claim: IdempotencyClaim, response: unknown, at: string): Promise<void> {
  await insertIdempotencyRecord(db, projectId, {
    endpoint: claim.endpoint,
    key: claim.key,
    request_hash: claim.requestHash,
    status_code: 200,
    response: JSON.stringify(response),
    created_at: at,
  });
}

export function isDuplicateClaim(error: unknown): boolean {
  return isDuplicatePrimaryKey(error, 'idempotency_keys');
}

/**
 * Forgets stored answers older than `before` (run text retention: a /run_prompt answer holds the
 * output). A retry with such a key afterwards runs again, as a new request.
 */
export async function forgetAnswersBefore(db: Sql, projectId: string, before: string, limit: number): Promise<number> {
  return await repo.deleteIdempotencyRecordsBefore(db, projectId, before, limit);
}
