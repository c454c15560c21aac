import type { Sql } from '../../db/sql.js';
import { listNewestFirst, type ListPage } from '../../db/pagination.js';

export interface DatasetRow {
  dataset_id: string;
  description: string | null;
  created_at: string;
  archived_at: string | null;
}

const DATASET_COLUMNS = 'dataset_id, description, created_at, archived_at';

export async function findDataset(db: Sql, projectId: string, datasetId: string): Promise<DatasetRow | undefined> {
  return db.get<DatasetRow>(`SELECT ${DATASET_COLUMNS} FROM datasets WHERE project_id = ? AND dataset_id = ?`, [projectId, datasetId]);
}

export async function insertDataset(db: Sql, projectId: string, row: DatasetRow): Promise<void> {
  await db.run('INSERT INTO datasets (project_id, dataset_id, description, created_at, archived_at) VALUES (?, ?, ?, ?, ?)', [
    projectId,
    row.dataset_id,
    row.description,
    row.created_at,
    row.archived_at,
  ]);
}

export async function archiveDataset(db: Sql, projectId: string, datasetId: string, at: string): Promise<void> {
  await db.run('UPDATE datasets SET archived_at = ? WHERE project_id = ? AND dataset_id = ? AND archived_at IS NULL', [at, projectId, datasetId]);
}

export async function listDatasets(
  db: Sql,
  projectId: string,
  q: { includeArchived: boolean; cursor: string | undefined; limit: number },
): Promise<ListPage<DatasetRow>> {
  return listNewestFirst<DatasetRow>(db, {
    table: 'datasets',
    key: 'dataset_id',
    index: 'datasets_created',
    columns: DATASET_COLUMNS,
    projectId,
    cursor: q.cursor,
    limit: q.limit,
    filters: [{ column: 'archived_at', value: q.includeArchived ? undefined : null }],
  });
}

export interface VersionRow {
  version: number;
  source: 'append' | 'replace' | 'delete' | 'from_runs';
  item_count: number;
  added: number;
  removed: number;
  details: unknown;
  created_at: string;
}

const VERSION_COLUMNS = 'version, source, item_count, added, removed, details, created_at';
type StoredVersionRow = Omit<VersionRow, 'details'> & { details: string | null };
const decodeVersion = (row: StoredVersionRow): VersionRow => ({ ...row, details: row.details === null ? null : (JSON.parse(row.details) as unknown) });

export async function latestVersion(db: Sql, projectId: string, datasetId: string): Promise<VersionRow | undefined> {
  const row = await db.get<StoredVersionRow>(
    `SELECT ${VERSION_COLUMNS} FROM dataset_versions WHERE project_id = ? AND dataset_id = ? ORDER BY version DESC LIMIT 1`,
    [projectId, datasetId],
  );
  return row === undefined ? undefined : decodeVersion(row);
}

/** The latest version of each dataset named (a page of the list), by dataset id. */
export async function latestVersions(db: Sql, projectId: string, datasetIds: readonly string[]): Promise<Map<string, VersionRow>> {
  if (datasetIds.length === 0) return new Map();
  const rows = await db.all<StoredVersionRow & { dataset_id: string }>(
    `SELECT dataset_id, ${VERSION_COLUMNS} FROM dataset_versions v
     WHERE project_id = ? AND dataset_id IN (SELECT value FROM ${db.dialect.jsonValues('?')})
       AND version = (SELECT max(version) FROM dataset_versions w WHERE w.project_id = v.project_id AND w.dataset_id = v.dataset_id)`,
    [projectId, JSON.stringify(datasetIds)],
  );
  return new Map(rows.map(({ dataset_id, ...row }) => [dataset_id, decodeVersion(row)]));
}

export async function findVersion(db: Sql, projectId: string, datasetId: string, version: number): Promise<VersionRow | undefined> {
  const row = await db.get<StoredVersionRow>(`SELECT ${VERSION_COLUMNS} FROM dataset_versions WHERE project_id = ? AND dataset_id = ? AND version = ?`, [
    projectId,
    datasetId,
    version,
  ]);
  return row === undefined ? undefined : decodeVersion(row);
}

/** Newest first, below the version `before` (a cursor). */
export async function listVersions(db: Sql, projectId: string, datasetId: string, before: number | undefined, limit: number): Promise<VersionRow[]> {
  const rows = await db.all<StoredVersionRow>(
    `SELECT ${VERSION_COLUMNS} FROM dataset_versions WHERE project_id = ? AND dataset_id = ? AND version < ? ORDER BY version DESC LIMIT ?`,
    [projectId, datasetId, before ?? Number.MAX_SAFE_INTEGER, limit],
  );
  return rows.map(decodeVersion);
}

