import { invalidIssue, type Issue } from '../../lib/errors.js';
import { DEFAULT_BANDIT_SETTINGS, type BanditSettings } from './bandit.schemas.js';
import { banditMetric } from './banditReads.js';
import type { CreateExperimentInput } from './experiments.schemas.js';
import type { MetricDef } from './metrics.js';

const item = (path: (string | number)[], why: string): Issue => invalidIssue('body', path, why);

/** A bandit has 2 to 10 arms (the issue's bound: more arms than that learn too slowly to be worth it). */
const MAX_ARMS = 10;

/**
 * What a bandit's create asks beyond an A/B test's (docs/rollouts-and-bandits.md, "Bandits"): at most
 * 10 variants, a primary metric it can re-weight on (an outcome success_rate or mean), a floor share
 * that leaves room for the rest, and full coverage (a bandit's weights already decide who gets what).
 * Answers the settings to store, defaults filled in.
 */
export function banditSettings(input: CreateExperimentInput, metrics: readonly MetricDef[], issues: Issue[]): BanditSettings {
  const arms = input.variants?.length ?? 0;
  if (arms > MAX_ARMS) issues.push(item(['variants'], `a bandit has at most ${MAX_ARMS} variants`));
  if (banditMetric(metrics) === null)
    issues.push(item(['metrics'], 'a bandit needs a primary metric on outcomes, success_rate or mean: it re-weights its variants by it'));
  if (input.coverage !== undefined && input.coverage !== 1) issues.push(item(['coverage'], 'a bandit covers every user: its weights decide who gets what'));
  const settings: BanditSettings = {
    floor: input.bandit?.floor ?? DEFAULT_BANDIT_SETTINGS.floor,
    stop_threshold: input.bandit?.stop_threshold ?? DEFAULT_BANDIT_SETTINGS.stop_threshold,
    stop_after_minutes: input.bandit?.stop_after_minutes ?? DEFAULT_BANDIT_SETTINGS.stop_after_minutes,
  };
  if (settings.floor !== null && arms > 0 && settings.floor * arms >= 1)
    issues.push(item(['bandit', 'floor'], `a floor of ${settings.floor} for ${arms} variants leaves nothing to re-weight: it must be below 1/${arms}`));
  return settings;
}
