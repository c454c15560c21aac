import type { ExperimentResults } from '../results/results.schemas.js';

/** What the last look at a running experiment saw. */
export interface Signals {
  srm_flagged: boolean;
  /** variant → decision */
  decisions: Record<string, string>;
}

/** Before any look, an experiment is healthy and undecided. */
export const NO_SIGNALS: Signals = Object.freeze({ srm_flagged: false, decisions: {} });
const UNDECIDED = 'keep_running';

export interface SignalEvent {
  type: 'experiment.srm_detected' | 'experiment.decision_changed';
  before: unknown;
  after: unknown;
}

export function signalsOf(report: ExperimentResults): Signals {
  return { srm_flagged: report.health.srm.flagged, decisions: Object.fromEntries(report.decisions.map((d) => [d.variant, d.decision])) };
}

/**
 * The events a new report causes, compared with the last one: `srm_detected` when the sample-ratio
 * check turns flagged (again after it had cleared), and one `decision_changed` per variant whose
 * decision differs (a variant never seen counts as keep_running, so a first look that already
 * decides says so, and one that does not stays quiet).
 */
export function signalChanges(previous: Signals, report: ExperimentResults): SignalEvent[] {
  const events: SignalEvent[] = [];
  const current = signalsOf(report);
  if (current.srm_flagged && !previous.srm_flagged) {
    events.push({
      type: 'experiment.srm_detected',
      before: null,
      after: {
        prompt_id: report.prompt_id,
        srm: report.health.srm,
        users: Object.fromEntries(report.variants.map((v) => [v.key, v.users])),
        weights: Object.fromEntries(report.variants.map((v) => [v.key, v.weight])),
      },
    });
  }
  for (const decision of report.decisions) {
    const before = previous.decisions[decision.variant] ?? UNDECIDED;
    if (decision.decision === before) continue;
    events.push({
      type: 'experiment.decision_changed',
      before: { variant: decision.variant, decision: before },
      after: { prompt_id: report.prompt_id, ...decision },
    });
  }
  return events;
}
