import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import type { ChangeLog } from '../changes/changeLog.js';
import { idle, type Outcome, SCHEDULER } from './checkOutcome.js';
import { insertAllocation, listAllocations, type AllocationRecord } from './bandit.repo.js';
import { DEFAULT_BANDIT_SETTINGS } from './bandit.schemas.js';
import { decideBandit, type BanditDecision } from './banditDecision.js';
import { guardrailChecks, type BanditGuardrailFacts } from './banditGuardrails.js';
import { readBanditInputs } from './banditReads.js';
import { historyOf } from './banditState.js';
import * as repo from './experiments.repo.js';
import { toView } from './experimentModel.js';
import type { ExperimentChanged, PromptFacts } from './experiments.service.js';

/**
 * The experiments module's port to the results (which it must not import): each guardrail's sums per
 * variant, from the report the API shows. Wired in services.ts.
 */
export type BanditGuardrails = (projectId: string, experimentId: string) => Promise<BanditGuardrailFacts>;

/**
 * A bandit's check (the scheduler's check function for type bandit, docs/rollouts-and-bandits.md,
 * "Bandits"): reads the guardrails and each arm's users and outcomes per period outside any write,
 * decides (banditDecision.ts), then in one write checks that no other check got there first, starts
 * the next period with the new weights (stored on the variants, so new users follow them while
 * assigned users keep theirs) or stops and ships the winner, and lets the scheduler settle the check
 * in that same transaction.
 */
export function createBanditCheck(
  store: Store,
  changeLog: ChangeLog,
  prompts: Pick<PromptFacts, 'moveLabel'>,
  guardrails: BanditGuardrails,
  onChange: ExperimentChanged,
) {
  async function apply(
    db: Sql,
    projectId: string,
    row: repo.ExperimentRecord,
    history: AllocationRecord[],
    firstCheck: boolean,
    d: BanditDecision,
  ): Promise<Outcome> {
    const now = isoNow(store.clock);
    const figures = { weights: d.weights, p_best: d.pBest, dropped: d.dropped, newly_dropped: d.newlyDropped };
    const record = (action: string, before: repo.ExperimentRecord, after: repo.ExperimentRecord) =>
      changeLog.record(db, projectId, SCHEDULER, {
        action,
        targetType: 'experiment',
        targetId: row.id,
        promptId: row.prompt_id,
        before: toView(before),
        after: { ...toView(after), check_reason: d.reason, p_best: d.pBest },
      });
    if (d.action === 'ship') {
      const winner = row.variants.find((v) => v.key === d.winner)!;
      const before = await prompts.moveLabel(db, projectId, row.prompt_id, 'production', winner.version, now);
      await changeLog.record(db, projectId, SCHEDULER, {
        action: 'prompt.label_moved',
        targetType: 'prompt',
        targetId: row.prompt_id,
        before: { label: 'production', version: before },
        after: { label: 'production', version: winner.version, experiment_id: row.id },
      });
      const updated: repo.ExperimentRecord = {
        ...row,
        status: 'stopped',
        updated_at: now,
        stopped_at: now,
        winner: winner.key,
        shipped_version: winner.version,
        ended_as: 'shipped',
        end_reason: d.reason,
      };
      await repo.updateExperiment(db, projectId, updated);
      await record('experiment.shipped', row, updated);
      return { action: 'ship', reason: d.reason, step: null, percent: null, figures };
    }
    // Period 0 (the starting weights) is written with the first check, so the stored history is complete.
    if (firstCheck) await insertAllocation(db, projectId, row.id, history[0]!);
    await insertAllocation(db, projectId, row.id, { period: history.length, started_at: now, weights: d.weights, p_best: d.pBest, dropped: d.dropped });
    const updated: repo.ExperimentRecord = {
      ...row,
      updated_at: now,
      variants: row.variants.map((v) => ({ ...v, weight: d.weights[v.key] ?? 0 })),
      // Users already assigned may now hash elsewhere: SDKs must ask the server for them (remote_only).
      assignments_diverge: true,
    };
    await repo.updateExperiment(db, projectId, updated);
    await record('experiment.reweighted', row, updated);
    return { action: 'reweight', reason: d.reason, step: null, percent: null, figures };
  }

  return async (projectId: string, experimentId: string, settle: (db: Sql, outcome: Outcome) => Promise<void>): Promise<Outcome> => {
    const read = await repo.findExperiment(store.sql, projectId, experimentId);
    const running = read?.status === 'running' && read.type === 'bandit';
    const checked = running
      ? guardrailChecks(
          await guardrails(projectId, experimentId),
          read.variants.map((v) => v.key),
        )
      : { failing: [], unknown: [] };
    const inputs = running ? await readBanditInputs(store.sql, projectId, read) : null;
    const result = await store.writer.write(async (db) => {
      const row = await repo.findExperiment(db, projectId, experimentId);
      let done: Outcome;
      if (row === undefined || row.type !== 'bandit' || row.status !== 'running') {
        done = idle('Nothing to check: the bandit is not running.');
      } else if (inputs === null) {
        done = idle('Nothing to check: the bandit has no primary outcome metric (success_rate or mean) to re-weight on.');
      } else if ((await listAllocations(db, projectId, experimentId)).length !== inputs.allocations.length) {
        done = idle('Nothing done: another check re-weighted the bandit while this one read its results.');
      } else {
        const current = { ...inputs, variants: row.variants };
        const decision = decideBandit(current, row.bandit ?? DEFAULT_BANDIT_SETTINGS, checked.failing, store.clock.now().getTime(), checked.unknown);
        done = await apply(db, projectId, row, historyOf(current), inputs.allocations.length === 0, decision);
      }
      await settle(db, done);
      return { done, promptId: row?.prompt_id ?? null };
    });
    if (result.promptId !== null && result.done.action !== 'none') onChange(projectId, result.promptId);
    return result.done;
  };
}
