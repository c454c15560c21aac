import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { inSlices, SLICE_ROWS } from '../../db/slices.js';
import { isoNow } from '../../lib/clock.js';
import * as repo from './evaluations.repo.js';
import * as slices from './slices.repo.js';
import type { EvaluationStatus } from './evaluations.schemas.js';

/** The places and ids of a dataset version's items, in order, after the item at `afterSeq`: the datasets module's, through a port. */
export type ItemKeys = (
  db: Sql,
  projectId: string,
  datasetId: string,
  version: number,
  afterSeq: number,
  limit: number,
) => Promise<Array<{ seq: number; item_id: string }>>;

/** Items per slice of work rows: two rows each (one per version). */
const ITEMS_PER_SLICE = SLICE_ROWS / 2;

class Abandoned extends Error {
  constructor(id: string) {
    super(`evaluation ${id}: writing its work rows took longer than its hold (PROMPTLINE_SLICED_WRITE_HOLD_MS) between two slices; nothing was kept`);
  }
}

/** Marks an ended evaluation's pending rows skipped, a slice at a time (reads show them skipped already). */
function skipPending(store: Store, projectId: string, id: string, at: string): Promise<void> {
  return inSlices(() => store.writer.write((db) => slices.skipPendingSlice(db, projectId, id, at, SLICE_ROWS)));
}

/**
 * Ends an evaluation that is still active: visible at once (one short transaction), then its
 * pending rows marked skipped in slices. False when it had already ended.
 */
export async function endEvaluation(
  store: Store,
  projectId: string,
  id: string,
  status: Exclude<EvaluationStatus, 'queued' | 'running'>,
  error: string | null = null,
  before: (db: Sql) => Promise<unknown> = async () => undefined,
): Promise<boolean> {
  const at = isoNow(store.clock);
  const ended = await store.writer.write(async (db) => {
    await before(db);
    return repo.endEvaluation(db, projectId, id, status, at, error);
  });
  if (ended) await skipPending(store, projectId, id, at);
  return ended;
}

/**
 * The writes of an evaluation that can touch hundreds of thousands of rows, in slices
 * (src/db/slices.ts): its work rows at creation, and the deletion of an evaluation whose creation
 * was cut short. `holdMs`: PROMPTLINE_SLICED_WRITE_HOLD_MS.
 */
export function createEvaluationWrites(store: Store, itemKeys: ItemKeys, holdMs: number) {
  const now = () => isoNow(store.clock);
  const holdUntil = () => new Date(store.clock.now().getTime() + holdMs).toISOString();

  /** One slice of work rows after the item at `after`; answers the last item written, or null when the version has no more. */
  async function workSlice(db: Sql, row: repo.EvaluationRow, after: number, items = ITEMS_PER_SLICE): Promise<number | null> {
    const keys = await itemKeys(db, row.project_id, row.dataset_id, row.dataset_version, after, items);
    await repo.insertWork(db, row.project_id, row.id, keys);
    return keys.length < items ? null : keys.at(-1)!.seq;
  }

  /** Deletes a staged evaluation and its rows, a slice at a time. */
  function deleteStaged(projectId: string, id: string): Promise<void> {
    return inSlices(() => store.writer.write((db) => slices.deleteStagedSlice(db, projectId, id, SLICE_ROWS)));
  }

  return {
    /**
     * Inserts the evaluation in the creating transaction: with its work rows when they fit in one
     * slice (visible at once); else staged (invisible) and true: `writeStaged` must follow.
     */
    async insert(db: Sql, row: repo.EvaluationRow): Promise<boolean> {
      const sliced = row.total > SLICE_ROWS;
      await repo.insertEvaluation(db, row, sliced ? holdUntil() : null);
      if (!sliced) await workSlice(db, row, 0, SLICE_ROWS);
      return sliced;
    },

    /**
     * The work rows of a staged evaluation, a slice per transaction, each renewing its hold; the
     * last one publishes it (visible, runnable). Whatever stops it first (a storage failure, a hold
     * run out), its rows are deleted: nothing of it is ever seen. If the process dies, housekeeping
     * deletes them once the hold has run out.
     */
    async writeStaged(row: repo.EvaluationRow): Promise<void> {
      let after = 0;
      try {
        await inSlices(async () => {
          // The writer may run an op twice (its batch again after another op failed): `after` moves only once committed.
          const last = await store.writer.write(async (db) => {
            if (!(await slices.renewStaging(db, row.project_id, row.id, now(), holdUntil()))) throw new Abandoned(row.id);
            const written = await workSlice(db, row, after);
            if (written === null && !(await slices.publishStaged(db, row.project_id, row.id, now()))) throw new Abandoned(row.id);
            return written;
          });
          if (last === null) return false;
          after = last;
          return true;
        });
      } catch (error) {
        // Best effort: housekeeping deletes whatever this leaves.
        await deleteStaged(row.project_id, row.id).catch(() => undefined);
        throw error;
      }
    },

    /**
     * Housekeeping (at start and every few minutes): deletes the evaluations whose creation was
     * cut short (their hold ran out), and marks skipped the pending rows of ended evaluations that a
     * crash left unmarked.
     */
    async housekeeping(): Promise<void> {
      for (const e of await slices.abandonedStaged(store.sql, now())) await deleteStaged(e.project_id, e.id);
      for (const e of await slices.endedWithPending(store.sql)) await skipPending(store, e.project_id, e.id, e.finished_at);
    },
  };
}
