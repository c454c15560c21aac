import type { ExperimentResults } from '../../lib/types';

type Decision = ExperimentResults['decisions'][number];

/** Whether the results back shipping a winner, as the API checks it (docs/management-api.md, "Stop and ship"). */
export interface ShipBacking {
  backed: boolean;
  /** The decision that says so (the winner's own, or for control the treatment's that refuses it); null without one. */
  decision: Decision | null;
  /** Why not, in a sentence, when not backed. */
  why: string | null;
}

/**
 * The API's rule, so the dialog can say before the request what the API will answer: nobody exposed
 * → not backed; a treatment ships only on its own `ship` decision; control ships unless some
 * treatment's decision is `unhealthy` or `ship`.
 */
export function shipBacking(results: ExperimentResults, winner: string): ShipBacking {
  const exposed = results.variants.reduce((n, v) => n + v.users, 0);
  if (exposed === 0) return { backed: false, decision: null, why: 'Nobody was ever exposed to this experiment: no result backs any variant.' };
  if (winner === results.control) {
    const against = results.decisions.find((d) => d.decision === 'unhealthy') ?? results.decisions.find((d) => d.decision === 'ship');
    if (against === undefined) return { backed: true, decision: null, why: null };
    return { backed: false, decision: against, why: `Keeping control goes against the decision for ${against.variant}.` };
  }
  const decision = results.decisions.find((d) => d.variant === winner) ?? null;
  if (decision?.decision === 'ship') return { backed: true, decision, why: null };
  return { backed: false, decision, why: `The decision for ${winner} is not ship.` };
}

/** The winner a ship dialog offers first: the variant the results say to ship, else control when that is backed, else the first treatment. */
export function suggestedWinner(results: ExperimentResults | undefined, control: string, treatments: readonly string[]): string {
  const ship = results?.decisions.find((d) => d.decision === 'ship')?.variant;
  if (ship !== undefined) return ship;
  if (results !== undefined && shipBacking(results, control).backed) return control;
  return treatments[0] ?? control;
}
