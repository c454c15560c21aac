import type { Store } from '../../db/store.js';
import type { Sql } from '../../db/sql.js';
import { toPage } from '../../db/pagination.js';
import { isoNow } from '../../lib/clock.js';
import { conflict, Invalid, invalid, invalidIssue, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import * as repo from './experiments.repo.js';
import { toView, transitioned, TRANSITIONS } from './experimentModel.js';
import { typedShape } from './experimentTypes.js';
import { listAllocations } from './bandit.repo.js';
import { historyOf } from './banditState.js';
import {
  assignmentsMayMove,
  checkCandidate,
  checkAssignedVariantsKept,
  checkMetricEvaluators,
  checkVariants,
  declaredMetrics,
  type MetricEvaluators,
  newExperimentRecord,
  patchedControl,
  patchedRecord,
} from './experimentEdits.js';
import type { CreateExperimentInput, ExperimentView, ListExperimentsInput, PatchExperimentInput, StopInput, VariantDef } from './experiments.schemas.js';
import { sampleRatioMismatch } from '../../stats/index.js';
import { SYSTEM_ACTOR, type Actor, type ChangeLog } from '../changes/changeLog.js';
import { checkOverride, checkShip, type ShipCheck } from './shipGuard.js';

/** What the experiments module needs to know of prompts, asked of the prompts service inside its writes. */
export interface PromptFacts {
  promptIsLive(db: Sql, projectId: string, promptId: string): Promise<boolean>;
  versionExists(db: Sql, projectId: string, promptId: string, version: number): Promise<boolean>;
  /** The version a label points at, or null (a rollout's control serves production's). */
  labelVersion(db: Sql, projectId: string, promptId: string, label: string): Promise<number | null>;
  /** Points a label at a version (stop-and-ship moves `production`); answers the version it pointed at before. */
  moveLabel(db: Sql, projectId: string, promptId: string, label: string, version: number, at: string): Promise<number | null>;
}

/** One experiment as the API shows it, read with `db` (the results read it inside their snapshot). */
export async function readExperiment(db: Sql, projectId: string, id: string): Promise<ExperimentView | undefined> {
  const record = await repo.findExperiment(db, projectId, id);
  return record === undefined ? undefined : toView(record);
}

/** The running experiments of every project that the scheduler checks (their type is not ab). */
export const runningCheckedExperiments = (db: Sql): Promise<Array<{ project_id: string; id: string; type: string }>> => repo.runningCheckedExperiments(db);

/** The ids of a project's running experiments (for whoever watches them, like the webhook signals). */
export const runningExperimentIds = (db: Sql, projectId: string): Promise<string[]> => repo.runningExperimentIds(db, projectId);

/** How many experiments run now, and how many of them fail the sample-ratio check (for the operator's metrics). */
export async function runningExperimentsHealth(db: Sql): Promise<{ running: number; srmFlagged: number }> {
  const byExperiment = new Map<string, { type: string; variants: VariantDef[]; counts: Map<string, number> }>();
  for (const row of await repo.runningExposures(db)) {
    const key = `${row.project_id}\u0000${row.id}`;
    const entry = byExperiment.get(key) ?? { type: row.type, variants: JSON.parse(row.variants) as VariantDef[], counts: new Map() };
    if (row.variant !== null) entry.counts.set(row.variant, row.n);
    byExperiment.set(key, entry);
  }
  let srmFlagged = 0;
  for (const { type, variants, counts } of byExperiment.values()) {
    // A bandit's weights move, so its users cannot be checked against today's: its results check each period.
    if (type === 'bandit') continue;
    const srm = sampleRatioMismatch(
      variants.map((v) => counts.get(v.key) ?? 0),
      variants.map((v) => v.weight),
    );
    if (srm.flagged) srmFlagged++;
  }
  return { running: byExperiment.size, srmFlagged };
}

/** Called after every committed change so the serving cache drops what it knew of the prompt. */
export type ExperimentChanged = (projectId: string, promptId: string) => void;

export function createExperimentService(
  store: Store,
  changeLog: ChangeLog,
  prompts: PromptFacts,
  evaluators: MetricEvaluators,
  onChange: ExperimentChanged,
  shipCheck: ShipCheck,
) {
  async function require(db: Sql, projectId: string, id: string): Promise<repo.ExperimentRecord> {
    const row = await repo.findExperiment(db, projectId, id);
    if (row === undefined) throw notFound(`Experiment '${id}' not found`);
    return row;
  }

  async function commit<T extends { prompt_id: string }>(projectId: string, work: (db: Sql) => Promise<T>): Promise<T> {
    const result = await store.writer.write(work);
    onChange(projectId, result.prompt_id);
    return result;
  }

  return {
    async create(projectId: string, input: CreateExperimentInput, actor: Actor = SYSTEM_ACTOR): Promise<ExperimentView> {
      return commit(projectId, async (db) => {
        if (!(await prompts.promptIsLive(db, projectId, input.prompt_id))) throw notFound(`Prompt '${input.prompt_id}' not found`);
        const { metrics, issues } = declaredMetrics(input, []);
        const label = (db: Sql, name: string) => prompts.labelVersion(db, projectId, input.prompt_id, name);
        const shape = await typedShape(db, label, input, metrics, issues);
        const errors = [...issues, ...(await checkMetricEvaluators(db, evaluators, projectId, input.metrics))];
        if (input.type !== 'rollout' && errors.length === 0)
          errors.push(...(await checkVariants(db, prompts, projectId, input.prompt_id, shape.variants, shape.control)));
        if (input.type === 'rollout' && input.candidate_version !== undefined)
          errors.push(...(await checkCandidate(db, prompts, projectId, input.prompt_id, input.candidate_version)));
        if (errors.length > 0) throw new Invalid(errors);
        const id = input.experiment_id ?? newId('exp');
        if (await repo.findExperiment(db, projectId, id)) throw conflict(`Experiment '${id}' already exists`);
        const row = newExperimentRecord(input, shape, id, isoNow(store.clock));
        await repo.insertExperiment(db, projectId, row);
        await changeLog.record(db, projectId, actor, {
          action: 'experiment.created',
          targetType: 'experiment',
          targetId: id,
          promptId: row.prompt_id,
          after: toView(row),
        });
        return toView(row);
      });
    },

    /** One experiment; a bandit's with its allocation history (period 0 from its starting weights until the first check). */
    async get(projectId: string, id: string): Promise<ExperimentView> {
      const record = await require(store.sql, projectId, id);
      if (record.type !== 'bandit') return toView(record);
      const history = historyOf({
        variants: record.variants,
        allocations: await listAllocations(store.sql, projectId, id),
        startedAt: record.started_at ?? record.created_at,
      });
      return { ...toView(record), allocation_history: history };
    },

    async list(projectId: string, query: ListExperimentsInput) {
      return toPage(await repo.listExperiments(store.sql, projectId, { ...query, cursor: query.cursor, limit: query.limit ?? 50 }), toView);
    },

    /**
     * Attribution of an outcome without a run, inside the outcome's write: the
     * user's assignment in the experiment running on the prompt now, else the latest one.
     */
    async attributionFor(db: Sql, projectId: string, promptId: string, userId: string): Promise<{ experimentId: string; variant: string } | null> {
      const found = await repo.findAttributableAssignment(db, projectId, promptId, userId);
      return found ? { experimentId: found.experiment_id, variant: found.variant } : null;
    },

    async patch(projectId: string, id: string, input: PatchExperimentInput, actor: Actor = SYSTEM_ACTOR): Promise<ExperimentView> {
      return commit(projectId, async (db) => {
        const row = await require(db, projectId, id);
        if (row.status !== 'draft' && row.status !== 'paused')
          throw conflict(`Experiment '${id}' is ${row.status}: only draft or paused experiments can change`);
        if (row.type !== 'ab') {
          const fixed = (['variants', 'control', 'coverage'] as const).filter((f) => input[f] !== undefined);
          if (fixed.length > 0) throw new Invalid(fixed.map((f) => invalidIssue('body', [f], `a ${row.type} sets its own ${f}`)));
        }
        const control = patchedControl(row, input);
        const { metrics, issues } = declaredMetrics(input, row.metrics);
        const errors = [
          ...(await checkVariants(db, prompts, projectId, row.prompt_id, input.variants ?? row.variants, control)),
          ...issues,
          ...(await checkMetricEvaluators(db, evaluators, projectId, input.metrics)),
        ];
        if (input.variants) errors.push(...(await checkAssignedVariantsKept(db, projectId, id, input.variants)));
        if (errors.length > 0) throw new Invalid(errors);
        const patched = patchedRecord(row, input, control, metrics, isoNow(store.clock));
        // Once set, the flag stays: the users assigned under the old rules keep their variants.
        const diverge = row.assignments_diverge || (assignmentsMayMove(row, patched) && (await repo.hasAssignments(db, projectId, id)));
        const updated = { ...patched, assignments_diverge: diverge };
        await repo.updateExperiment(db, projectId, updated);
        await changeLog.record(db, projectId, actor, {
          action: 'experiment.updated',
          targetType: 'experiment',
          targetId: id,
          promptId: row.prompt_id,
          before: toView(row),
          after: toView(updated),
        });
        return toView(updated);
      });
    },

    /**
     * start, pause, or stop (optionally naming a winner). Stop with `ship` also moves the prompt's
     * `production` label to the winner's version in the same transaction: the experiment never
     * reads stopped while production still serves the old version, or the other way round.
     */
    async transition(
      projectId: string,
      id: string,
      action: 'start' | 'pause' | 'stop',
      stop: StopInput = {},
      actor: Actor = SYSTEM_ACTOR,
    ): Promise<ExperimentView> {
      const winner = stop.winner ?? null;
      if (stop.ship && winner === null) throw invalid('body', ['ship'], 'ship needs a winner: name the variant whose version goes to production');
      const override = checkOverride(stop);
      if (action === 'stop' && stop.ship && winner !== null && override === null) {
        // The results are read outside the write (a report can take a while); the status is checked again inside it.
        const before = await require(store.sql, projectId, id);
        // A rollout waiting for approval has passed its checks: the approval is the person's ship.
        const approved = before.rollout?.awaiting_approval === true && winner === before.rollout.candidate;
        if (!approved && TRANSITIONS.stop.from.includes(before.status) && before.variants.some((v) => v.key === winner)) {
          checkShip(id, winner, before.control, await shipCheck(projectId, id));
        }
      }
      const overridden = override ?? {};
      return commit(projectId, async (db) => {
        const row = await require(db, projectId, id);
        const rule = TRANSITIONS[action];
        if (!rule.from.includes(row.status)) throw conflict(`Experiment '${id}' is ${row.status}: cannot ${action}`);
        if (row.status === rule.to) return toView(row);
        if (action === 'start') {
          const running = await repo.findRunningExperiment(db, projectId, row.prompt_id);
          if (running) throw conflict(`Experiment '${running.id}' is already running on prompt '${row.prompt_id}'`);
        }
        const won = winner === null ? undefined : row.variants.find((v) => v.key === winner);
        if (winner !== null && won === undefined) throw invalid('body', ['winner'], `winner '${winner}' is not one of the variant keys`);
        const now = isoNow(store.clock);
        const shipped = action === 'stop' && stop.ship && won !== undefined ? won.version : null;
        if (shipped !== null) {
          const before = await prompts.moveLabel(db, projectId, row.prompt_id, 'production', shipped, now);
          await changeLog.record(db, projectId, actor, {
            action: 'prompt.label_moved',
            targetType: 'prompt',
            targetId: row.prompt_id,
            before: { label: 'production', version: before },
            after: { label: 'production', version: shipped, experiment_id: id, ...overridden },
          });
        }
        if (action === 'start' && row.rollout !== null && row.started_at === null) {
          // Control is production's version: a label moved since the create would make it a comparison with the wrong version.
          const production = await prompts.labelVersion(db, projectId, row.prompt_id, 'production');
          const control = row.variants.find((v) => v.key === row.control)!.version;
          if (production !== control)
            throw conflict(`Rollout '${id}' compares with version ${control}, but production now serves ${production ?? 'nothing'}: create the rollout again`);
        }
        const approval = shipped !== null && row.rollout?.awaiting_approval === true && winner === row.rollout.candidate;
        const stopped = transitioned(row, action, winner, shipped, now);
        const updated: repo.ExperimentRecord = approval
          ? {
              ...stopped,
              ended_as: 'shipped',
              end_reason: `Shipped on approval (by ${actor.keyName}): the last step had met its minimums with no guardrail worse.`,
            }
          : stopped;
        await repo.updateExperiment(db, projectId, updated);
        await changeLog.record(db, projectId, actor, {
          action: approval ? 'experiment.shipped' : `experiment.${rule.to === 'running' ? 'started' : rule.to}`,
          targetType: 'experiment',
          targetId: id,
          promptId: row.prompt_id,
          before: toView(row),
          after: action === 'stop' ? { ...toView(updated), ...overridden } : toView(updated),
        });
        return toView(updated);
      });
    },
  };
}

export type ExperimentService = ReturnType<typeof createExperimentService>;
