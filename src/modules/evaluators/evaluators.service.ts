import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { toPage } from '../../db/pagination.js';
import { isoNow } from '../../lib/clock.js';
import { conflict, invalid, notFound } from '../../lib/errors.js';
import { SYSTEM_ACTOR, type Actor, type ChangeLog } from '../changes/changeLog.js';
import { checkSettings, scaleOf, type Settings } from './evaluatorSettings.js';
import * as repo from './evaluators.repo.js';
import type { CreateEvaluatorInput, EvaluatorKind, EvaluatorVersionView, EvaluatorView, NewEvaluatorVersionInput } from './evaluators.schemas.js';

/** What a judge evaluator needs of prompts: the prompts module's, handed over by services.ts. */
export interface JudgePromptFacts {
  promptIsLive(db: Sql, projectId: string, promptId: string): Promise<boolean>;
  versionExists(db: Sql, projectId: string, promptId: string, version: number): Promise<boolean>;
}

const versionView = (evaluatorId: string, kind: EvaluatorKind, row: repo.EvaluatorVersionRow): EvaluatorVersionView => ({
  evaluator_id: evaluatorId,
  version: row.version,
  kind,
  scale: scaleOf(kind, row.settings),
  settings: row.settings,
  created_at: row.created_at,
});

const evaluatorView = (row: repo.EvaluatorRow, latest: repo.EvaluatorVersionRow): EvaluatorView => ({
  evaluator_id: row.evaluator_id,
  kind: row.kind,
  description: row.description,
  latest_version: versionView(row.evaluator_id, row.kind, latest),
  created_at: row.created_at,
  archived_at: row.archived_at,
});

/** The settings of a body: everything but the evaluator's own fields. */
function settingsOf(body: Record<string, unknown>): Record<string, unknown> {
  const { evaluator_id: _id, description: _description, kind: _kind, ...settings } = body;
  return settings;
}

/**
 * What other modules read of evaluators (handed over by services.ts): a live evaluator's latest
 * version (evaluations, online scoring), and whether the project has an evaluator at all
 * (an experiment's evaluator metric).
 */
export const evaluatorFacts = {
  async evaluatorExists(db: Sql, projectId: string, evaluatorId: string): Promise<boolean> {
    return (await repo.findEvaluator(db, projectId, evaluatorId)) !== undefined;
  },
  async latest(db: Sql, projectId: string, evaluatorId: string) {
    const row = await repo.findEvaluator(db, projectId, evaluatorId);
    if (row === undefined || row.archived_at !== null) return null;
    const latest = await repo.latestVersion(db, projectId, evaluatorId);
    return { evaluator_id: evaluatorId, version: latest.version, kind: row.kind, scale: scaleOf(row.kind, latest.settings), settings: latest.settings };
  },
};

