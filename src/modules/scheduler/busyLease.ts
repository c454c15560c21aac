/**
 * How soon to ask again while a running process holds the check: a check is one results report
 * and one write, seconds at most, so the lease's whole remaining time would be far too long a wait.
 */
export const LIVE_HOLDER_RETRY_SECONDS = 5;

/**
 * What a check refused because another holds its lease answers: when to try again (Retry-After)
 * and why, in one sentence. `holder`: `alive`, a process known to run (its check ends soon);
 * `unknown`, an owner whose process cannot be told (a lease written before leases named their
 * process): only the lease's end is sure.
 */
export function busyLease(
  experimentId: string,
  leaseUntil: string | null,
  nowMs: number,
  holder: 'alive' | 'unknown',
): { message: string; retryAfterSeconds: number } {
  const left = leaseUntil === null ? 0 : Math.max(0, Date.parse(leaseUntil) - nowMs);
  const leftSeconds = Math.max(1, Math.ceil(left / 1000));
  if (holder === 'alive') {
    const seconds = Math.min(LIVE_HOLDER_RETRY_SECONDS, leftSeconds);
    return {
      message: `Experiment '${experimentId}' is being checked right now by another process: try again in ${seconds} s (Retry-After)`,
      retryAfterSeconds: seconds,
    };
  }
  return {
    message: `Experiment '${experimentId}' is being checked right now, or was by a process that cannot be seen from here: its lease ends in ${leftSeconds} s, try again then (Retry-After)`,
    retryAfterSeconds: leftSeconds,
  };
}