export async function insertVersion(db: Sql, projectId: string, datasetId: string, row: VersionRow): Promise<void> {
  await db.run(`INSERT INTO dataset_versions (project_id, dataset_id, ${VERSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    projectId,
    datasetId,
    row.version,
    row.source,
    row.item_count,
    row.added,
    row.removed,
    row.details === null ? null : JSON.stringify(row.details),
    row.created_at,
  ]);
}

/**
 * Serialises the versioning of one dataset: an UPDATE takes the dataset's row lock on PostgreSQL
 * (SQLite's single writer already serialises), so two replicas adding items at once number their
 * versions one after the other instead of both taking the same number.
 */
export async function lockDataset(db: Sql, projectId: string, datasetId: string): Promise<void> {
  await db.run('UPDATE datasets SET description = description WHERE project_id = ? AND dataset_id = ?', [projectId, datasetId]);
}

export interface NewItem {
  item_id: string;
  inputs: Record<string, unknown>;
  expected: unknown;
  metadata: Record<string, unknown>;
  source_run_id: string | null;
}

export interface ItemRow extends NewItem {
  seq: number;
  added_in: number;
}

/** Rows per INSERT: 10 parameters each, far below PostgreSQL's 65 535, and few round trips. */
const INSERT_ROWS = 500;

/** Items enter at the end of the dataset's order, in the order given. */
export async function insertItems(db: Sql, projectId: string, datasetId: string, version: number, items: readonly NewItem[]): Promise<void> {
  let seq = (await db.value<number | null>('SELECT max(seq) FROM dataset_items WHERE project_id = ? AND dataset_id = ?', [projectId, datasetId])) ?? 0;
  for (let start = 0; start < items.length; start += INSERT_ROWS) {
    const chunk = items.slice(start, start + INSERT_ROWS);
    const args: unknown[] = [];
    for (const item of chunk) {
      seq += 1;
      args.push(
        projectId,
        datasetId,
        item.item_id,
        seq,
        JSON.stringify(item.inputs),
        item.expected === undefined || item.expected === null ? null : JSON.stringify(item.expected),
        JSON.stringify(item.metadata),
        item.source_run_id,
        version,
      );
    }
    await db.run(
      `INSERT INTO dataset_items (project_id, dataset_id, item_id, seq, inputs, expected, metadata, source_run_id, added_in, removed_in)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)').join(', ')}`,
      args,
    );
  }
}

/** Removes from `version` on every item still present (a replace); answers how many. */
export async function removeAllItems(db: Sql, projectId: string, datasetId: string, version: number): Promise<number> {
  return (
    await db.run('UPDATE dataset_items SET removed_in = ? WHERE project_id = ? AND dataset_id = ? AND removed_in IS NULL', [version, projectId, datasetId])
  ).changes;
}

/** Removes one present item from `version`; false when it is not in the latest version. */
export async function removeItem(db: Sql, projectId: string, datasetId: string, itemId: string, version: number): Promise<boolean> {
  return (
    (
      await db.run('UPDATE dataset_items SET removed_in = ? WHERE project_id = ? AND dataset_id = ? AND item_id = ? AND removed_in IS NULL', [
        version,
        projectId,
        datasetId,
        itemId,
      ])
    ).changes === 1
  );
}

type StoredItemRow = Omit<ItemRow, 'inputs' | 'expected' | 'metadata'> & { inputs: string; expected: string | null; metadata: string };

/** The items of one version in the dataset's order, after the item at `afterSeq`. */
export async function listItems(db: Sql, projectId: string, datasetId: string, version: number, afterSeq: number, limit: number): Promise<ItemRow[]> {
  const rows = await db.all<StoredItemRow>(
    `SELECT item_id, seq, inputs, expected, metadata, source_run_id, added_in FROM dataset_items INDEXED BY dataset_items_seq
     WHERE project_id = ? AND dataset_id = ? AND seq > ? AND added_in <= ? AND (removed_in IS NULL OR removed_in > ?)
     ORDER BY seq LIMIT ?`,
    [projectId, datasetId, afterSeq, version, version, limit],
  );
  return rows.map((r) => ({
    ...r,
    inputs: JSON.parse(r.inputs) as Record<string, unknown>,
    expected: r.expected === null ? null : (JSON.parse(r.expected) as unknown),
    metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  }));
}

/** The places and ids of one version's items in the dataset's order, after the item at `afterSeq`: nothing else read. */
export async function listItemKeys(
  db: Sql,
  projectId: string,
  datasetId: string,
  version: number,
  afterSeq: number,
  limit: number,
): Promise<Array<{ seq: number; item_id: string }>> {
  const rows = await db.all<{ seq: number; item_id: string }>(
    `SELECT seq, item_id FROM dataset_items INDEXED BY dataset_items_seq
     WHERE project_id = ? AND dataset_id = ? AND seq > ? AND added_in <= ? AND (removed_in IS NULL OR removed_in > ?)
     ORDER BY seq LIMIT ?`,
    [projectId, datasetId, afterSeq, version, version, limit],
  );
  return rows.map((r) => ({ seq: Number(r.seq), item_id: r.item_id }));
}

/** The last place of the dataset's items (0 for none). */
export async function maxSeq(db: Sql, projectId: string, datasetId: string): Promise<number> {
  return Number((await db.value<number | null>('SELECT max(seq) FROM dataset_items WHERE project_id = ? AND dataset_id = ?', [projectId, datasetId])) ?? 0);
}
