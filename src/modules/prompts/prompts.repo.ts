import type { Sql } from '../../db/sql.js';
import type { ChatMessage } from '../../lib/chatMessage.js';
import type { Declarations } from './variableDeclarations.js';
import type { ModelConfig } from '../../lib/modelConfig.js';
import { listNewestFirst, mapPage, type ListPage, type ListRequest } from '../../db/pagination.js';

export interface PromptRow {
  prompt_id: string;
  description: string | null;
  created_at: string;
  archived_at: string | null;
  managed_in_git: boolean;
}

/** managed_in_git is a 0/1 integer on both backends (migrations 0019, postgres 0009). */
type StoredPromptRow = Omit<PromptRow, 'managed_in_git'> & { managed_in_git: number | boolean };
const PROMPT_COLUMNS = 'prompt_id, description, created_at, archived_at, managed_in_git';
const decodePrompt = (row: StoredPromptRow): PromptRow => ({ ...row, managed_in_git: Number(row.managed_in_git) === 1 });

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
  /** The typed variables; null: none declared. */
  declared_variables: Declarations | null;
  commit_message: string | null;
  created_at: string;
  /** Where a push of prompt files made it from (docs/prompts-as-code.md); null otherwise. */
  source_path: string | null;
  source_commit: string | null;
  source_author: string | null;
  /** src/promptFiles/hash.ts over the content; null for versions stored before it was kept. */
  content_hash: string | null;
  /** Tools, tool_choice and response_format; null: none set (docs/tools-and-structured-output.md). */
  model_config: ModelConfig | null;
}

interface VersionRow extends Omit<VersionRecord, 'messages' | 'params' | 'fallbacks' | 'variables' | 'declared_variables' | 'model_config'> {
  declared_variables: string | null;
  model_config: string | null;
  messages: string | null;
  params: string;
  fallbacks: string;
  variables: string;
}

const VERSION_COLUMNS =
  'prompt_id, version, template, messages, model, params, fallbacks, variables, declared_variables, commit_message, created_at, source_path, source_commit, source_author, content_hash, model_config';

function decodeVersion(row: VersionRow): VersionRecord {
  return {
    ...row,
    messages: row.messages === null ? null : (JSON.parse(row.messages) as ChatMessage[]),
    params: JSON.parse(row.params) as Record<string, unknown>,
    fallbacks: JSON.parse(row.fallbacks) as string[],
    variables: JSON.parse(row.variables) as string[],
    declared_variables: row.declared_variables === null ? null : (JSON.parse(row.declared_variables) as Declarations),
    model_config: row.model_config === null ? null : (JSON.parse(row.model_config) as ModelConfig),
  };
}

function encodeVersion(record: VersionRecord): VersionRow {
  return {
    ...record,
    messages: record.messages === null ? null : JSON.stringify(record.messages),
    params: JSON.stringify(record.params),
    fallbacks: JSON.stringify(record.fallbacks),
    variables: JSON.stringify(record.variables),
    declared_variables: record.declared_variables === null ? null : JSON.stringify(record.declared_variables),
    model_config: record.model_config === null ? null : JSON.stringify(record.model_config),
  };
}

export async function findPrompt(db: Sql, projectId: string, promptId: string): Promise<PromptRow | undefined> {
  const row = await db.get<StoredPromptRow>(`SELECT ${PROMPT_COLUMNS} FROM prompts WHERE project_id = ? AND prompt_id = ?`, [projectId, promptId]);
  return row === undefined ? undefined : decodePrompt(row);
}

/** Newest first, archived ones only when asked; paged by prompt_id (src/db/pagination.ts). */
export async function listPrompts(
  db: Sql,
  projectId: string,
  q: { includeArchived: boolean; cursor: string | undefined; limit: number },
): Promise<ListPage<PromptRow>> {
  return mapPage(await listNewestFirst<StoredPromptRow>(db, promptListRequest(projectId, q)), decodePrompt);
}

export function promptListRequest(projectId: string, q: { includeArchived: boolean; cursor: string | undefined; limit: number }): ListRequest {
  return {
    table: 'prompts',
    key: 'prompt_id',
    index: 'prompts_created',
    columns: PROMPT_COLUMNS,
    projectId,
    cursor: q.cursor,
    limit: q.limit,
    filters: [{ column: 'archived_at', value: q.includeArchived ? undefined : null }],
  };
}

export async function insertPrompt(db: Sql, projectId: string, row: PromptRow): Promise<void> {
  await db.run('INSERT INTO prompts (project_id, prompt_id, description, created_at, archived_at, managed_in_git) VALUES (?, ?, ?, ?, ?, ?)', [
    projectId,
    row.prompt_id,
    row.description,
    row.created_at,
    row.archived_at,
    row.managed_in_git ? 1 : 0,
  ]);
}

/** The fields PATCH /prompts/{id} sets. */
export async function updatePrompt(
  db: Sql,
  projectId: string,
  promptId: string,
  fields: { description: string | null; managed_in_git: boolean },
): Promise<void> {
  await db.run('UPDATE prompts SET description = ?, managed_in_git = ? WHERE project_id = ? AND prompt_id = ?', [
    fields.description,
    fields.managed_in_git ? 1 : 0,
    projectId,
    promptId,
  ]);
}

