import { prepared } from '../../db/prepared.js';
import type { Db } from '../../db/open.js';
import type { ChatMessage } from '../../lib/chatMessage.js';
import { listNewestFirst, type ListPage, type ListRequest } from '../../db/pagination.js';

export interface PromptRow {
  prompt_id: string;
  description: string | null;
  created_at: string;
  archived_at: string | null;
}

/** A stored version, its JSON columns decoded (this file is the only one that knows they are JSON). */
export interface VersionRecord {
  prompt_id: string;
  version: number;
  template: string | null;
  messages: ChatMessage[] | null;
  model: string | null;
  params: Record<string, unknown>;
  fallbacks: string[];
  variables: string[];
  commit_message: string | null;
  created_at: string;
}

interface VersionRow extends Omit<VersionRecord, 'messages' | 'params' | 'fallbacks' | 'variables'> {
  messages: string | null;
  params: string;
  fallbacks: string;
  variables: string;
}

const VERSION_COLUMNS = 'prompt_id, version, template, messages, model, params, fallbacks, variables, commit_message, created_at';

function decodeVersion(row: VersionRow): VersionRecord {
  return {
    ...row,
    messages: row.messages === null ? null : (JSON.parse(row.messages) as ChatMessage[]),
    params: JSON.parse(row.params) as Record<string, unknown>,
    fallbacks: JSON.parse(row.fallbacks) as string[],
    variables: JSON.parse(row.variables) as string[],
  };
}

function encodeVersion(record: VersionRecord): VersionRow {
  return {
    ...record,
    messages: record.messages === null ? null : JSON.stringify(record.messages),
    params: JSON.stringify(record.params),
    fallbacks: JSON.stringify(record.fallbacks),
    variables: JSON.stringify(record.variables),
  };
}

export function findPrompt(db: Db, projectId: string, promptId: string): PromptRow | undefined {
  return prepared(db, 'SELECT prompt_id, description, created_at, archived_at FROM prompts WHERE project_id = ? AND prompt_id = ?').get(projectId, promptId) as
    | PromptRow
    | undefined;
}

/** Newest first, archived ones only when asked; paged by prompt_id (src/db/pagination.ts). */
export function listPrompts(db: Db, projectId: string, q: { includeArchived: boolean; cursor: string | undefined; limit: number }): ListPage<PromptRow> {
  return listNewestFirst<PromptRow>(db, promptListRequest(projectId, q));
}

export function promptListRequest(projectId: string, q: { includeArchived: boolean; cursor: string | undefined; limit: number }): ListRequest {
  return {
    table: 'prompts',
    key: 'prompt_id',
    index: 'prompts_created',
    columns: 'prompt_id, description, created_at, archived_at',
    projectId,
    cursor: q.cursor,
    limit: q.limit,
    filters: [{ column: 'archived_at', value: q.includeArchived ? undefined : null }],
  };
}

export function insertPrompt(db: Db, projectId: string, row: PromptRow): void {
  prepared(db, 'INSERT INTO prompts (project_id, prompt_id, description, created_at, archived_at) VALUES (?, ?, ?, ?, ?)').run(
    projectId,
    row.prompt_id,
    row.description,
    row.created_at,
    row.archived_at,
  );
}

export function archivePrompt(db: Db, projectId: string, promptId: string, at: string): void {
  prepared(db, 'UPDATE prompts SET archived_at = ? WHERE project_id = ? AND prompt_id = ? AND archived_at IS NULL').run(at, projectId, promptId);
}

export function latestVersionNumber(db: Db, projectId: string, promptId: string): number {
  return (
    (prepared(db, 'SELECT max(version) FROM prompt_versions WHERE project_id = ? AND prompt_id = ?').pluck().get(projectId, promptId) as number | null) ?? 0
  );
}

export function insertVersion(db: Db, projectId: string, record: VersionRecord): void {
  prepared(
    db,
    `INSERT INTO prompt_versions (project_id, ${VERSION_COLUMNS})
    VALUES (@project_id, @prompt_id, @version, @template, @messages, @model, @params, @fallbacks, @variables, @commit_message, @created_at)`,
  ).run({ ...encodeVersion(record), project_id: projectId });
}

export function findVersion(db: Db, projectId: string, promptId: string, version: number): VersionRecord | undefined {
  const row = prepared(db, `SELECT ${VERSION_COLUMNS} FROM prompt_versions WHERE project_id = ? AND prompt_id = ? AND version = ?`).get(
    projectId,
    promptId,
    version,
  ) as VersionRow | undefined;
  return row === undefined ? undefined : decodeVersion(row);
}

export function versionExists(db: Db, projectId: string, promptId: string, version: number): boolean {
  return prepared(db, 'SELECT 1 FROM prompt_versions WHERE project_id = ? AND prompt_id = ? AND version = ?').get(projectId, promptId, version) !== undefined;
}

export function listVersions(db: Db, projectId: string, promptId: string): VersionRecord[] {
  return (
    prepared(db, `SELECT ${VERSION_COLUMNS} FROM prompt_versions WHERE project_id = ? AND prompt_id = ? ORDER BY version DESC`).all(
      projectId,
      promptId,
    ) as VersionRow[]
  ).map(decodeVersion);
}

export function listLabels(db: Db, projectId: string, promptId: string): Array<{ label: string; version: number }> {
  return prepared(db, 'SELECT label, version FROM prompt_labels WHERE project_id = ? AND prompt_id = ? ORDER BY label').all(projectId, promptId) as Array<{
    label: string;
    version: number;
  }>;
}

export function upsertLabel(db: Db, projectId: string, promptId: string, label: string, version: number, at: string): void {
  prepared(
    db,
    `INSERT INTO prompt_labels (project_id, prompt_id, label, version, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (project_id, prompt_id, label) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
  ).run(projectId, promptId, label, version, at);
}

export function deleteLabel(db: Db, projectId: string, promptId: string, label: string): boolean {
  return prepared(db, 'DELETE FROM prompt_labels WHERE project_id = ? AND prompt_id = ? AND label = ?').run(projectId, promptId, label).changes > 0;
}
