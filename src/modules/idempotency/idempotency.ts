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
async function replay(db: Sql, projectId: string, claim: IdempotencyClaim): Promise<unknown> {
  const row = await findIdempotencyRecord(db, projectId, claim.endpoint, claim.key);
  if (row === undefined) return null;
  if (row.request_hash !== claim.requestHash)
    throw invalid('header', ['idempotency-key'], 'this Idempotency-Key was already used with a different request body');
  return JSON.parse(row.response);
}

/** Inside the write that acknowledges the request. A concurrent twin fails here on the primary key. */
async function remember(db: Sql, projectId: string, claim: IdempotencyClaim, response: unknown, at: string): Promise<void> {
  await insertIdempotencyRecord(db, projectId, {
    endpoint: claim.endpoint,
    key: claim.key,
    request_hash: claim.requestHash,
    status_code: 200,
    response: JSON.stringify(response),
    created_at: at,
  });
}

function isDuplicateClaim(error: unknown): boolean {
  return isDuplicatePrimaryKey(error, 'idempotency_keys');
}

/** Stores the answer under the claim, inside the write that acknowledges the request (a no-op without a claim). */
type RememberAnswer<Answer> = (db: Sql, answer: Answer, at: string) => Promise<void>;

/**
 * The idempotent write's choreography, shared by /run_prompt and /track_outcome: with a claim, a
 * stored answer is replayed before any work; otherwise `handle` does the work and calls `remember`
 * in its write transaction. A concurrent twin that committed the same key first makes that write
 * fail on the primary key: the twin's answer is then the one on record, and is the answer here too.
 */
export async function withIdempotency<Answer>(
  sql: Sql,
  projectId: string,
  claim: IdempotencyClaim | null,
  handle: (remember: RememberAnswer<Answer>) => Promise<Answer>,
): Promise<Answer> {
  if (claim === null) return await handle(async () => {});
  const prior = (await replay(sql, projectId, claim)) as Answer | null;
  if (prior) return prior;
  try {
    return await handle((db, answer, at) => remember(db, projectId, claim, answer, at));
  } catch (error) {
    if (isDuplicateClaim(error)) return (await replay(sql, projectId, claim)) as Answer;
    throw error;
  }
}

/**
 * Forgets stored answers older than `before` (run text retention: a /run_prompt answer holds the
 * output). A retry with such a key afterwards runs again, as a new request.
 */
export async function forgetAnswersBefore(db: Sql, projectId: string, before: string, limit: number): Promise<number> {
  return await repo.deleteIdempotencyRecordsBefore(db, projectId, before, limit);
}
