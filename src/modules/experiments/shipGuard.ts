import { conflict, Invalid, type Issue } from '../../lib/errors.js';
import type { StopInput } from './experiments.schemas.js';

/** One treatment variant's decision as the results compute it with default options. */
interface VariantDecision {
  variant: string;
  decision: 'ship' | 'rollback' | 'keep_running' | 'unhealthy';
  /** The decision in one sentence, as the results word it. */
  reason: string;
}

/** What a ship is checked against: read from the experiment's results, outside the stop's write. */
export interface ShipFacts {
  /** Users ever assigned a variant (exposed). */
  exposedUsers: number;
  /** One per treatment variant (control has none). */
  decisions: readonly VariantDecision[];
}

/**
 * The experiments module's port to the results (which it must not import): the exposures and the
 * per-variant decisions of `GET /experiments/{id}/results` with default options. Wired in services.ts.
 */
export type ShipCheck = (projectId: string, experimentId: string) => Promise<ShipFacts>;

/** What an accepted override leaves in the audit log (and the webhook events) of the stop. */
export interface ShipOverride {
  override: true;
  reason: string;
}

/**
 * The body's rules the schema cannot say: an override goes with ship and needs a reason that is
 * more than blanks, and a reason goes with an override. Answers the override to record, if any.
 */
export function checkOverride(stop: StopInput): ShipOverride | null {
  const issues: Issue[] = [];
  if (stop.override && !stop.ship)
    issues.push({ part: 'body', path: ['override'], kind: 'invalid', reason: 'override only applies to a stop with ship: true' });
  if (stop.override && stop.reason === undefined)
    issues.push({ part: 'body', path: ['reason'], kind: 'missing', reason: 'an override needs a reason, kept in the audit log' });
  if (stop.reason !== undefined && stop.reason.trim() === '')
    issues.push({ part: 'body', path: ['reason'], kind: 'invalid', reason: 'the reason must say something, not only blanks' });
  // The API's schema bounds it too; the CLI hands its --reason over unchecked.
  if (stop.reason !== undefined && stop.reason.length > 500)
    issues.push({ part: 'body', path: ['reason'], kind: 'invalid', reason: 'the reason must be at most 500 characters' });
  if (stop.reason !== undefined && !stop.override)
    issues.push({ part: 'body', path: ['reason'], kind: 'invalid', reason: 'a reason goes with override: true (it explains the override)' });
  if (issues.length > 0) throw new Invalid(issues);
  return stop.override ? { override: true, reason: stop.reason!.trim() } : null;
}

const HOW_TO_OVERRIDE = 'To ship anyway, send "override": true with a "reason" (kept in the audit log).';

/**
 * Refuses (409) a ship the results do not back. A treatment ships only when its own decision is
 * `ship`. Control (keeping the current version) ships unless some treatment's decision is `ship`
 * (a better version would be thrown away) or any is `unhealthy` (no result can be trusted yet).
 */
export function checkShip(experimentId: string, winner: string, control: string, facts: ShipFacts): void {
  // Not a positive count (0, or a figure that could not be read) is no exposure: nothing backs the ship.
  if (!(facts.exposedUsers > 0)) {
    throw conflict(
      `Experiment '${experimentId}' never had an exposure: no user was ever assigned a variant, so nothing shows '${winner}' is better. ${HOW_TO_OVERRIDE}`,
    );
  }
  if (winner === control) {
    const against = facts.decisions.find((d) => d.decision === 'unhealthy') ?? facts.decisions.find((d) => d.decision === 'ship');
    if (against !== undefined) {
      throw conflict(
        `Cannot ship control '${control}': the decision for variant '${against.variant}' is ${against.decision}: "${against.reason}" ${HOW_TO_OVERRIDE}`,
      );
    }
    return;
  }
  const decision = facts.decisions.find((d) => d.variant === winner);
  if (decision === undefined) throw conflict(`Cannot ship '${winner}': the results have no decision for it. ${HOW_TO_OVERRIDE}`);
  if (decision.decision === 'ship') return;
  throw conflict(`Cannot ship '${winner}': its decision is ${decision.decision}, not ship: "${decision.reason}" ${HOW_TO_OVERRIDE}`);
}
