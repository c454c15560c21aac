import { createHash } from 'node:crypto';

/**
 * Whether a run is in an evaluator's sample (pure). The run id and the evaluator id are hashed
 * together, so the choice is the same on every replica and every pass (a run is never half
 * scored), differs between evaluators (two evaluators at 5 % do not score the same 5 %), and does
 * not depend on the user or the variant (the sample is a fair share of each variant's runs).
 */
export function inSample(runId: string, evaluatorId: string, rate: number): boolean {
  if (rate >= 1) return true;
  const h = createHash('sha256').update(runId).update('\u0000').update(evaluatorId).digest();
  return h.readUInt32BE(0) / 0x1_0000_0000 < rate;
}
