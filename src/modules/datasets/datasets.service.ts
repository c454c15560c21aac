import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { toPage } from '../../db/pagination.js';
import { isoNow } from '../../lib/clock.js';
import { conflict, invalid, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { SYSTEM_ACTOR, type Actor, type ChangeLog } from '../changes/changeLog.js';
import * as repo from './datasets.repo.js';
import type { CreateDatasetInput, DatasetVersionView, DatasetView, FromRunsInput, ItemInputValue, ItemView } from './datasets.schemas.js';
import { samplePositions } from './sample.js';
import { createUploads } from './uploads.service.js';
import { createVersioning, versionView } from './versioning.js';

/** The runs a dataset is made from: the runs module's, handed over by services.ts. */
export interface RunSamples {
  matchingRunIds(
    db: Sql,
    projectId: string,
    q: { promptId: string; version?: number | undefined; since?: string | undefined; until?: string | undefined; status: 'ok' | 'error'; scanLimit: number },
  ): Promise<string[]>;
  runTexts(db: Sql, projectId: string, ids: readonly string[]): Promise<Array<{ id: string; inputs: Record<string, unknown>; output: string | null }>>;
}

/** What an evaluation reads of datasets (handed over by services.ts): a version, and its items in order. */
export const datasetFacts = {
  async versionOf(db: Sql, projectId: string, datasetId: string, version: number | undefined): Promise<{ version: number; item_count: number } | null> {
    if ((await repo.findDataset(db, projectId, datasetId)) === undefined) return null;
    const row = version === undefined ? await repo.latestVersion(db, projectId, datasetId) : await repo.findVersion(db, projectId, datasetId, version);
    return row === undefined ? null : { version: row.version, item_count: row.item_count };
  },
  items: (db: Sql, projectId: string, datasetId: string, version: number, afterSeq: number, limit: number) =>
    repo.listItems(db, projectId, datasetId, version, afterSeq, limit),
  itemKeys: (db: Sql, projectId: string, datasetId: string, version: number, afterSeq: number, limit: number) =>
    repo.listItemKeys(db, projectId, datasetId, version, afterSeq, limit),
};

/** The newest matching runs a random sample is drawn from: a bound on what one call reads (each candidate is a row read, on SQLite in one synchronous statement). */
const SAMPLE_SCAN_LIMIT = 20_000;

const datasetView = (row: repo.DatasetRow, latest: repo.VersionRow | undefined): DatasetView => ({
  dataset_id: row.dataset_id,
  description: row.description,
  latest_version: latest?.version ?? 0,
  item_count: latest?.item_count ?? 0,
  created_at: row.created_at,
  archived_at: row.archived_at,
});

const itemView = (row: repo.ItemRow): ItemView => ({
  item_id: row.item_id,
  inputs: row.inputs,
  expected: row.expected ?? null,
  metadata: row.metadata,
  source_run_id: row.source_run_id,
  added_in: row.added_in,
});

const newItems = (items: readonly ItemInputValue[]): repo.NewItem[] =>
  items.map((item) => ({ item_id: newId('itm'), inputs: item.inputs, expected: item.expected ?? null, metadata: item.metadata ?? {}, source_run_id: null }));

/** `since`/`until` of from_runs, as runs store times (ISO-8601 UTC with milliseconds); anything else is a 422. */
function bodyTime(field: 'since' | 'until', value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalid('body', [field], `${field} must be an ISO-8601 date-time`);
  return new Date(ms).toISOString();
}

/** `holdMs`: PROMPTLINE_SLICED_WRITE_HOLD_MS, how long a version written in slices may pause before it counts as abandoned. */
export function createDatasetService(store: Store, changeLog: ChangeLog, runs: RunSamples, holdMs = 15_000) {
  const require = async (db: Sql, projectId: string, datasetId: string) => {
    const found = await repo.findDataset(db, projectId, datasetId);
    if (found === undefined) throw notFound(`Dataset '${datasetId}' not found`);
    return found;
  };

  const versioning = createVersioning(store, changeLog, holdMs);
  const newVersion = versioning.newVersion;
  const uploads = createUploads(store, versioning);

  return {
    /** Items sent over several requests, committed as one version (uploads.service.ts). */
    uploads,

    /** Takes back versions whose writer died half-way, deletes the rows of ended uploads; the server runs it at start and every few minutes. */
    async housekeeping(): Promise<void> {
      await versioning.housekeeping();
      await uploads.housekeeping();
    },

    async create(projectId: string, input: CreateDatasetInput, actor: Actor = SYSTEM_ACTOR): Promise<DatasetView> {
      const row: repo.DatasetRow = { dataset_id: input.dataset_id, description: input.description ?? null, created_at: isoNow(store.clock), archived_at: null };
      await store.writer.write(async (db) => {
        if ((await repo.findDataset(db, projectId, input.dataset_id)) !== undefined) throw conflict(`Dataset '${input.dataset_id}' already exists`);
        await repo.insertDataset(db, projectId, row);
        await changeLog.record(db, projectId, actor, {
          action: 'dataset.created',
          targetType: 'dataset',
          targetId: row.dataset_id,
          after: datasetView(row, undefined),
        });
      });
      return datasetView(row, undefined);
    },

    async list(projectId: string, query: { include_archived?: boolean; cursor?: string; limit?: number }) {
      const page = await repo.listDatasets(store.sql, projectId, {
        includeArchived: query.include_archived ?? false,
        cursor: query.cursor,
        limit: query.limit ?? 50,
      });
      const latest = await repo.latestVersions(
        store.sql,
        projectId,
        page.rows.map((r) => r.dataset_id),
      );
      return toPage(page, (row) => datasetView(row, latest.get(row.dataset_id)));
    },

    async get(projectId: string, datasetId: string): Promise<DatasetView> {
      const row = await require(store.sql, projectId, datasetId);
      return datasetView(row, await repo.latestVersion(store.sql, projectId, datasetId));
    },

    /** Archived: still readable, refuses new versions. */
    async archive(projectId: string, datasetId: string, actor: Actor = SYSTEM_ACTOR): Promise<void> {
      await store.writer.write(async (db) => {
        const before = await require(db, projectId, datasetId);
        if (before.archived_at !== null) return;
        const at = isoNow(store.clock);
        await repo.archiveDataset(db, projectId, datasetId, at);
        await changeLog.record(db, projectId, actor, { action: 'dataset.archived', targetType: 'dataset', targetId: datasetId, after: { archived_at: at } });
      });
    },

    /** A new version: the latest one's items and these after them. */
    append(projectId: string, datasetId: string, items: readonly ItemInputValue[], actor: Actor = SYSTEM_ACTOR): Promise<DatasetVersionView> {
      return newVersion(projectId, datasetId, { source: 'append', replace: false, add: newItems(items) }, actor);
    },

    /** A new version holding these items only. */
    replace(projectId: string, datasetId: string, items: readonly ItemInputValue[], actor: Actor = SYSTEM_ACTOR): Promise<DatasetVersionView> {
      return newVersion(projectId, datasetId, { source: 'replace', replace: true, add: newItems(items) }, actor);
    },

    /** A new version without one item (earlier versions keep it). */
    deleteItem(projectId: string, datasetId: string, itemId: string, actor: Actor = SYSTEM_ACTOR): Promise<DatasetVersionView> {
      return newVersion(projectId, datasetId, { source: 'delete', replace: false, add: [], removeItem: itemId }, actor);
    },

    /**
     * A new version from stored runs of a prompt: inputs → inputs, output → expected, the run's id
     * kept as source_run_id. The newest `limit` matching runs, or a uniform sample of `limit` among
     * the newest SAMPLE_SCAN_LIMIT. No match is a 422, so an empty version is never made by mistake.
     */
    async fromRuns(projectId: string, datasetId: string, input: FromRunsInput, actor: Actor = SYSTEM_ACTOR): Promise<DatasetVersionView> {
      await require(store.sql, projectId, datasetId);
      const since = bodyTime('since', input.since);
      const until = bodyTime('until', input.until);
      const status = input.status ?? 'ok';
      const sample = input.sample ?? false;
      const ids = await runs.matchingRunIds(store.sql, projectId, {
        promptId: input.prompt_id,
        version: input.version,
        since,
        until,
        status,
        scanLimit: sample ? SAMPLE_SCAN_LIMIT : input.limit,
      });
      if (ids.length === 0) throw invalid('body', ['prompt_id'], `no stored runs of prompt '${input.prompt_id}' match these filters`);
      const seed = input.seed ?? Math.floor(Math.random() * 4_294_967_296);
      const chosen = sample ? samplePositions(ids.length, input.limit, seed).map((i) => ids[i]!) : ids;
      const texts = await runs.runTexts(store.sql, projectId, chosen);
      const add = texts.map((run) => ({ item_id: newId('itm'), inputs: run.inputs, expected: run.output, metadata: {}, source_run_id: run.id }));
      const details = {
        prompt_id: input.prompt_id,
        version: input.version ?? null,
        since: since ?? null,
        until: until ?? null,
        status,
        limit: input.limit,
        sample,
        seed: sample ? seed : null,
        runs_considered: ids.length,
      };
      return newVersion(projectId, datasetId, { source: 'from_runs', replace: input.replace ?? false, add, details }, actor);
    },

    async versions(projectId: string, datasetId: string, query: { cursor?: string; limit?: number }) {
      await require(store.sql, projectId, datasetId);
      const before = query.cursor === undefined ? undefined : Number(query.cursor);
      if (before !== undefined && !Number.isSafeInteger(before)) throw invalid('query', ['cursor'], 'invalid cursor');
      const limit = query.limit ?? 50;
      const rows = await repo.listVersions(store.sql, projectId, datasetId, before, limit + 1);
      const page = rows.slice(0, limit);
      return { data: page.map((r) => versionView(datasetId, r)), next_cursor: rows.length > limit ? String(page.at(-1)!.version) : null };
    },

    async version(projectId: string, datasetId: string, version: number): Promise<DatasetVersionView> {
      await require(store.sql, projectId, datasetId);
      const row = await repo.findVersion(store.sql, projectId, datasetId, version);
      if (row === undefined) throw notFound(`Dataset '${datasetId}' has no version ${version}`);
      return versionView(datasetId, row);
    },

    /** One page of a version's items, in the dataset's order; the cursor is the last item's place. */
    async items(projectId: string, datasetId: string, query: { version?: number; cursor?: string; limit?: number }) {
      await require(store.sql, projectId, datasetId);
      let version = query.version;
      if (version === undefined) version = (await repo.latestVersion(store.sql, projectId, datasetId))?.version ?? 0;
      else if ((await repo.findVersion(store.sql, projectId, datasetId, version)) === undefined)
        throw notFound(`Dataset '${datasetId}' has no version ${version}`);
      const after = query.cursor === undefined ? 0 : Number(query.cursor);
      if (!Number.isSafeInteger(after) || after < 0) throw invalid('query', ['cursor'], 'invalid cursor');
      const limit = query.limit ?? 100;
      const rows = version === 0 ? [] : await repo.listItems(store.sql, projectId, datasetId, version, after, limit + 1);
      const page = rows.slice(0, limit);
      return { dataset_id: datasetId, version, data: page.map(itemView), next_cursor: rows.length > limit ? String(page.at(-1)!.seq) : null };
    },
  };
}

export type DatasetService = ReturnType<typeof createDatasetService>;
