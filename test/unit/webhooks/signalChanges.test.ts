import { describe, expect, it } from 'vitest';
import type { ExperimentResults } from '../../../src/modules/results/results.schemas.js';
import { NO_SIGNALS, signalChanges, type Signals } from '../../../src/modules/webhooks/signalChanges.js';

/** The parts of a report the signals read; the rest does not matter here. */
function report(flagged: boolean, decisions: Record<string, string>): ExperimentResults {
  return {
    prompt_id: 'p',
    health: { srm: { chi_square: flagged ? 30 : 0.1, df: 1, p_value: flagged ? 1e-7 : 0.75, checked: true, flagged }, users_in_multiple_variants: 0, unattributed_outcomes: 0 },
    variants: [
      { key: 'a', weight: 50, users: 60 },
      { key: 'b', weight: 50, users: 10 },
    ],
    decisions: Object.entries(decisions).map(([variant, decision]) => ({ variant, decision, reason: `${variant} is ${decision}`, users_needed: null, days_needed: null })),
  } as unknown as ExperimentResults;
}

const seen = (srm: boolean, decisions: Record<string, string>): Signals => ({ srm_flagged: srm, decisions });

describe('which report changes are announced', () => {
  it.each<[string, Signals, ExperimentResults, string[]]>([
    ['a first look that decides nothing stays quiet', NO_SIGNALS, report(false, { b: 'keep_running' }), []],
    ['a first look that already decides says so', NO_SIGNALS, report(false, { b: 'ship' }), ['experiment.decision_changed:b:keep_running→ship']],
    ['nothing new', seen(false, { b: 'ship' }), report(false, { b: 'ship' }), []],
    ['the split breaks: SRM, and the variant turns unhealthy', seen(false, { b: 'keep_running' }), report(true, { b: 'unhealthy' }), ['experiment.srm_detected', 'experiment.decision_changed:b:keep_running→unhealthy']],
    ['still broken: said once', seen(true, { b: 'unhealthy' }), report(true, { b: 'unhealthy' }), []],
    ['healed, then broken again: said again', seen(false, { b: 'keep_running' }), report(true, { b: 'unhealthy' }), ['experiment.srm_detected', 'experiment.decision_changed:b:keep_running→unhealthy']],
    ['each variant on its own', seen(false, { b: 'ship', c: 'keep_running' }), report(false, { b: 'ship', c: 'rollback' }), ['experiment.decision_changed:c:keep_running→rollback']],
  ])('%s', (_case, previous, current, expected) => {
    const events = signalChanges(previous, current).map((e) =>
      e.type === 'experiment.decision_changed'
        ? `${e.type}:${(e.before as { variant: string }).variant}:${(e.before as { decision: string }).decision}→${(e.after as { decision: string }).decision}`
        : e.type,
    );
    expect(events).toEqual(expected);
  });

  it('says what a receiver needs: the SRM check with the split, the new decision with its reason', () => {
    const [srm, decision] = signalChanges(NO_SIGNALS, report(true, { b: 'unhealthy' }));
    expect(srm!.after).toEqual({
      prompt_id: 'p',
      srm: { chi_square: 30, df: 1, p_value: 1e-7, checked: true, flagged: true },
      users: { a: 60, b: 10 },
      weights: { a: 50, b: 50 },
    });
    expect(decision!.after).toEqual({ prompt_id: 'p', variant: 'b', decision: 'unhealthy', reason: 'b is unhealthy', users_needed: null, days_needed: null });
  });
});
