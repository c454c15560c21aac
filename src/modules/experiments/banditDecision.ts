/**
 * What a bandit's scheduled check does, pure (docs/rollouts-and-bandits.md, "Bandits"): drop the arms
 * whose guardrail failed, re-weight the rest by Thompson sampling with a floor share, or stop and ship
 * the arm whose probability of being best has stayed above the threshold long enough.
 */
import { armToShip, thompsonWeights, type CheckPoint } from '../../stats/index.js';
import type { AllocationRecord } from './bandit.repo.js';
import type { BanditSettings } from './bandit.schemas.js';
import { banditState, historyOf, type BanditInputs } from './banditState.js';

export interface BanditDecision {
  action: 'reweight' | 'ship';
  /** Variant key → share of new users from now on (reweight), in variant order. */
  weights: Record<string, number>;
  pBest: Record<string, number>;
  dropped: string[];
  /** Arms dropped by this check, with the guardrail that failed. */
  newlyDropped: Array<{ variant: string; guardrail: string }>;
  /** The arm to ship (action ship). */
  winner: string | null;
  reason: string;
}

const percent = (x: number) => `${Number((x * 100).toFixed(1))}%`;

/** The checks that computed P(best), as the stop rule reads them, in variant order. */
function checkPoints(history: readonly AllocationRecord[], keys: readonly string[]): CheckPoint[] {
  return history.flatMap((h) => (h.p_best === null ? [] : [{ at: Date.parse(h.started_at), pBest: keys.map((k) => h.p_best![k] ?? 0) }]));
}

/**
 * `failing`: arms whose guardrail got worse, per the results. An arm stays in play if dropping it would
 * leave none (the last arm standing is then simply the only one served). `unknown`: arms with a
 * guardrail that has no figure yet; such an arm is re-weighted but never shipped.
 */
export function decideBandit(
  inputs: BanditInputs,
  settings: BanditSettings,
  failing: ReadonlyArray<{ variant: string; guardrail: string }>,
  nowMs: number,
  unknown: ReadonlyArray<{ variant: string; guardrail: string }> = [],
): BanditDecision {
  const keys = inputs.variants.map((v) => v.key);
  const history = historyOf(inputs);
  const dropped = new Set(history.at(-1)!.dropped);
  const newlyDropped: Array<{ variant: string; guardrail: string }> = [];
  for (const f of failing) {
    if (dropped.has(f.variant) || !keys.includes(f.variant) || dropped.size + 1 >= keys.length) continue;
    dropped.add(f.variant);
    newlyDropped.push(f);
  }
  const droppedList = keys.filter((k) => dropped.has(k));
  const { pBest } = banditState({ ...inputs, dropped: droppedList });
  const active = keys.map((k) => !dropped.has(k));
  const weights = thompsonWeights(pBest, active, settings.floor ?? undefined);
  const byKey = (xs: readonly number[]) => Object.fromEntries(keys.map((k, i) => [k, xs[i]!]));

  const winnerIdx = armToShip([...checkPoints(history, keys), { at: nowMs, pBest }], settings.stop_threshold, settings.stop_after_minutes, nowMs);
  const dropText = newlyDropped.map((d) => `Dropped ${d.variant}: its guardrail ${d.guardrail} got worse. `).join('');
  // A guardrail without a figure is no evidence of safety: the arm is not shipped until it has one.
  const unchecked = winnerIdx === null ? undefined : unknown.find((u) => u.variant === keys[winnerIdx]);
  const held =
    unchecked === undefined ? '' : `Not shipped yet: ${unchecked.variant}'s guardrail ${unchecked.guardrail} has no figure (too few users or no usable data). `;
  if (winnerIdx !== null && unchecked === undefined) {
    const winner = keys[winnerIdx]!;
    return {
      action: 'ship',
      weights: byKey(weights),
      pBest: byKey(pBest),
      dropped: droppedList,
      newlyDropped,
      winner,
      reason: `${dropText}Shipped ${winner}: its probability of being the best arm has stayed at or above ${percent(settings.stop_threshold)} for at least ${settings.stop_after_minutes} minutes (now ${percent(pBest[winnerIdx]!)}).`,
    };
  }
  const shares = keys
    .map((k, i) => ({ k, w: weights[i]!, p: pBest[i]! }))
    .filter((x) => !dropped.has(x.k))
    .sort((a, b) => b.w - a.w)
    .map((x) => `${x.k} ${percent(x.w)} (best with probability ${percent(x.p)})`)
    .join(', ');
  return {
    action: 'reweight',
    weights: byKey(weights),
    pBest: byKey(pBest),
    dropped: droppedList,
    newlyDropped,
    winner: null,
    reason: `${dropText}${held}Re-weighted new users: ${shares}.`,
  };
}
