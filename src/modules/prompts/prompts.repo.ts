import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/open.js';

export interface PromptRow {
  prompt_id: string;
  description: string | null;
  created_at: string;
  archived_at: string | null;
}

export interface VersionRow {
  prompt_id: string;
  version: number;
  template: string | null;
  messages: string | null;
  model: string | null;
  params: string;
  fallbacks: string;
  variables: string;
  commit_message: string | null;
  created_at: string;
}

const VERSION_COLUMNS = 'prompt_id, version, template, messages, model, params, fallbacks, variables, commit_message, created_at';

export function findPrompt(db: Db, projectId: string, promptId: string): PromptRow | undefined {
  return prepared(db, 'SELECT prompt_id, description, created_at, archived_at FROM prompts WHERE project_id = ? AND prompt_id = ?')
    .get(projectId, promptId) as PromptRow | undefined;
}

/** Newest first; the cursor is the (created_at, prompt_id) of the last row already seen. */
export function listPrompts(db: Db, projectId: string, opts: { limit: number; after?: [string, string]; includeArchived: boolean }): PromptRow[] {
  const archived = opts.includeArchived ? '' : 'AND archived_at IS NULL';
  const cursor = opts.after ? 'AND (created_at, prompt_id) < (?, ?)' : '';
  const args: unknown[] = [projectId, ...(opts.after ?? []), opts.limit];
  return prepared(db, `SELECT prompt_id, description, created_at, archived_at FROM prompts
      WHERE project_id = ? ${archived} ${cursor} ORDER BY created_at DESC, prompt_id DESC LIMIT ?`)
    .all(...args) as PromptRow[];
}

export function insertPrompt(db: Db, projectId: string, row: PromptRow): void {
  prepared(db, 'INSERT INTO prompts (project_id, prompt_id, description, created_at, archived_at) VALUES (?, ?, ?, ?, ?)')
    .run(projectId, row.prompt_id, row.description, row.created_at, row.archived_at);
}

export function archivePrompt(db: Db, projectId: string, promptId: string, at: string): void {
  prepared(db, 'UPDATE prompts SET archived_at = ? WHERE project_id = ? AND prompt_id = ? AND archived_at IS NULL').run(at, projectId, promptId);
}

export function latestVersionNumber(db: Db, projectId: string, promptId: string): number {
  return (prepared(db, 'SELECT max(version) FROM prompt_versions WHERE project_id = ? AND prompt_id = ?').pluck().get(projectId, promptId) as number | null) ?? 0;
}

export function insertVersion(db: Db, projectId: string, row: VersionRow): void {
  prepared(db, `INSERT INTO prompt_versions (project_id, ${VERSION_COLUMNS})
    VALUES (@project_id, @prompt_id, @version, @template, @messages, @model, @params, @fallbacks, @variables, @commit_message, @created_at)`)
    .run({ ...row, project_id: projectId });
}

export function findVersion(db: Db, projectId: string, promptId: string, version: number): VersionRow | undefined {
  return prepared(db, `SELECT ${VERSION_COLUMNS} FROM prompt_versions WHERE project_id = ? AND prompt_id = ? AND version = ?`)
    .get(projectId, promptId, version) as VersionRow | undefined;
}

export function listVersions(db: Db, projectId: string, promptId: string): VersionRow[] {
  return prepared(db, `SELECT ${VERSION_COLUMNS} FROM prompt_versions WHERE project_id = ? AND prompt_id = ? ORDER BY version DESC`)
    .all(projectId, promptId) as VersionRow[];
}

export function listLabels(db: Db, projectId: string, promptId: string): Array<{ label: string; version: number }> {
  return prepared(db, 'SELECT label, version FROM prompt_labels WHERE project_id = ? AND prompt_id = ? ORDER BY label')
    .all(projectId, promptId) as Array<{ label: string; version: number }>;
}

export function upsertLabel(db: Db, projectId: string, promptId: string, label: string, version: number, at: string): void {
  prepared(db, `INSERT INTO prompt_labels (project_id, prompt_id, label, version, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (project_id, prompt_id, label) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`)
    .run(projectId, promptId, label, version, at);
}

export function deleteLabel(db: Db, projectId: string, promptId: string, label: string): boolean {
  return prepared(db, 'DELETE FROM prompt_labels WHERE project_id = ? AND prompt_id = ? AND label = ?').run(projectId, promptId, label).changes > 0;
}
