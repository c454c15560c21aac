import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import { conflict, invalid, notFound } from '../../lib/errors.js';
import { nanoToUsd } from '../../providers/prices.js';
import { SYSTEM_ACTOR, type Actor, type ChangeLog } from '../changes/changeLog.js';
import type { EvaluatorKind } from '../evaluators/evaluators.schemas.js';
import * as repo from './onlineScoring.repo.js';
import type { AttachInput, OnlineEvaluatorView } from './onlineScoring.schemas.js';

/** What attaching needs of prompts: the prompts module's, handed over by services.ts. */
export interface PromptFacts {
  promptIsLive(db: Sql, projectId: string, promptId: string): Promise<boolean>;
}

/** A live (not archived) evaluator's latest version, null for none: the evaluators module's, handed over by the composition root. */
export interface EvaluatorFacts {
  latest(db: Sql, projectId: string, evaluatorId: string): Promise<{ kind: EvaluatorKind; version: number; settings: Record<string, unknown> } | null>;
}

/**
 * Why an evaluator cannot score live runs, or null when it can. A live run has an output and no
 * expected answer, so only kinds that judge the output alone make sense online. A judge is called
 * with an empty `expected` (onlineJudge.ts); each run it scores costs its model calls.
 */
function offlineOnly(kind: EvaluatorKind, settings: Record<string, unknown>): string | null {
  switch (kind) {
    case 'regex':
    case 'json_schema':
    case 'length':
    case 'llm_judge':
      return null;
    case 'contains':
      return settings.value === undefined ? "a contains evaluator without a value compares with an item's expected text, which a live run has not" : null;
    case 'exact_match':
    case 'numeric':
      return `a ${kind} evaluator compares with an item's expected value, which a live run has not`;
  }
}

const view = (row: repo.AttachmentRow): OnlineEvaluatorView => ({ ...row, sample_rate: Number(row.sample_rate) });

export function createOnlineScoringService(store: Store, changeLog: ChangeLog, prompts: PromptFacts, evaluators: EvaluatorFacts) {
  const requirePrompt = async (db: Sql, projectId: string, promptId: string) => {
    if (!(await prompts.promptIsLive(db, projectId, promptId))) throw notFound(`Prompt '${promptId}' not found`);
  };

  return {
    async attach(projectId: string, promptId: string, input: AttachInput, actor: Actor = SYSTEM_ACTOR): Promise<OnlineEvaluatorView> {
      return store.writer.write(async (db) => {
        await requirePrompt(db, projectId, promptId);
        const evaluator = await evaluators.latest(db, projectId, input.evaluator_id);
        if (evaluator === null) throw invalid('body', ['evaluator_id'], `no evaluator '${input.evaluator_id}' in this project, or it is archived`);
        const why = offlineOnly(evaluator.kind, evaluator.settings);
        if (why !== null) throw invalid('body', ['evaluator_id'], why);
        if ((await repo.findAttachment(db, projectId, promptId, input.evaluator_id)) !== undefined) {
          throw conflict(`Evaluator '${input.evaluator_id}' is already attached to prompt '${promptId}': detach it first to change its rate`);
        }
        const row: repo.AttachmentRow = {
          prompt_id: promptId,
          evaluator_id: input.evaluator_id,
          sample_rate: input.sample_rate,
          created_at: isoNow(store.clock),
        };
        await repo.insertAttachment(db, projectId, row);
        await changeLog.record(db, projectId, actor, {
          action: 'prompt.online_evaluator_attached',
          targetType: 'prompt',
          targetId: promptId,
          after: view(row),
        });
        return view(row);
      });
    },

    async list(projectId: string, promptId: string): Promise<{ data: OnlineEvaluatorView[] }> {
      await requirePrompt(store.sql, projectId, promptId);
      return { data: (await repo.listAttachments(store.sql, projectId, promptId)).map(view) };
    },

    /** Scores already stored stay: they still say what was measured on those runs. */
    async detach(projectId: string, promptId: string, evaluatorId: string, actor: Actor = SYSTEM_ACTOR): Promise<void> {
      await store.writer.write(async (db) => {
        await requirePrompt(db, projectId, promptId);
        const row = await repo.findAttachment(db, projectId, promptId, evaluatorId);
        if (row === undefined || !(await repo.deleteAttachment(db, projectId, promptId, evaluatorId))) {
          throw notFound(`Evaluator '${evaluatorId}' is not attached to prompt '${promptId}'`);
        }
        await changeLog.record(db, projectId, actor, {
          action: 'prompt.online_evaluator_detached',
          targetType: 'prompt',
          targetId: promptId,
          before: view(row),
        });
      });
    },

    async scoresOfRun(projectId: string, runId: string) {
      if (!(await repo.runExists(store.sql, projectId, runId))) throw notFound(`Run '${runId}' not found`);
      return {
        run_id: runId,
        data: (await repo.scoresOfRun(store.sql, projectId, runId)).map(({ run_id: _r, cost_nano_usd, ...rest }) => ({
          ...rest,
          cost_usd: nanoToUsd(cost_nano_usd),
        })),
      };
    },
  };
}

export type OnlineScoringService = ReturnType<typeof createOnlineScoringService>;
