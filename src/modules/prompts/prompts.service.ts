import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { toPage } from '../../db/pagination.js';
import { isoNow } from '../../lib/clock.js';
import { conflict, invalid, notFound } from '../../lib/errors.js';
import type { CreatePromptInput, PromptPatch, PromptView, VersionInput, VersionView } from './prompts.schemas.js';
import { checkVersionContent } from './versionContent.js';
import { versionChecksOffLoop } from './modelConfigOffLoop.js';
import type { PromptCache } from './promptCache.js';
import type { RenderLimits } from './template.js';
import * as repo from './prompts.repo.js';
import { SYSTEM_ACTOR, type Actor, type ChangeLog } from '../changes/changeLog.js';
import { contentHashOf } from './versionHash.js';
import type { PromptBatch } from './promptBatch.js';

/** What other modules may ask of prompts inside their own writes (an experiment naming versions). */
export const promptFacts = {
  async promptIsLive(db: Sql, projectId: string, promptId: string): Promise<boolean> {
    const prompt = await repo.findPrompt(db, projectId, promptId);
    return prompt !== undefined && prompt.archived_at === null;
  },
  versionExists: (db: Sql, projectId: string, promptId: string, version: number): Promise<boolean> => repo.versionExists(db, projectId, promptId, version),
  /** The version a label points at, or null (a rollout's control serves production's). */
  async labelVersion(db: Sql, projectId: string, promptId: string, label: string): Promise<number | null> {
    return (await repo.listLabels(db, projectId, promptId)).find((l) => l.label === label)?.version ?? null;
  },
  /** The newest version's number (0 without versions). */
  latestVersion: (db: Sql, projectId: string, promptId: string): Promise<number> => repo.latestVersionNumber(db, projectId, promptId),
  /** Points a label at a version; answers the version it pointed at before (null: a new label). */
  async moveLabel(db: Sql, projectId: string, promptId: string, label: string, version: number, at: string): Promise<number | null> {
    const before = (await repo.listLabels(db, projectId, promptId)).find((l) => l.label === label)?.version ?? null;
    await repo.upsertLabel(db, projectId, promptId, label, version, at);
    return before;
  },
};

type Checked = ReturnType<typeof checkVersionContent>;

function sourceOf(record: repo.VersionRecord): VersionView['source'] {
  if (record.source_path === null && record.source_commit === null && record.source_author === null) return null;
  return { path: record.source_path, commit: record.source_commit, author: record.source_author };
}

