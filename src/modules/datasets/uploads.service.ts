import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import { conflict, invalid, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { SYSTEM_ACTOR, type Actor } from '../changes/changeLog.js';
import * as datasets from './datasets.repo.js';
import type { DatasetVersionView, ItemInputValue, UploadView } from './datasets.schemas.js';
import * as repo from './uploads.repo.js';
import { inSlices, SLICE_ROWS } from '../../db/slices.js';
import * as staging from './staging.repo.js';
import type { Versioning } from './versioning.js';

/** How long an upload stays open: its staged items are deleted after that if it was never committed. */
const UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;
/** Items one upload may stage: its commit is one transaction, which this keeps to seconds. */
const MAX_UPLOAD_ITEMS = 200_000;

const uploadView = (datasetId: string, row: repo.UploadRow): UploadView => ({ dataset_id: datasetId, ...row });

/**
 * Uploads (docs/evaluations.md#uploads): items sent over as many requests as they need, staged
 * (checked as POST /datasets/{id}/items checks them, kept apart, in no version), then committed as
 * ONE new version, atomic to every reader (written in slices when large: versioning.ts). The commit
 * builds on the latest version at commit time: items added meanwhile by a plain POST
 * /datasets/{id}/items stay, and the upload's come after them (or, with `replace`, the new version
 * holds the upload's items only). An upload ends when committed, discarded, or UPLOAD_TTL_MS after
 * it started; its staged rows are then deleted in slices (at once, or by the next upload started in
 * any project, or by housekeeping).
 */
export function createUploads(store: Store, versioning: Versioning) {
  const now = () => isoNow(store.clock);

  async function openDataset(db: Sql, projectId: string, datasetId: string): Promise<void> {
    const found = await datasets.findDataset(db, projectId, datasetId);
    if (found === undefined) throw notFound(`Dataset '${datasetId}' not found`);
    if (found.archived_at !== null) throw conflict(`Dataset '${datasetId}' is archived`);
  }

  /** The upload, its row held to the end of the transaction (uploads.repo lockUpload). */
  async function openUpload(db: Sql, projectId: string, datasetId: string, uploadId: string, evenArchived = false): Promise<repo.UploadRow> {
    if (evenArchived) {
      if ((await datasets.findDataset(db, projectId, datasetId)) === undefined) throw notFound(`Dataset '${datasetId}' not found`);
    } else await openDataset(db, projectId, datasetId);
    await repo.lockUpload(db, projectId, datasetId, uploadId);
    const found = await repo.findUpload(db, projectId, datasetId, uploadId, now());
    if (found === undefined) throw notFound(`Upload '${uploadId}' not found for dataset '${datasetId}' (committed, discarded or expired)`);
    return found;
  }

  /** Deletes the rows of an upload that has ended, a slice at a time. */
  function purge(projectId: string, datasetId: string, uploadId: string): Promise<void> {
    return inSlices(() => store.writer.write((db) => repo.purgeSlice(db, projectId, datasetId, uploadId, now(), SLICE_ROWS)));
  }

  /** Every ended upload's rows; one whose dataset has a version being written waits for the next pass (it may be the one read). */
  async function purgeEnded(): Promise<void> {
    for (const u of await repo.endedUploads(store.sql, now())) {
      if ((await staging.stagingOf(store.sql, u.project_id, u.dataset_id)) === undefined) await purge(u.project_id, u.dataset_id, u.upload_id);
    }
  }

  return {
    async start(projectId: string, datasetId: string): Promise<UploadView> {
      const started = await store.writer.write(async (db) => {
        await openDataset(db, projectId, datasetId);
        const at = store.clock.now().getTime();
        const row: repo.UploadRow = {
          upload_id: newId('upl'),
          item_count: 0,
          created_at: new Date(at).toISOString(),
          expires_at: new Date(at + UPLOAD_TTL_MS).toISOString(),
        };
        await repo.insertUpload(db, projectId, datasetId, row);
        return uploadView(datasetId, row);
      });
      await purgeEnded();
      return started;
    },

    /** Stages items after those already staged; all of a request or none. Waits while a version of the dataset is being written (its commit may be reading this upload). */
    stage(projectId: string, datasetId: string, uploadId: string, items: readonly ItemInputValue[]): Promise<UploadView> {
      return versioning.whenFree(projectId, datasetId, () =>
        store.writer.write(async (db) => {
          const upload = await openUpload(db, projectId, datasetId, uploadId);
          await versioning.requireFree(db, projectId, datasetId);
          if (upload.item_count + items.length > MAX_UPLOAD_ITEMS) {
            throw invalid('body', ['items'], `an upload holds at most ${MAX_UPLOAD_ITEMS} items; it has ${upload.item_count} and these are ${items.length}`);
          }
          const after = await repo.reservePlaces(db, projectId, datasetId, uploadId, items.length);
          const staged = items.map((item) => ({
            item_id: newId('itm'),
            inputs: item.inputs,
            expected: item.expected ?? null,
            metadata: item.metadata ?? {},
            source_run_id: null,
          }));
          await repo.stageItems(db, projectId, datasetId, uploadId, after, staged);
          return uploadView(datasetId, { ...upload, item_count: after + items.length });
        }),
      );
    },

    /** The new version: the latest version's items (none with `replace`) and the upload's; the upload is gone after. */
    commit(projectId: string, datasetId: string, uploadId: string, replace: boolean, actor: Actor = SYSTEM_ACTOR): Promise<DatasetVersionView> {
      return versioning.newVersion(
        projectId,
        datasetId,
        {
          source: replace ? 'replace' : 'append',
          replace,
          add: [],
          details: { upload_id: uploadId },
          staged: {
            // Read after the dataset's lock: a second commit of the same upload finds it gone (404).
            async count(db) {
              const upload = await openUpload(db, projectId, datasetId, uploadId);
              if (upload.item_count === 0) throw invalid('path', ['upload_id'], 'the upload has no items: stage some before committing');
              return upload.item_count;
            },
            copy: (db, version, base, after, upTo) => repo.copyStaged(db, projectId, datasetId, uploadId, version, base, after, upTo),
            taken: (db) => repo.expireUpload(db, projectId, datasetId, uploadId, now()),
            purge: () => purge(projectId, datasetId, uploadId),
          },
        },
        actor,
      );
    },

    /** Drops an upload and what it staged (of an archived dataset too). */
    async discard(projectId: string, datasetId: string, uploadId: string): Promise<void> {
      await versioning.whenFree(projectId, datasetId, () =>
        store.writer.write(async (db) => {
          await openUpload(db, projectId, datasetId, uploadId, true);
          await versioning.requireFree(db, projectId, datasetId);
          await repo.expireUpload(db, projectId, datasetId, uploadId, now());
        }),
      );
      await purge(projectId, datasetId, uploadId);
    },

    /** Housekeeping: the rows of uploads that ended (expired, or a purge cut short). */
    housekeeping: purgeEnded,
  };
}
