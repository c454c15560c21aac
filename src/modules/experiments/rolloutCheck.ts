import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import type { ChangeLog } from '../changes/changeLog.js';
import { idle, type Outcome, SCHEDULER } from './checkOutcome.js';
import * as repo from './experiments.repo.js';
import { toView } from './experimentModel.js';
import type { ExperimentChanged, PromptFacts } from './experiments.service.js';
import { decideRollout, type RolloutDecision, type RolloutFacts } from './rolloutDecision.js';

/**
 * The experiments module's port to the results (which it must not import): a rollout's exposed
 * users and its guardrails' sums per variant, from the report the API shows. Wired in services.ts.
 */
export type RolloutFactsSource = (projectId: string, experimentId: string) => Promise<RolloutFacts>;

/**
 * A rollout's check (the scheduler's check function for type rollout): reads the results outside
 * any write (a report takes a while), decides (rolloutDecision.ts), then in one write re-reads the
 * experiment, applies what was decided and lets the scheduler settle the check in that same
 * transaction. Rolling back stops the experiment and leaves production where it is; shipping
 * moves the production label as a stop with ship does.
 */
export function createRolloutCheck(
  store: Store,
  changeLog: ChangeLog,
  prompts: Pick<PromptFacts, 'moveLabel'>,
  facts: RolloutFactsSource,
  onChange: ExperimentChanged,
) {
  async function apply(db: Sql, projectId: string, row: repo.ExperimentRecord, decision: RolloutDecision, users: number): Promise<Outcome> {
    const state = row.rollout!;
    const now = isoNow(store.clock);
    const candidate = row.variants.find((v) => v.key === state.candidate)!;
    const figures = { users, guardrails: decision.guardrails };
    const outcome = (action: string, reason: string, step = decision.step): Outcome => ({ action, reason, step, percent: state.steps[step]!.percent, figures });
    const record = (action: string, before: repo.ExperimentRecord, after: repo.ExperimentRecord, reason: string) =>
      changeLog.record(db, projectId, SCHEDULER, {
        action,
        targetType: 'experiment',
        targetId: row.id,
        promptId: row.prompt_id,
        before: toView(before),
        after: { ...toView(after), check_reason: reason },
      });
    switch (decision.action) {
      case 'hold':
        return outcome('hold', decision.reason);
      case 'await_approval': {
        if (state.awaiting_approval) return outcome('hold', decision.reason);
        const updated = { ...row, updated_at: now, rollout: { ...state, awaiting_approval: true } };
        await repo.updateExperiment(db, projectId, updated);
        await record('experiment.awaiting_approval', row, updated, decision.reason);
        return outcome('await_approval', decision.reason);
      }
      case 'advance': {
        const next = state.steps[decision.step]!;
        // Coverage only grows: every user already in a variant keeps it (GrowthBook's ranges).
        const updated = {
          ...row,
          updated_at: now,
          coverage: next.percent / 100,
          rollout: { ...state, step: decision.step, step_started_at: now, evidence_since: now },
        };
        await repo.updateExperiment(db, projectId, updated);
        await record('experiment.advanced', row, updated, decision.reason);
        return outcome('advance', decision.reason);
      }
      case 'pause': {
        // Paused experiments are not checked: a person starts it again (the wait restarts) or stops it.
        const updated: repo.ExperimentRecord = { ...row, status: 'paused', updated_at: now };
        await repo.updateExperiment(db, projectId, updated);
        await record('experiment.paused', row, updated, decision.reason);
        return outcome('pause', decision.reason);
      }
      case 'rollback': {
        const updated: repo.ExperimentRecord = {
          ...row,
          status: 'stopped',
          updated_at: now,
          stopped_at: now,
          ended_as: 'rolled_back',
          end_reason: decision.reason,
        };
        await repo.updateExperiment(db, projectId, updated);
        await record('experiment.rolled_back', row, updated, decision.reason);
        return outcome('rollback', decision.reason);
      }
      case 'ship': {
        const before = await prompts.moveLabel(db, projectId, row.prompt_id, 'production', candidate.version, now);
        await changeLog.record(db, projectId, SCHEDULER, {
          action: 'prompt.label_moved',
          targetType: 'prompt',
          targetId: row.prompt_id,
          before: { label: 'production', version: before },
          after: { label: 'production', version: candidate.version, experiment_id: row.id },
        });
        const updated: repo.ExperimentRecord = {
          ...row,
          status: 'stopped',
          updated_at: now,
          stopped_at: now,
          winner: candidate.key,
          shipped_version: candidate.version,
          ended_as: 'shipped',
          end_reason: decision.reason,
        };
        await repo.updateExperiment(db, projectId, updated);
        await record('experiment.shipped', row, updated, decision.reason);
        return outcome('ship', decision.reason);
      }
    }
  }

  return async (projectId: string, experimentId: string, settle: (db: Sql, outcome: Outcome) => Promise<void>): Promise<Outcome> => {
    const read = await repo.findExperiment(store.sql, projectId, experimentId);
    const measured = read?.status === 'running' && read.rollout !== null ? await facts(projectId, experimentId) : null;
    const result = await store.writer.write(async (db) => {
      const row = await repo.findExperiment(db, projectId, experimentId);
      let done: Outcome;
      if (row === undefined || row.rollout === null || row.status !== 'running' || measured === null) {
        done = idle('Nothing to check: the rollout is not running.');
      } else if (row.rollout.step !== read!.rollout!.step) {
        done = idle('Nothing done: the rollout moved on while this check read its results.');
      } else {
        done = await apply(db, projectId, row, decideRollout(row.rollout, measured, store.clock.now().getTime()), measured.users);
      }
      await settle(db, done);
      return { done, promptId: row?.prompt_id ?? null };
    });
    if (result.promptId !== null && result.done.action !== 'hold' && result.done.action !== 'none') onChange(projectId, result.promptId);
    return result.done;
  };
}