export function createPromptService(
  store: Store,
  changeLog: ChangeLog,
  cache: PromptCache,
  isModelConfigured: (model: string) => boolean,
  limits: RenderLimits,
) {
  async function view(db: Sql, projectId: string, row: repo.PromptRow): Promise<PromptView> {
    const labels = Object.fromEntries((await repo.listLabels(db, projectId, row.prompt_id)).map((l) => [l.label, l.version]));
    const latest = await repo.latestVersionNumber(db, projectId, row.prompt_id);
    return { ...row, latest_version: latest > 0 ? latest : null, labels };
  }

  async function versionView(db: Sql, projectId: string, record: repo.VersionRecord): Promise<VersionView> {
    const labels = (await repo.listLabels(db, projectId, record.prompt_id)).filter((l) => l.version === record.version).map((l) => l.label);
    return {
      prompt_id: record.prompt_id,
      version: record.version,
      type: record.messages === null ? 'text' : 'chat',
      template: record.template,
      messages: record.messages,
      model: record.model,
      params: record.params,
      fallbacks: record.fallbacks,
      ...record.model_config,
      variables: record.variables,
      declared_variables: record.declared_variables,
      commit_message: record.commit_message,
      labels,
      created_at: record.created_at,
      source: sourceOf(record),
    };
  }

  async function requirePrompt(db: Sql, projectId: string, promptId: string, options: { allowArchived: boolean }): Promise<repo.PromptRow> {
    const prompt = await repo.findPrompt(db, projectId, promptId);
    if (prompt === undefined || (!options.allowArchived && prompt.archived_at !== null)) throw notFound(`Prompt '${promptId}' not found`);
    return prompt;
  }

  /** Inside the writer's transaction: numbers the version, stores it, moves its labels. */
  /** `hash`: the content hash, when computed already (off the event loop: modelConfigOffLoop.ts). */
  async function addVersion(
    db: Sql,
    projectId: string,
    promptId: string,
    input: VersionInput,
    checked: Checked,
    hash = contentHashOf(input),
  ): Promise<repo.VersionRecord> {
    const now = isoNow(store.clock);
    const row: repo.VersionRecord = {
      prompt_id: promptId,
      version: (await repo.latestVersionNumber(db, projectId, promptId)) + 1,
      template: input.template ?? null,
      messages: input.messages ?? null,
      model: input.model ?? null,
      params: input.params ?? {},
      fallbacks: input.fallbacks ?? [],
      variables: checked.variables,
      declared_variables: checked.declared,
      commit_message: input.commit_message ?? null,
      created_at: now,
      source_path: input.source?.path ?? null,
      source_commit: input.source?.commit ?? null,
      source_author: input.source?.author ?? null,
      content_hash: hash,
      model_config: checked.modelConfig,
    };
    await repo.insertVersion(db, projectId, row);
    for (const label of new Set(input.labels ?? [])) await repo.upsertLabel(db, projectId, promptId, label, row.version, now);
    return row;
  }

  const hasContent = (input: VersionInput) => input.template !== undefined || input.messages !== undefined;

  async function createIn(db: Sql, projectId: string, input: CreatePromptInput, checked: Checked | null, actor: Actor, hash?: string) {
    if (await repo.findPrompt(db, projectId, input.prompt_id)) throw conflict(`Prompt '${input.prompt_id}' already exists`);
    const row: repo.PromptRow = {
      prompt_id: input.prompt_id,
      description: input.description ?? null,
      created_at: isoNow(store.clock),
      archived_at: null,
      managed_in_git: false,
    };
    await repo.insertPrompt(db, projectId, row);
    const version = checked ? await addVersion(db, projectId, input.prompt_id, input, checked, hash) : null;
    const created = { ...(await view(db, projectId, row)), version: version ? await versionView(db, projectId, version) : null };
    await changeLog.record(db, projectId, actor, { action: 'prompt.created', targetType: 'prompt', targetId: input.prompt_id, after: created });
    return created;
  }

  async function updateIn(db: Sql, projectId: string, promptId: string, patch: PromptPatch, actor: Actor) {
    const found = await requirePrompt(db, projectId, promptId, { allowArchived: true });
    const before = await view(db, projectId, found);
    const updated: repo.PromptRow = {
      ...found,
      description: patch.description !== undefined ? patch.description : found.description,
      managed_in_git: patch.managed_in_git ?? found.managed_in_git,
    };
    await repo.updatePrompt(db, projectId, promptId, updated);
    const after = await view(db, projectId, updated);
    await changeLog.record(db, projectId, actor, { action: 'prompt.updated', targetType: 'prompt', targetId: promptId, before, after });
    return after;
  }

  async function createVersionIn(db: Sql, projectId: string, promptId: string, input: VersionInput, checked: Checked, actor: Actor, hash?: string) {
    await requirePrompt(db, projectId, promptId, { allowArchived: false });
    const created = await versionView(db, projectId, await addVersion(db, projectId, promptId, input, checked, hash));
    await changeLog.record(db, projectId, actor, { action: 'prompt.version_created', targetType: 'prompt', targetId: promptId, after: created });
    return created;
  }

  async function moveLabelIn(db: Sql, projectId: string, promptId: string, label: string, version: number, actor: Actor) {
    const prompt = await requirePrompt(db, projectId, promptId, { allowArchived: false });
    if (!(await repo.versionExists(db, projectId, promptId, version))) throw invalid('body', ['version'], `prompt '${promptId}' has no version ${version}`);
    const before = await promptFacts.moveLabel(db, projectId, promptId, label, version, isoNow(store.clock));
    await changeLog.record(db, projectId, actor, {
      action: 'prompt.label_moved',
      targetType: 'prompt',
      targetId: promptId,
      before: { label, version: before },
      after: { label, version },
    });
    return view(db, projectId, prompt);
  }

  return {
    async create(projectId: string, input: CreatePromptInput, actor: Actor = SYSTEM_ACTOR): Promise<PromptView & { version: VersionView | null }> {
      const checks = hasContent(input) ? await versionChecksOffLoop(input) : null;
      const checked = checks === null ? null : checkVersionContent(input, isModelConfigured, limits, checks.model);
      if (!checked && input.labels?.length) throw invalid('body', ['labels'], 'labels need a version: give a template or messages');
      if (!checked && input.variables !== undefined) throw invalid('body', ['variables'], 'variables belong to a version: give a template or messages');
      const result = await store.writer.write((db) => createIn(db, projectId, input, checked, actor, checks?.hash));
      cache.invalidate(projectId, input.prompt_id);
      return result;
    },

    async list(
      projectId: string,
      query: { limit?: number; cursor?: string; include_archived?: boolean },
    ): Promise<{ data: PromptView[]; next_cursor: string | null }> {
      const page = await repo.listPrompts(store.sql, projectId, {
        includeArchived: query.include_archived ?? false,
        cursor: query.cursor,
        limit: query.limit ?? 50,
      });
      const views: PromptView[] = [];
      for (const row of page.rows) views.push(await view(store.sql, projectId, row));
      return toPage({ rows: views, nextCursor: page.nextCursor }, (v) => v);
    },

    async get(projectId: string, promptId: string): Promise<PromptView> {
      return view(store.sql, projectId, await requirePrompt(store.sql, projectId, promptId, { allowArchived: true }));
    },

    async archive(projectId: string, promptId: string, actor: Actor = SYSTEM_ACTOR): Promise<void> {
      await store.writer.write(async (db) => {
        const before = await view(db, projectId, await requirePrompt(db, projectId, promptId, { allowArchived: true }));
        await repo.archivePrompt(db, projectId, promptId, isoNow(store.clock));
        const after = await view(db, projectId, await requirePrompt(db, projectId, promptId, { allowArchived: true }));
        await changeLog.record(db, projectId, actor, { action: 'prompt.archived', targetType: 'prompt', targetId: promptId, before, after });
      });
      cache.invalidate(projectId, promptId);
    },

    /** Marks the prompt managed in Git (or not), or changes its description; archived prompts too. */
    async update(projectId: string, promptId: string, patch: PromptPatch, actor: Actor = SYSTEM_ACTOR): Promise<PromptView> {
      // Another project's prompt answers 404 whatever the body says, as every route naming one does.
      await requirePrompt(store.sql, projectId, promptId, { allowArchived: true });
      if (patch.managed_in_git === undefined && patch.description === undefined) {
        throw invalid('body', [], 'give at least one of managed_in_git, description');
      }
      const result = await store.writer.write((db) => updateIn(db, projectId, promptId, patch, actor));
      cache.invalidate(projectId, promptId);
      return result;
    },

    async createVersion(projectId: string, promptId: string, input: VersionInput, actor: Actor = SYSTEM_ACTOR): Promise<VersionView> {
      await requirePrompt(store.sql, projectId, promptId, { allowArchived: false });
      const checks = await versionChecksOffLoop(input);
      const checked = checkVersionContent(input, isModelConfigured, limits, checks.model);
      const result = await store.writer.write((db) => createVersionIn(db, projectId, promptId, input, checked, actor, checks.hash));
      cache.invalidate(projectId, promptId);
      return result;
    },

    async listVersions(projectId: string, promptId: string): Promise<VersionView[]> {
      await requirePrompt(store.sql, projectId, promptId, { allowArchived: true });
      const views: VersionView[] = [];
      for (const row of await repo.listVersions(store.sql, projectId, promptId)) views.push(await versionView(store.sql, projectId, row));
      return views;
    },

    async getVersion(projectId: string, promptId: string, version: number): Promise<VersionView> {
      await requirePrompt(store.sql, projectId, promptId, { allowArchived: true });
      const row = await repo.findVersion(store.sql, projectId, promptId, version);
      if (row === undefined) throw notFound(`Version ${version} of prompt '${promptId}' not found`);
      return versionView(store.sql, projectId, row);
    },

    async moveLabel(projectId: string, promptId: string, label: string, version: number, actor: Actor = SYSTEM_ACTOR): Promise<PromptView> {
      const result = await store.writer.write((db) => moveLabelIn(db, projectId, promptId, label, version, actor));
      cache.invalidate(projectId, promptId);
      return result;
    },

    /** Checks a version's content as createVersion would, without storing anything (a push checks every file first). */
    checkContent(input: VersionInput): void {
      checkVersionContent(input, isModelConfigured, limits);
    },

    /**
     * Runs `work` in one write transaction with the writes a push makes (docs/prompts-as-code.md):
     * all of them are kept, or, when it throws, none. Each records its change as the single calls do.
     */
    async batch<T>(projectId: string, work: (ops: PromptBatch) => Promise<T>): Promise<T> {
      const touched = new Set<string>();
      try {
        return await store.writer.write((db) =>
          work({
            db,
            async read(promptId) {
              const labels = Object.fromEntries((await repo.listLabels(db, projectId, promptId)).map((l) => [l.label, l.version]));
              return { prompt: await repo.findPrompt(db, projectId, promptId), versions: await repo.listVersions(db, projectId, promptId), labels };
            },
            async create(input, actor) {
              touched.add(input.prompt_id);
              return createIn(db, projectId, input, checkVersionContent(input, isModelConfigured, limits), actor);
            },
            async createVersion(promptId, input, actor) {
              touched.add(promptId);
              return createVersionIn(db, projectId, promptId, input, checkVersionContent(input, isModelConfigured, limits), actor);
            },
            async moveLabel(promptId, label, version, actor) {
              touched.add(promptId);
              return moveLabelIn(db, projectId, promptId, label, version, actor);
            },
            async markManagedInGit(promptId, actor) {
              if ((await repo.findPrompt(db, projectId, promptId))?.managed_in_git !== false) return;
              touched.add(promptId);
              await updateIn(db, projectId, promptId, { managed_in_git: true }, actor);
            },
          }),
        );
      } finally {
        for (const promptId of touched) cache.invalidate(projectId, promptId);
      }
    },

    async deleteLabel(projectId: string, promptId: string, label: string, actor: Actor = SYSTEM_ACTOR): Promise<void> {
      await store.writer.write(async (db) => {
        await requirePrompt(db, projectId, promptId, { allowArchived: false });
        const version = (await repo.listLabels(db, projectId, promptId)).find((l) => l.label === label)?.version;
        if (!(await repo.deleteLabel(db, projectId, promptId, label))) throw notFound(`Label '${label}' not found on prompt '${promptId}'`);
        await changeLog.record(db, projectId, actor, {
          action: 'prompt.label_deleted',
          targetType: 'prompt',
          targetId: promptId,
          before: { label, version },
        });
      });
      cache.invalidate(projectId, promptId);
    },
  };
}

export type PromptService = ReturnType<typeof createPromptService>;
