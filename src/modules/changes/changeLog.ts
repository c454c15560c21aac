import type { Sql } from '../../db/sql.js';
import { isoNow, type Clock } from '../../lib/clock.js';

/** Who made a change: an API key (its id and its name at the time), or the CLI, which uses none. */
export interface Actor {
  keyId: string | null;
  keyName: string;
}

export const CLI_ACTOR: Actor = Object.freeze({ keyId: null, keyName: 'cli' });
/** Changes the service makes on its own (the start-up bootstrap). */
export const SYSTEM_ACTOR: Actor = Object.freeze({ keyId: null, keyName: 'system' });

/** The actor of an API request: the key that authenticated it. */
export const actorOf = (auth: { keyId: string | null; keyName: string }): Actor => ({ keyId: auth.keyId, keyName: auth.keyName });

interface Change {
  action: string;
  targetType: 'prompt' | 'experiment' | 'key' | 'user' | 'webhook' | 'dataset' | 'evaluator';
  targetId: string;
  /** The prompt an experiment change concerns, so other replicas drop only that prompt's cached experiment. */
  promptId?: string;
  before?: unknown;
  after?: unknown;
}

/** One change as its subscribers hear it: `at` is read once, so the audit row and the webhook event agree. */
export interface RecordedChange {
  projectId: string;
  actor: Actor;
  at: string;
  change: Change;
}

/** Runs inside the change's own transaction (`db`): what it writes commits with the change, or not at all. */
export type ChangeSubscriber = (db: Sql, recorded: RecordedChange) => Promise<void>;

/**
 * The one way a management change is recorded. Call it inside the write that makes the change, so
 * the change and everything its subscribers write commit together or not at all: the log never
 * says something happened that did not, nor misses what did.
 */
export interface ChangeLog {
  record(db: Sql, projectId: string, actor: Actor, change: Change): Promise<void>;
}

/**
 * A ChangeLog that hands each change to every subscriber, one after the other, in the order given.
 * The composition root builds one with all of them and gives that same one to every service, so
 * no service can record a change and skip a subscriber.
 */
export function createChangeLog(clock: Clock, subscribers: readonly ChangeSubscriber[]): ChangeLog {
  return {
    async record(db, projectId, actor, change) {
      const recorded: RecordedChange = { projectId, actor, at: isoNow(clock), change };
      for (const subscriber of subscribers) await subscriber(db, recorded);
    },
  };
}
