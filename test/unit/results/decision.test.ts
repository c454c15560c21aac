import { describe, expect, it } from 'vitest';
import { decide, type DecisionInput } from '../../../src/modules/results/decision.js';

const healthy = { srmFlagged: false, srmPValue: 0.5, multipleVariantShare: 0 };
const sample = { needed: 1000, users: 400, perDay: 100, targetMde: 0.1 };
const better = { name: 'convert:success_rate', verdict: 'better' as const, text: 'Variant b is better than control a (+12.0%, p=0.004)' };
const worse = { ...better, verdict: 'worse' as const, text: 'Variant b is worse than control a (-8.0%, p=0.01)' };
const flat = { ...better, verdict: 'no_detectable_difference' as const, text: 'No detectable difference between variant b and control a (+1.0%, p=0.6)' };
const costWorse = { name: 'runs:cost_usd', text: 'Variant b is worse than control a (+210.0%, one-sided p<0.001)' };

const input = (over: Partial<DecisionInput>): DecisionInput => ({
  variant: 'b',
  health: healthy,
  renderFailed: { share: 0, controlShare: 0 },
  primary: better,
  worseGuardrails: [],
  sample,
  ...over,
});

describe('decide: unhealthy → rollback → ship → keep running', () => {
  it.each<[string, Partial<DecisionInput>, string, string, number | null, number | null]>([
    [
      'SRM flagged beats a better primary',
      { health: { ...healthy, srmFlagged: true, srmPValue: 0.00001 } },
      'unhealthy',
      'Unhealthy: exposures do not follow the weights (sample-ratio mismatch, p<0.001); find out why before trusting any result.',
      null,
      null,
    ],
    [
      'more than 1% of users in several variants',
      { health: { ...healthy, multipleVariantShare: 0.0125 } },
      'unhealthy',
      'Unhealthy: 1.3% of users were seen in more than one variant (over 1%); find out why before trusting any result.',
      null,
      null,
    ],
    [
      'exactly 1% is still healthy',
      { health: { ...healthy, multipleVariantShare: 0.01 } },
      'ship',
      'Ship: on the primary metric convert:success_rate, variant b is better than control a (+12.0%, p=0.004), and no guardrail got worse.',
      null,
      null,
    ],
    [
      'calls failed to render the variant for every user: broken, whatever the statistics say',
      { primary: flat, renderFailed: { share: 1, controlShare: 0 } },
      'rollback',
      "Roll back: calls failed to render variant b's version for 100% of its users (control: 0%); it needs inputs its callers do not send.",
      null,
      null,
    ],
    [
      'render failures beat a better primary',
      { renderFailed: { share: 0.2, controlShare: 0.05 } },
      'rollback',
      "Roll back: calls failed to render variant b's version for 20% of its users (control: 5%); it needs inputs its callers do not send.",
      null,
      null,
    ],
    [
      'render failures no more than 1 point above control are not the variant\'s doing',
      { renderFailed: { share: 0.06, controlShare: 0.05 } },
      'ship',
      'Ship: on the primary metric convert:success_rate, variant b is better than control a (+12.0%, p=0.004), and no guardrail got worse.',
      null,
      null,
    ],
    [
      'SRM still comes first',
      { health: { ...healthy, srmFlagged: true, srmPValue: 0.00001 }, renderFailed: { share: 1, controlShare: 0 } },
      'unhealthy',
      'Unhealthy: exposures do not follow the weights (sample-ratio mismatch, p<0.001); find out why before trusting any result.',
      null,
      null,
    ],
    ['a worse primary', { primary: worse }, 'rollback', 'Roll back: on the primary metric convert:success_rate, variant b is worse than control a (-8.0%, p=0.01).', null, null],
    [
      'a better primary with a worse guardrail',
      { worseGuardrails: [costWorse] },
      'rollback',
      'Roll back: on the guardrail runs:cost_usd, variant b is worse than control a (+210.0%, one-sided p<0.001).',
      null,
      null,
    ],
    [
      'two worse guardrails',
      { primary: flat, worseGuardrails: [costWorse, { name: 'runs:latency_ms', text: 'Variant b is worse than control a (+30.0%, one-sided p=0.002)' }] },
      'rollback',
      'Roll back: on the guardrail runs:cost_usd, variant b is worse than control a (+210.0%, one-sided p<0.001) (and 1 more guardrail).',
      null,
      null,
    ],
    [
      'no difference yet: 600 more users at 100 a day',
      { primary: flat },
      'keep_running',
      'Keep running: about 600 more users (about 6 days at 100 users a day) to detect a 10% change in convert:success_rate with 80% power.',
      600,
      6,
    ],
    [
      'days rounded up to a tenth',
      { primary: flat, sample: { ...sample, perDay: 70 } },
      'keep_running',
      'Keep running: about 600 more users (about 8.6 days at 70 users a day) to detect a 10% change in convert:success_rate with 80% power.',
      600,
      8.6,
    ],
    [
      'no exposure rate yet',
      { primary: flat, sample: { ...sample, perDay: null } },
      'keep_running',
      'Keep running: about 600 more users (no exposure rate yet to say how long that takes) to detect a 10% change in convert:success_rate with 80% power.',
      600,
      null,
    ],
    [
      'enough users and still no difference',
      { primary: flat, sample: { ...sample, users: 1200 } },
      'keep_running',
      'Keep running, or stop without shipping: with 1200 users the experiment can detect a 10% change in convert:success_rate and has found none, so a real effect, if any, is smaller.',
      0,
      0,
    ],
    [
      'a sample size that cannot be estimated',
      { primary: { ...flat, verdict: 'not_enough_data' }, sample: { ...sample, needed: null } },
      'keep_running',
      'Keep running: the users needed to detect a 10% change in convert:success_rate cannot be estimated yet (the control has no variation or a zero mean yet).',
      null,
      null,
    ],
    [
      'no primary metric',
      { primary: null },
      'keep_running',
      'Keep running: no primary metric is declared, so nothing decides this experiment yet.',
      null,
      null,
    ],
  ])('%s', (_name, over, decision, reason, usersNeeded, daysNeeded) => {
    expect(decide(input(over))).toEqual({ variant: 'b', decision, reason, users_needed: usersNeeded, days_needed: daysNeeded });
  });
});
