/** When a bandit may stop and ship its leader (docs/rollouts-and-bandits.md, "Bandits"). */

/** One check's probabilities that each arm is best, at a time in epoch milliseconds. */
export interface CheckPoint {
  at: number;
  pBest: readonly number[];
}

/**
 * The arm that leads at the latest check with P(best) ≥ threshold, and since when it has done so at
 * every check without a break (the earliest check of that unbroken run), or null when no arm is
 * above the threshold at the latest check. Checks must be in time order.
 */
export function leaderAboveThreshold(history: readonly CheckPoint[], threshold: number): { arm: number; since: number } | null {
  const last = history.at(-1);
  if (last === undefined || last.pBest.length === 0) return null;
  let arm = 0;
  last.pBest.forEach((p, i) => {
    if (p > last.pBest[arm]!) arm = i;
  });
  if (!(last.pBest[arm]! >= threshold)) return null;
  let since = last.at;
  for (let c = history.length - 1; c >= 0; c--) {
    const p = history[c]!.pBest[arm];
    if (p === undefined || !(p >= threshold)) break;
    since = history[c]!.at;
  }
  return { arm, since };
}

/**
 * The arm to ship now, or null: one arm's P(best) has stayed at or above the threshold for at least
 * `holdMinutes` (measured from the first check of the unbroken run to `now`).
 */
export function armToShip(history: readonly CheckPoint[], threshold: number, holdMinutes: number, now: number): number | null {
  const leader = leaderAboveThreshold(history, threshold);
  if (leader === null) return null;
  return now - leader.since >= holdMinutes * 60_000 ? leader.arm : null;
}
