import type { Sql } from '../../db/sql.js';
import type { Store } from '../../db/store.js';
import { isoNow } from '../../lib/clock.js';
import { conflict, invalid, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { SYSTEM_ACTOR, type Actor } from '../changes/changeLog.js';
import * as datasets from './datasets.repo.js';
import type { DatasetVersionView, ItemInputValue, UploadView } from './datasets.schemas.js';
import * as repo from './uploads.repo.js';
import type { NewVersion } from './versioning.js';

/** How long an upload stays open: its staged items are deleted after that if it was never committed. */
const UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;
/** Items one upload may stage: its commit is one transaction, which this keeps to seconds. */
const MAX_UPLOAD_ITEMS = 200_000;

const uploadView = (datasetId: string, row: repo.UploadRow): UploadView => ({ dataset_id: datasetId, ...row });

/**
 * Uploads (docs/evaluations.md#uploads): items sent over as many requests as they need, staged
 * (checked as POST /datasets/{id}/items checks them, kept apart, in no version), then committed as
 * ONE new version in one transaction. The commit builds on the latest version at commit time: items
 * added meanwhile by a plain POST /datasets/{id}/items stay, and the upload's come after them (or,
 * with `replace`, the new version holds the upload's items only). An upload never committed expires
 * after UPLOAD_TTL_MS; the next upload started (in any project) deletes the expired ones.
 */
export function createUploads(store: Store, newVersion: NewVersion) {
  const now = () => isoNow(store.clock);

  async function openDataset(db: Sql, projectId: string, datasetId: string): Promise<void> {
    const found = await datasets.findDataset(db, projectId, datasetId);
    if (found === undefined) throw notFound(`Dataset '${datasetId}' not found`);
    if (found.archived_at !== null) throw conflict(`Dataset '${datasetId}' is archived`);
  }

  async function openUpload(db: Sql, projectId: string, datasetId: string, uploadId: string, evenArchived = false): Promise<repo.UploadRow> {
    if (evenArchived) {
      if ((await datasets.findDataset(db, projectId, datasetId)) === undefined) throw notFound(`Dataset '${datasetId}' not found`);
    } else await openDataset(db, projectId, datasetId);
    const found = await repo.findUpload(db, projectId, datasetId, uploadId, now());
    if (found === undefined) throw notFound(`Upload '${uploadId}' not found for dataset '${datasetId}' (committed, discarded or expired)`);
    return found;
  }

  return {
    async start(projectId: string, datasetId: string): Promise<UploadView> {
      return store.writer.write(async (db) => {
        await openDataset(db, projectId, datasetId);
        const at = store.clock.now().getTime();
        await repo.deleteExpired(db, new Date(at).toISOString());
        const row: repo.UploadRow = {
          upload_id: newId('upl'),
          item_count: 0,
          created_at: new Date(at).toISOString(),
          expires_at: new Date(at + UPLOAD_TTL_MS).toISOString(),
        };
        await repo.insertUpload(db, projectId, datasetId, row);
        return uploadView(datasetId, row);
      });
    },

    /** Stages items after those already staged; all of a request or none. */
    async stage(projectId: string, datasetId: string, uploadId: string, items: readonly ItemInputValue[]): Promise<UploadView> {
      return store.writer.write(async (db) => {
        const upload = await openUpload(db, projectId, datasetId, uploadId);
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
      });
    },

    /** The new version: the latest version's items (none with `replace`) and the upload's, in one transaction; the upload is gone after. */
    commit(projectId: string, datasetId: string, uploadId: string, replace: boolean, actor: Actor = SYSTEM_ACTOR): Promise<DatasetVersionView> {
      return newVersion(
        projectId,
        datasetId,
        {
          source: replace ? 'replace' : 'append',
          replace,
          add: [],
          details: { upload_id: uploadId },
          // Read after the dataset's lock: a second commit of the same upload finds it gone (404).
          addMore: async (db, version) => {
            const upload = await openUpload(db, projectId, datasetId, uploadId);
            if (upload.item_count === 0) throw invalid('path', ['upload_id'], 'the upload has no items: stage some before committing');
            const added = await repo.commitStaged(db, projectId, datasetId, uploadId, version);
            await repo.deleteUpload(db, projectId, datasetId, uploadId);
            return added;
          },
        },
        actor,
      );
    },

    /** Drops an upload and what it staged (of an archived dataset too). */
    async discard(projectId: string, datasetId: string, uploadId: string): Promise<void> {
      await store.writer.write(async (db) => {
        await openUpload(db, projectId, datasetId, uploadId, true);
        await repo.deleteUpload(db, projectId, datasetId, uploadId);
      });
    },
  };
}
