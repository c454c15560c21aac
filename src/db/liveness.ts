import { newId } from '../lib/ids.js';

/**
 * Which processes sharing this database are still running, so that a lease (a row a process
 * claimed for a while: a check of an experiment) held by one that died can be taken at once
 * instead of waiting for it to end. Each process has an identity, held for its lifetime by
 * something the operating system or PostgreSQL gives back the moment the process ends (a kill -9
 * included): on SQLite an exclusive lock on a file of its own beside the database
 * (sqliteLiveness.ts), on PostgreSQL a session advisory lock on a connection of its own
 * (postgresLiveness.ts). The lease's own end stays the backstop: an owner this cannot see is
 * taken as alive until its lease ends.
 */
export interface ProcessLiveness {
  /** This process's identity, taken on first use (then kept while its lock holds; a lost lock makes a new one). */
  identity(): Promise<string>;
  /**
   * True only when `processId` names a process that has certainly ended (its lock is free); false
   * while it may still run, and for anything this backend cannot tell about (an id of another form).
   * An identity found dead stays dead: no process ever takes it again.
   */
  isDead(processId: string): Promise<boolean>;
  /** Gives the identity up (its lock and file): called at shutdown, after the last lease was settled. */
  close(): Promise<void>;
}

/** A process identity: what a lock file is named after and an advisory lock key is derived from. */
const PROCESS_ID = /^prc_[0-9a-f]{32}$/;

export function newProcessId(): string {
  return newId('prc');
}

export function isProcessId(id: string): boolean {
  return PROCESS_ID.test(id);
}

/**
 * The owner a lease names: the process that took it and one id of its own, so a process that
 * claims again the lease it let run out (a check that outlived it) is told apart from its first claim.
 */
export function leaseOwner(processId: string): string {
  return `${processId}/${newId('lse')}`;
}

/** The process a lease's owner names; null for an owner of another form (written before leases named their process). */
export function processOf(owner: string): string | null {
  const slash = owner.indexOf('/');
  const id = slash === -1 ? '' : owner.slice(0, slash);
  return isProcessId(id) ? id : null;
}

/** Dead verdicts are final, so they are kept; a bound keeps a long-lived process's memory flat. */
export function deadCache(limit = 1_000) {
  const dead = new Set<string>();
  return {
    has: (id: string) => dead.has(id),
    add(id: string) {
      if (dead.size >= limit) dead.clear();
      dead.add(id);
    },
  };
}
