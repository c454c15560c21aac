import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { inSlices, SLICE_ROWS } from '../../db/slices.js';
import { isoNow } from '../../lib/clock.js';
import { conflict, notFound } from '../../lib/errors.js';
import type { Actor, ChangeLog } from '../changes/changeLog.js';
import * as repo from './datasets.repo.js';
import type { DatasetVersionView } from './datasets.schemas.js';
import * as staging from './staging.repo.js';

/** Items kept apart until a version takes them (an upload's), read in the version's own transactions. */
interface StagedItems {
  /** In the version's first transaction, the dataset locked: how many there are, at places 1..n (throws when there are none to take). */
  count(db: Sql): Promise<number>;
  /** Copies the staged items at places (after, upTo] into the dataset as added in `version`, each at `base` + its place; answers how many. */
  copy(db: Sql, version: number, base: number, after: number, upTo: number): Promise<number>;
  /** In the version's last transaction: they are used up (the upload ends). */
  taken(db: Sql): Promise<void>;
  /** Once the version is made: their rows are deleted, a slice at a time. */
  purge(): Promise<void>;
}

export interface VersionChange {
  source: repo.VersionRow['source'];
  /** Drop every present item first (the new version holds only the items added). */
  replace: boolean;
  add: readonly repo.NewItem[];
  /** Items staged elsewhere (an upload's), added after `add`. */
  staged?: StagedItems;
  /** One item to drop (a delete). */
  removeItem?: string;
  details?: unknown;
}

export const versionView = (datasetId: string, row: repo.VersionRow): DatasetVersionView => ({ dataset_id: datasetId, ...row });

/** Thrown inside a transaction that found another version of its dataset being written: the caller waits for it, then tries again. */
const DATASET_BUSY = Symbol('a version of this dataset is being written');
/** How often a writer waiting for another process's version of the same dataset looks again. */
const BUSY_POLL_MS = 50;

/** What the first transaction decided: the version made already, or the slices still to write. */
type Plan = { done: DatasetVersionView } | { done: null; version: number; base: number; present: number; staged: number; owner: string };

class Abandoned extends Error {
  constructor(datasetId: string, version: number) {
    super(`dataset ${datasetId}: writing version ${version} took longer than its hold (PROMPTLINE_SLICED_WRITE_HOLD_MS) between two slices; nothing was kept`);
  }
}

/**
 * One new version (migrations/0024_datasets.sql: nothing is copied; the items a version keeps are
 * the rows already there). A small one (up to SLICE_ROWS rows touched) is one transaction: the
 * next number, the items' rows (added here, removed from here), the version's row and its audit
 * entry. A larger one (a replace of a large dataset, an upload of 200 000 items) takes its number
 * in a first transaction (the dataset's staging: other versions of it wait), writes its rows a
 * slice per transaction, each invisible since no read asks for a version that has no row yet, and
 * the version's row in the last. If it stops half-way, its rows are taken back (by itself, or, if
 * its process died, by whoever finds its hold ended: the next version of the dataset, or
 * housekeeping). `holdMs`: PROMPTLINE_SLICED_WRITE_HOLD_MS.
 */