export async function archivePrompt(db: Sql, projectId: string, promptId: string, at: string): Promise<void> {
  await db.run('UPDATE prompts SET archived_at = ? WHERE project_id = ? AND prompt_id = ? AND archived_at IS NULL', [at, projectId, promptId]);
}

export async function latestVersionNumber(db: Sql, projectId: string, promptId: string): Promise<number> {
  return (await db.value<number | null>('SELECT max(version) FROM prompt_versions WHERE project_id = ? AND prompt_id = ?', [projectId, promptId])) ?? 0;
}

export async function insertVersion(db: Sql, projectId: string, record: VersionRecord): Promise<void> {
  await db.run(
    `INSERT INTO prompt_versions (project_id, ${VERSION_COLUMNS})
    VALUES (@project_id, @prompt_id, @version, @template, @messages, @model, @params, @fallbacks, @variables, @declared_variables, @commit_message, @created_at,
      @source_path, @source_commit, @source_author, @content_hash, @model_config)`,
    { ...encodeVersion(record), project_id: projectId },
  );
}

export async function findVersion(db: Sql, projectId: string, promptId: string, version: number): Promise<VersionRecord | undefined> {
  const row = await db.get<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM prompt_versions WHERE project_id = ? AND prompt_id = ? AND version = ?`, [
    projectId,
    promptId,
    version,
  ]);
  return row === undefined ? undefined : decodeVersion(row);
}

/**
 * The served version of every live prompt of a project: the one the `production` label points at,
 * else the latest. Prompts without a version are left out. In prompt id order.
 */
export async function listServedVersions(db: Sql, projectId: string): Promise<VersionRecord[]> {
  const columns = VERSION_COLUMNS.split(', ')
    .map((c) => `v.${c}`)
    .join(', ');
  const rows = await db.all<VersionRow>(
    `SELECT ${columns} FROM prompts p
    JOIN prompt_versions v ON v.project_id = p.project_id AND v.prompt_id = p.prompt_id
    LEFT JOIN prompt_labels l ON l.project_id = p.project_id AND l.prompt_id = p.prompt_id AND l.label = 'production'
    WHERE p.project_id = ? AND p.archived_at IS NULL
      AND v.version = COALESCE(l.version, (SELECT max(m.version) FROM prompt_versions m WHERE m.project_id = p.project_id AND m.prompt_id = p.prompt_id))
    ORDER BY p.prompt_id`,
    [projectId],
  );
  return rows.map(decodeVersion);
}

export async function versionExists(db: Sql, projectId: string, promptId: string, version: number): Promise<boolean> {
  return (await db.get('SELECT 1 FROM prompt_versions WHERE project_id = ? AND prompt_id = ? AND version = ?', [projectId, promptId, version])) !== undefined;
}

export async function listVersions(db: Sql, projectId: string, promptId: string): Promise<VersionRecord[]> {
  return (
    await db.all<VersionRow>(`SELECT ${VERSION_COLUMNS} FROM prompt_versions WHERE project_id = ? AND prompt_id = ? ORDER BY version DESC`, [
      projectId,
      promptId,
    ])
  ).map(decodeVersion);
}

export async function listLabels(db: Sql, projectId: string, promptId: string): Promise<Array<{ label: string; version: number }>> {
  return db.all<{ label: string; version: number }>('SELECT label, version FROM prompt_labels WHERE project_id = ? AND prompt_id = ? ORDER BY label', [
    projectId,
    promptId,
  ]);
}

export async function upsertLabel(db: Sql, projectId: string, promptId: string, label: string, version: number, at: string): Promise<void> {
  await db.run(
    `INSERT INTO prompt_labels (project_id, prompt_id, label, version, updated_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (project_id, prompt_id, label) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
    [projectId, promptId, label, version, at],
  );
}

export async function deleteLabel(db: Sql, projectId: string, promptId: string, label: string): Promise<boolean> {
  return (await db.run('DELETE FROM prompt_labels WHERE project_id = ? AND prompt_id = ? AND label = ?', [projectId, promptId, label])).changes > 0;
}

/**
 * The versions of a project whose typed variables or model config hold a regular expression (a
 * `pattern` key, or `patternProperties`), oldest first: the stored-pattern check reads them.
 */
export async function listVersionsWithPatterns(
  db: Sql,
  projectId: string,
): Promise<Array<Pick<VersionRecord, 'prompt_id' | 'version' | 'declared_variables' | 'model_config'>>> {
  const rows = await db.all<Pick<VersionRow, 'prompt_id' | 'version' | 'declared_variables' | 'model_config'>>(
    `SELECT prompt_id, version, declared_variables, model_config FROM prompt_versions
    WHERE project_id = ? AND (declared_variables LIKE '%"pattern"%' OR model_config LIKE '%"pattern%')
    ORDER BY prompt_id, version`,
    [projectId],
  );
  return rows.map((row) => ({
    ...row,
    declared_variables: row.declared_variables === null ? null : (JSON.parse(row.declared_variables) as Declarations),
    model_config: row.model_config === null ? null : (JSON.parse(row.model_config) as ModelConfig),
  }));
}