export function createEvaluatorService(store: Store, changeLog: ChangeLog, prompts: JudgePromptFacts) {
  const require = async (db: Sql, projectId: string, evaluatorId: string) => {
    const found = await repo.findEvaluator(db, projectId, evaluatorId);
    if (found === undefined) throw notFound(`Evaluator '${evaluatorId}' not found`);
    return found;
  };

  /** A judge's prompt must exist (and be live) in the project, and so must the version it names. */
  const checkJudge = async (db: Sql, projectId: string, settings: Settings) => {
    const promptId = settings.prompt_id as string;
    if (!(await prompts.promptIsLive(db, projectId, promptId))) throw invalid('body', ['prompt_id'], `no prompt '${promptId}' in this project`);
    const version = settings.version as number | null;
    if (version !== null && !(await prompts.versionExists(db, projectId, promptId, version))) {
      throw invalid('body', ['version'], `prompt '${promptId}' has no version ${version}`);
    }
  };

  return {
    async create(projectId: string, input: CreateEvaluatorInput, actor: Actor = SYSTEM_ACTOR): Promise<EvaluatorView> {
      const settings = checkSettings(input.kind, settingsOf(input));
      const now = isoNow(store.clock);
      const row: repo.EvaluatorRow = {
        evaluator_id: input.evaluator_id,
        kind: input.kind,
        description: input.description ?? null,
        created_at: now,
        archived_at: null,
      };
      const version: repo.EvaluatorVersionRow = { version: 1, settings, created_at: now };
      await store.writer.write(async (db) => {
        if (input.kind === 'llm_judge') await checkJudge(db, projectId, settings);
        if ((await repo.findEvaluator(db, projectId, input.evaluator_id)) !== undefined) throw conflict(`Evaluator '${input.evaluator_id}' already exists`);
        await repo.insertEvaluator(db, projectId, row);
        await repo.insertVersion(db, projectId, row.evaluator_id, version);
        await changeLog.record(db, projectId, actor, {
          action: 'evaluator.created',
          targetType: 'evaluator',
          targetId: row.evaluator_id,
          after: evaluatorView(row, version),
        });
      });
      return evaluatorView(row, version);
    },

    /** An update is a new version of the same kind; earlier versions stay as they were. */
    async newVersion(projectId: string, evaluatorId: string, input: NewEvaluatorVersionInput, actor: Actor = SYSTEM_ACTOR): Promise<EvaluatorVersionView> {
      return store.writer.write(async (db) => {
        const evaluator = await require(db, projectId, evaluatorId);
        if (evaluator.archived_at !== null) throw conflict(`Evaluator '${evaluatorId}' is archived`);
        if (input.kind !== undefined && input.kind !== evaluator.kind) {
          throw invalid('body', ['kind'], `evaluator '${evaluatorId}' is of kind ${evaluator.kind}: a new kind is a new evaluator`);
        }
        const settings = checkSettings(evaluator.kind, settingsOf(input));
        if (evaluator.kind === 'llm_judge') await checkJudge(db, projectId, settings);
        await repo.lockEvaluator(db, projectId, evaluatorId);
        const latest = await repo.latestVersion(db, projectId, evaluatorId);
        const row: repo.EvaluatorVersionRow = { version: latest.version + 1, settings, created_at: isoNow(store.clock) };
        await repo.insertVersion(db, projectId, evaluatorId, row);
        const view = versionView(evaluatorId, evaluator.kind, row);
        await changeLog.record(db, projectId, actor, {
          action: 'evaluator.version_created',
          targetType: 'evaluator',
          targetId: evaluatorId,
          before: versionView(evaluatorId, evaluator.kind, latest),
          after: view,
        });
        return view;
      });
    },

    async list(projectId: string, query: { include_archived?: boolean; cursor?: string; limit?: number }) {
      const page = await repo.listEvaluators(store.sql, projectId, {
        includeArchived: query.include_archived ?? false,
        cursor: query.cursor,
        limit: query.limit ?? 50,
      });
      const latest = await Promise.all(page.rows.map((row) => repo.latestVersion(store.sql, projectId, row.evaluator_id)));
      const byId = new Map(page.rows.map((row, i) => [row.evaluator_id, latest[i]!]));
      return toPage(page, (row) => evaluatorView(row, byId.get(row.evaluator_id)!));
    },

    async get(projectId: string, evaluatorId: string): Promise<EvaluatorView> {
      const row = await require(store.sql, projectId, evaluatorId);
      return evaluatorView(row, await repo.latestVersion(store.sql, projectId, evaluatorId));
    },

    async versions(projectId: string, evaluatorId: string): Promise<{ data: EvaluatorVersionView[] }> {
      const row = await require(store.sql, projectId, evaluatorId);
      return { data: (await repo.listVersions(store.sql, projectId, evaluatorId)).map((v) => versionView(evaluatorId, row.kind, v)) };
    },

    async version(projectId: string, evaluatorId: string, version: number): Promise<EvaluatorVersionView> {
      const row = await require(store.sql, projectId, evaluatorId);
      const found = await repo.findVersion(store.sql, projectId, evaluatorId, version);
      if (found === undefined) throw notFound(`Evaluator '${evaluatorId}' has no version ${version}`);
      return versionView(evaluatorId, row.kind, found);
    },

    /** Archived: still readable, takes no new version. */
    async archive(projectId: string, evaluatorId: string, actor: Actor = SYSTEM_ACTOR): Promise<void> {
      await store.writer.write(async (db) => {
        const before = await require(db, projectId, evaluatorId);
        if (before.archived_at !== null) return;
        const at = isoNow(store.clock);
        await repo.archiveEvaluator(db, projectId, evaluatorId, at);
        await changeLog.record(db, projectId, actor, {
          action: 'evaluator.archived',
          targetType: 'evaluator',
          targetId: evaluatorId,
          after: { archived_at: at },
        });
      });
    },
  };
}

export type EvaluatorService = ReturnType<typeof createEvaluatorService>;