export function createVersioning(store: Store, changeLog: ChangeLog, holdMs: number) {
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const now = () => isoNow(store.clock);
  const holdUntil = () => new Date(store.clock.now().getTime() + holdMs).toISOString();
  /** The versions this process is writing in slices, by dataset: its own other writes wait for them without polling. */
  const writing = new Map<string, Promise<unknown>>();
  const keyOf = (projectId: string, datasetId: string) => `${projectId}\u0000${datasetId}`;

  /** Takes back the rows of a version that was never made (its hold ended, or held by `from`), a slice at a time, then ends its staging. */
  async function unstage(projectId: string, datasetId: string, version: number, from: string | null = null): Promise<void> {
    const me = `${owner}:${randomUUID().slice(0, 8)}`;
    const held = await store.writer.write(async (db) => {
      const found = await staging.stagingOf(db, projectId, datasetId);
      return found?.version === version && (await staging.takeOverStaging(db, projectId, datasetId, me, now(), holdUntil(), from));
    });
    if (!held) return; // another took it over, or it is gone
    const renewed = async (db: Sql) => {
      if (!(await staging.renewStaging(db, projectId, datasetId, me, now(), holdUntil()))) throw new Abandoned(datasetId, version);
    };
    await inSlices(() =>
      store.writer.write(async (db) => {
        await renewed(db);
        return staging.unaddSlice(db, projectId, datasetId, version, SLICE_ROWS);
      }),
    );
    let after = 0;
    await inSlices(async () => {
      const next = await store.writer.write(async (db) => {
        await renewed(db);
        return staging.unremoveSlice(db, projectId, datasetId, version, after, SLICE_ROWS);
      });
      if (next === null) return false;
      after = next;
      return true;
    });
    await store.writer.write((db) => staging.endStaging(db, projectId, datasetId, me));
  }

  /**
   * Runs `attempt` once no version of the dataset is being written: it may throw DATASET_BUSY (it
   * found one begun meanwhile) and is then run again. A version whose writer's hold ended is taken
   * back first.
   */
  async function whenFree<T>(projectId: string, datasetId: string, attempt: () => Promise<T>): Promise<T> {
    const key = keyOf(projectId, datasetId);
    for (;;) {
      const mine = writing.get(key);
      if (mine !== undefined) {
        await mine.catch(() => undefined);
        continue;
      }
      const found = await staging.stagingOf(store.sql, projectId, datasetId);
      if (found !== undefined) {
        if (found.until <= now()) await unstage(projectId, datasetId, found.version);
        else await new Promise((resolve) => setTimeout(resolve, BUSY_POLL_MS));
        continue;
      }
      try {
        return await attempt();
      } catch (error) {
        if (error !== DATASET_BUSY) throw error;
      }
    }
  }

  /** Inside a transaction, the dataset locked: throws DATASET_BUSY when a version of it is being written. */
  async function requireFree(db: Sql, projectId: string, datasetId: string): Promise<void> {
    if ((await staging.stagingOf(db, projectId, datasetId)) !== undefined) throw DATASET_BUSY;
  }

  async function finishVersion(db: Sql, projectId: string, datasetId: string, actor: Actor, row: repo.VersionRow): Promise<DatasetVersionView> {
    await repo.insertVersion(db, projectId, datasetId, row);
    const { details: _details, ...summary } = row;
    await changeLog.record(db, projectId, actor, { action: 'dataset.version_created', targetType: 'dataset', targetId: datasetId, after: summary });
    return versionView(datasetId, row);
  }

  /** The first transaction: the whole version when it is small, else its number taken and the plan of its slices. */
  function begin(projectId: string, datasetId: string, change: VersionChange, actor: Actor): Promise<Plan> {
    return store.writer.write(async (db) => {
      const dataset = await repo.findDataset(db, projectId, datasetId);
      if (dataset === undefined) throw notFound(`Dataset '${datasetId}' not found`);
      if (dataset.archived_at !== null) throw conflict(`Dataset '${datasetId}' is archived`);
      await repo.lockDataset(db, projectId, datasetId);
      await requireFree(db, projectId, datasetId);
      const latest = await repo.latestVersion(db, projectId, datasetId);
      const version = (latest?.version ?? 0) + 1;
      const present = latest?.item_count ?? 0;
      const staged = change.staged === undefined ? 0 : await change.staged.count(db);
      const row = (added: number, removed: number): repo.VersionRow => ({
        version,
        source: change.source,
        item_count: present - removed + added,
        added,
        removed,
        details: change.details ?? null,
        created_at: isoNow(store.clock),
      });
      if ((change.replace ? present : 0) + change.add.length + staged > SLICE_ROWS) {
        const base = await repo.maxSeq(db, projectId, datasetId);
        const plan = { version, base, present, staged, owner: `${owner}:${randomUUID().slice(0, 8)}` };
        await staging.beginStaging(db, projectId, datasetId, { version, owner: plan.owner, until: holdUntil() });
        return { done: null, ...plan };
      }
      let removed = 0;
      if (change.replace) removed = await repo.removeAllItems(db, projectId, datasetId, version);
      if (change.removeItem !== undefined) {
        if (!(await repo.removeItem(db, projectId, datasetId, change.removeItem, version)))
          throw notFound(`Item '${change.removeItem}' is not in the latest version`);
        removed = 1;
      }
      await repo.insertItems(db, projectId, datasetId, version, change.add);
      let added = change.add.length;
      if (change.staged !== undefined) {
        added += await change.staged.copy(db, version, await repo.maxSeq(db, projectId, datasetId), 0, staged);
        await change.staged.taken(db);
      }
      return { done: await finishVersion(db, projectId, datasetId, actor, row(added, removed)) };
    });
  }

  /** The slices of a large version and its last transaction; on any failure its rows are taken back. */
  async function writeSliced(projectId: string, datasetId: string, change: VersionChange, actor: Actor, plan: Extract<Plan, { done: null }>) {
    const { version, owner: holder } = plan;
    // Each op may run twice (the writer runs a batch again after another op of it failed): state moves only once committed.
    const slice = <T>(op: (db: Sql) => Promise<T>) =>
      store.writer.write(async (db) => {
        if (!(await staging.renewStaging(db, projectId, datasetId, holder, now(), holdUntil()))) throw new Abandoned(datasetId, version);
        return op(db);
      });
    try {
      let removed = 0;
      if (change.replace) {
        let after = 0;
        await inSlices(async () => {
          const done = await slice((db) => staging.removeItemsSlice(db, projectId, datasetId, version, after, SLICE_ROWS));
          removed += done.removed;
          if (done.next === null) return false;
          after = done.next;
          return true;
        });
      }
      for (let start = 0; start < change.add.length; start += SLICE_ROWS) {
        await slice((db) => repo.insertItems(db, projectId, datasetId, version, change.add.slice(start, start + SLICE_ROWS)));
      }
      let added = change.add.length;
      const staged = change.staged;
      if (staged !== undefined) {
        for (let after = 0; after < plan.staged; after += SLICE_ROWS) {
          const upTo = Math.min(after + SLICE_ROWS, plan.staged);
          added += await slice((db) => staged.copy(db, version, plan.base + change.add.length, after, upTo));
        }
      }
      return await slice(async (db) => {
        await staged?.taken(db);
        const view = await finishVersion(db, projectId, datasetId, actor, {
          version,
          source: change.source,
          item_count: plan.present - removed + added,
          added,
          removed,
          details: change.details ?? null,
          created_at: isoNow(store.clock),
        });
        await staging.endStaging(db, projectId, datasetId, holder);
        return view;
      });
    } catch (error) {
      // Best effort: whoever next finds the hold ended takes back what this leaves.
      await unstage(projectId, datasetId, version, holder).catch(() => undefined);
      throw error;
    }
  }

  return {
    whenFree,
    requireFree,

    newVersion(projectId: string, datasetId: string, change: VersionChange, actor: Actor): Promise<DatasetVersionView> {
      return whenFree(projectId, datasetId, async () => {
        const plan = await begin(projectId, datasetId, change, actor);
        let view: DatasetVersionView;
        if (plan.done !== null) view = plan.done;
        else {
          const written = writeSliced(projectId, datasetId, change, actor, plan);
          const key = keyOf(projectId, datasetId);
          writing.set(key, written);
          try {
            view = await written;
          } finally {
            writing.delete(key);
          }
        }
        await change.staged?.purge();
        return view;
      });
    },

    /** Housekeeping (at start and every few minutes): takes back the versions whose writer died half-way. */
    async housekeeping(): Promise<void> {
      for (const d of await staging.abandonedStagings(store.sql, now())) {
        const found = await staging.stagingOf(store.sql, d.project_id, d.dataset_id);
        if (found !== undefined) await unstage(d.project_id, d.dataset_id, found.version);
      }
    },
  };
}

export type Versioning = ReturnType<typeof createVersioning>;
