import type { Actor } from '../changes/changeLog.js';

/** Who the audit log names for what a rollout's or a bandit's check did on its own. */
export const SCHEDULER: Actor = Object.freeze({ keyId: null, keyName: 'scheduler' });

/** What a check did, as the scheduler records it in the timeline (its CheckOutcome). */
export interface Outcome {
  action: string;
  reason: string;
  step: number | null;
  percent: number | null;
  figures: unknown;
}

/** A check that did nothing, and why. */
export const idle = (reason: string): Outcome => ({ action: 'none', reason, step: null, percent: null, figures: null });
