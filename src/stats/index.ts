/** Statistics engine: pure functions over per-variant sufficient statistics (docs/design-decisions.md, "Statistics"). */
export type {
  CompareOptions,
  Comparison,
  Direction,
  FrequentistResult,
  MetricKind,
  Suff,
  Verdict,
} from './types.js';
export { moments } from './moments.js';
export {
  compareToControl,
  DEFAULT_ALPHA,
  REASON_CONTROL_MEAN_ZERO,
  REASON_TOO_FEW_USERS,
} from './compare.js';
export { holmAdjust } from './holm.js';
export { sampleRatioMismatch } from './srm.js';
export { minimumDetectableEffect } from './mde.js';
export type { MdeOptions } from './mde.js';
export { guardrailVerdict, primaryPValue, verdictFor } from './verdict.js';
export { oneSidedWorsePValue } from './frequentist.js';
export { cupedAdjust } from './cuped.js';
export type { CupedResult, CupedSuff } from './cuped.js';
export { usersNeeded } from './sampleSize.js';
export type { ArmShares } from './sampleSize.js';
export { percentileCap } from './capping.js';
export { probabilityBest, PROBABILITY_BEST_DRAWS, thompsonWeights } from './banditPosterior.js';
export type { ArmPosterior } from './banditPosterior.js';
export { armPosterior, periodSampleRatioMismatch, periodWeightedEstimates } from './banditEstimate.js';
export type { ArmEstimate } from './banditEstimate.js';
export { armToShip, leaderAboveThreshold } from './banditStop.js';
export type { CheckPoint } from './banditStop.js';
export { sequentialDifference } from './sequential.js';
export { isRateSums, rateBounds, rateDifference } from './rateSequence.js';
